"""Fixtures for the project's own tests: both bundled CPU plugins, loaded once per test process; a run context."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from pjrt_cts.runtime import Client, Plugin, default_plugin_path, legacy_plugin_path
from pjrt_cts.schema import RunContext, context_environment

PLUGIN_PATHS = {"api0115": default_plugin_path, "api081": legacy_plugin_path}


@pytest.fixture(scope="session", params=sorted(PLUGIN_PATHS))
def any_plugin(request: pytest.FixtureRequest) -> Plugin:
    """Each bundled CPU plugin in turn (0.115 and the older 0.81)."""
    return _load(request.param)


@pytest.fixture(scope="session")
def plugin_0115() -> Plugin:
    return _load("api0115")


@pytest.fixture(scope="session")
def plugin_081() -> Plugin:
    return _load("api081")


@pytest.fixture(scope="session")
def any_client(any_plugin: Plugin) -> Iterator[Client]:
    with any_plugin.create_client({"cpu_device_count": 4}) as client:
        yield client


def _load(key: str) -> Plugin:
    try:
        path = PLUGIN_PATHS[key]()
    except FileNotFoundError as exc:  # the 0.81 plugin comes with the `test` extra
        pytest.skip(str(exc))
    return Plugin.load(path)


@pytest.fixture
def use_run_context(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Callable[..., RunContext]:
    """use_run_context(**RunContext fields): this process (and the children it starts) runs in that context, as a
    `pjrt-cts run` worker does (pjrt_cts.schema.run_context reads it)."""

    def use(**fields: Any) -> RunContext:
        context = RunContext(**fields)
        path = tmp_path / "run-context.json"
        context.write(path)
        for name, value in context_environment(path).items():
            monkeypatch.setenv(name, value)
        return context

    return use
