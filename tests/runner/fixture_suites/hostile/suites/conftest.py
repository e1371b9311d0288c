"""Throwaway suites run against the hostile shim plugin (tests/runner/hostile_plugin.py) whose Compile aborts."""
from __future__ import annotations

from typing import Any, Iterator

import pytest


@pytest.fixture(scope="session")
def plugin() -> Any:
    from pjrt_cts.runtime import Plugin
    from pjrt_cts.schema import run_context

    return Plugin.load(str(run_context().plugin_path))


@pytest.fixture(scope="session")
def client(plugin: Any) -> Iterator[Any]:
    from pjrt_cts.schema import run_context

    with plugin.create_client(dict(run_context().create_options)) as created:
        yield created
