"""Fixtures shared by every layer: the plugin under test, one client per worker, its devices.

Plugins are loaded lazily inside fixtures so that only worker processes (never the runner's
controller, which imports this file while collecting) load the plugin under test.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from pjrt_cts import suite_support as support

_SUITES_DIR = Path(__file__).resolve().parent
if str(_SUITES_DIR) not in sys.path:  # suites/_programs.py is shared by the layers, whatever the import mode
    sys.path.insert(0, str(_SUITES_DIR))
# Layers whose golden-driven tests are dropped when they get no case (no corpus, or no single-device case)
# instead of reporting pytest's empty-parameter-set skip.
_GOLDEN_DRIVEN_LAYERS = ("compile", "execute", "executable")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "isolated: run in a fresh subprocess (the test may crash the plugin)")
    config.addinivalue_line("markers", "feature(name): feature tag recorded in results.json")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from _programs import drop_empty_parametrizations

    for layer in _GOLDEN_DRIVEN_LAYERS:
        drop_empty_parametrizations(config, items, _SUITES_DIR / layer)


@pytest.fixture(scope="session")
def plugin_path() -> Any:
    return support.plugin_path_under_test()


@pytest.fixture(scope="session")
def plugin(plugin_path: Any) -> Any:
    from pjrt_cts.runtime import Plugin

    return Plugin.load(plugin_path)


@pytest.fixture(scope="session")
def create_options() -> dict[str, Any]:
    return support.create_options_under_test()


@pytest.fixture(scope="session")
def client(plugin: Any, create_options: dict[str, Any]) -> Iterator[Any]:
    """One client per worker. If the plugin cannot create one (e.g. no GPU), device layers are NOT_SUPPORTED."""
    from pjrt_cts.runtime import PjrtError

    try:
        created = plugin.create_client(create_options)
    except PjrtError as error:
        support.skip_not_supported(f"PJRT_Client_Create failed: {error.code}: {error.message}")
    with created:
        yield created


@pytest.fixture(scope="session")
def devices(client: Any) -> list[Any]:
    return client.addressable_devices


@pytest.fixture(scope="session")
def device(devices: list[Any]) -> Any:
    return devices[0]
