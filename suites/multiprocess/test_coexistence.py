"""Several plugins and clients in one process: two different plugins used concurrently, two clients of
one plugin, the same plugin loaded twice (one instance) and a copy under another path (a second instance).
Isolated: a plugin that cannot share the process may abort it (CRASH, not a dead worker)."""
from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pjrt_cts.testing import assert_same, environment_lacks
from pjrt_cts.multiprocess.collective_programs import ADD_PROGRAM

ROUNDS = 5
JOIN_BOUND_S = 120.0
SECOND_CPU_OPTIONS = {"cpu_device_count": 2}


def run_add_rounds(client: Any, seed: int) -> None:
    """Compile the add program and run it ROUNDS times with fresh inputs; assert each result (numpy reference)."""
    executable = client.compile(ADD_PROGRAM)
    rng = np.random.default_rng(seed)
    for round_index in range(ROUNDS):
        a, b = (rng.standard_normal(4).astype(np.float32) for _ in range(2))
        out = executable.execute([client.buffer_from_numpy(a), client.buffer_from_numpy(b)])[0].to_numpy()
        assert_same(out, a + b, f"{client.plugin.path.name} round {round_index}: add result")


def run_concurrently(clients: list[Any]) -> None:
    """run_add_rounds on every client at once, one thread each; every failure is reported."""
    errors: list[str] = []

    def work(index: int, client: Any) -> None:
        try:
            run_add_rounds(client, index)
        except BaseException as error:  # noqa: BLE001 - reported below with its client
            errors.append(f"client {index} ({client.plugin.path.name}): {type(error).__name__}: {error}")

    threads = [threading.Thread(target=work, args=(i, c), daemon=True) for i, c in enumerate(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_BOUND_S)
    hung = [i for i, t in enumerate(threads) if t.is_alive()]
    assert not hung, f"clients {hung} still running after {JOIN_BOUND_S:g} s"
    assert not errors, "\n".join(errors)


def second_plugin_path(plugin_path: Path) -> Path:
    """A different plugin to share the process with: a bundled CPU plugin other than the one under test."""
    from pjrt_cts.runtime import default_plugin_path, legacy_plugin_path

    under_test = Path(plugin_path).resolve()
    missing = []
    for locate in (default_plugin_path, legacy_plugin_path):
        try:
            candidate = locate().resolve()
        except FileNotFoundError as error:
            missing.append(str(error))
            continue
        if candidate != under_test and candidate.is_file():
            return candidate
    environment_lacks("no second plugin installed to share the process with: " + "; ".join(missing))
    raise AssertionError("unreachable")


@pytest.mark.isolated
def test_two_different_plugins_run_concurrently_in_one_process(plugin: Any, client: Any) -> None:
    from pjrt_cts.runtime import Plugin

    other = Plugin.load(second_plugin_path(plugin.path))
    assert other.api_address != plugin.api_address, f"{other.path} and {plugin.path} returned the same PJRT_Api"
    devices_before = [d.id for d in client.addressable_devices]
    with other.create_client(SECOND_CPU_OPTIONS) as other_client:
        run_concurrently([client, other_client])
        assert len(other_client.addressable_devices) == SECOND_CPU_OPTIONS["cpu_device_count"], (
            f"{other.path.name}: {len(other_client.addressable_devices)} devices with {SECOND_CPU_OPTIONS}")
    assert [d.id for d in client.addressable_devices] == devices_before, (
        "the plugin under test's client changed its devices after a second plugin shared the process")


@pytest.mark.isolated
def test_two_clients_of_one_plugin_run_concurrently(plugin: Any, client: Any, create_options: dict[str, Any]) -> None:
    with plugin.create_client(create_options) as second:
        assert second.handle != client.handle
        assert [d.id for d in second.devices] == [d.id for d in client.devices], (
            "a second PJRT_Client_Create in the same process sees a different device list")
        run_concurrently([client, second])


@pytest.mark.isolated
def test_loading_the_same_plugin_twice_shares_one_api(plugin: Any, client: Any, create_options: dict[str, Any]) -> None:
    from pjrt_cts.runtime import Plugin

    again = Plugin.load(plugin.path)
    assert again.api_address == plugin.api_address, (
        f"GetPjrtApi after a second dlopen of {plugin.path} returned 0x{again.api_address:x}, first 0x{plugin.api_address:x}")
    with again.create_client(create_options) as second:
        run_concurrently([client, second])


@pytest.mark.isolated
def test_a_copy_of_the_plugin_under_another_path_is_a_second_working_instance(
        plugin: Any, client: Any, create_options: dict[str, Any], tmp_path: Path) -> None:
    from pjrt_cts.runtime import Plugin, PluginLoadError

    copy = tmp_path / plugin.path.name
    shutil.copyfile(plugin.path, copy)
    try:
        second = Plugin.load(copy)
    except PluginLoadError as error:  # e.g. its RUNPATH ($ORIGIN) does not reach its libraries from here
        environment_lacks(f"a copy of the plugin at {copy} does not load from there: {error}")
    assert second.api_address != plugin.api_address, "a copy under another path should be a separate instance"
    with second.create_client(create_options) as second_client:
        run_concurrently([client, second_client])
