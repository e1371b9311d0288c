"""Fixtures shared by every layer: the plugin under test, one client per worker, its devices; the one
setup hook that resolves each test's declared requirements (`@requires(...)`, pjrt_cts.testing.requirements);
and the call wrapper that fails a test whose errors had unreadable payloads (pjrt_cts.testing.error_payloads).

Plugins are loaded lazily inside fixtures so that only worker processes (never the runner's controller,
which imports this file while collecting) load the plugin under test.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Generator, Iterator

import pytest

from pjrt_cts.testing import corpus, error_payloads, plugin_under_test, requirements

if TYPE_CHECKING:  # the runtime is imported where a plugin is loaded (the fixtures), not by the runner's controller
    from pjrt_cts.runtime import Client, Device, Plugin

_SUITES_DIR = Path(__file__).resolve().parent
# Layers whose golden-driven parametrizations may be legitimately empty (no case of a kind) once the
# corpus was read; an unreadable corpus gives an ERROR placeholder per golden test function instead.
_GOLDEN_DRIVEN_LAYERS = ("compile", "execute", "executable", "multidevice")
# Tests that compile or run a golden program as a framework would: kept next to each other per program.
_PROGRAM_TESTS = (_SUITES_DIR / "compile" / "test_golden_programs.py", _SUITES_DIR / "execute" / "test_golden_cases.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for layer in _GOLDEN_DRIVEN_LAYERS:
        corpus.drop_empty_parametrizations(items, _SUITES_DIR / layer)
    corpus.keep_programs_together(items, _PROGRAM_TESTS)


def pytest_runtest_setup(item: pytest.Item) -> None:
    corpus.raise_if_unreadable(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """A test during which an error's payloads could not be read FAILs (pjrt_cts.testing.error_payloads)."""
    with error_payloads.payloads_readable():
        return (yield)


@pytest.fixture(autouse=True)
def _declared_requirements(request: pytest.FixtureRequest) -> None:
    """NOT_SUPPORTED before the test runs when the plugin lacks what the test declared with `@requires`."""
    requirements.resolve_requirements(request)


@pytest.fixture(scope="session")
def plugin_path() -> Path:
    return plugin_under_test.plugin_path_under_test()


@pytest.fixture(scope="session")
def plugin(plugin_path: Path) -> Plugin:
    from pjrt_cts.runtime import Plugin

    return Plugin.load(plugin_path)


@pytest.fixture(scope="session")
def create_options() -> dict[str, Any]:
    return plugin_under_test.create_options_under_test()


@pytest.fixture(scope="session")
def client(plugin: Plugin, create_options: dict[str, Any]) -> Iterator[Client]:
    """One client per worker. PJRT_Client_Create failing with the profile's documented "no device" code makes the
    dependent tests NOT_SUPPORTED; any other failure makes them FAIL as blocked (the cause is reported by
    client.client_create.test_client_creates_with_profile_options)."""
    with requirements.create_session_client(plugin, create_options) as created:
        yield created


@pytest.fixture(scope="session")
def devices(client: Client) -> list[Device]:
    return client.addressable_devices


@pytest.fixture(scope="session")
def device(devices: list[Device]) -> Device:
    return devices[0]
