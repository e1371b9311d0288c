"""Multi-process layer fixtures: the plugin's multi-node scheme, a node launcher, one topology run per worker.

Nodes are `python -m pjrt_cts.multiprocess.node` children sharing one loopback key-value store; each
creates a client with the scheme's options (pjrt_cts.multiprocess.schemes) plus the KV callbacks.
`PJRT_CTS_NUM_NODES` sets N (default 2).
"""
from __future__ import annotations

import os
from typing import Any, Callable

import pytest

from pjrt_cts import suite_support as support

NUM_NODES_ENV = "PJRT_CTS_NUM_NODES"
TOPOLOGY_BOUND_S = 90.0  # client creation on every node; CPU takes ~2 s, GPUs with NCCL more


@pytest.fixture(scope="session")
def num_nodes() -> int:
    return max(2, int(os.environ.get(NUM_NODES_ENV, "2")))


@pytest.fixture(scope="session")
def scheme(client: Any) -> Any:
    from pjrt_cts.multiprocess import scheme_for_platform

    found = scheme_for_platform(client.platform_name)
    if found is None:
        support.skip_not_supported(f"no multi-node client options known for platform {client.platform_name!r} "
                                   "(pjrt_cts/multiprocess/schemes.py)")
    return found


@pytest.fixture(scope="session")
def local_device_count(client: Any) -> int:
    return len(client.addressable_devices)


@pytest.fixture(scope="session")
def profile_setup() -> tuple[list[str], dict[str, str]]:
    """(libraries to preload, environment) for node processes, from the profile under test."""
    name = os.environ.get(support.ENV_PROFILE, "")
    if not name:
        return [], {}
    from pjrt_cts.profiles import get_profile

    profile = get_profile(name)
    return [str(p) for p in profile.preload_libraries()], dict(profile.worker_environment())


@pytest.fixture(scope="session")
def launch(plugin_path: Any, create_options: dict[str, Any], scheme: Any, num_nodes: int, local_device_count: int,
           profile_setup: tuple[list[str], dict[str, str]]) -> Callable[..., list[Any]]:
    """launch(scenario, timeout_s, **LaunchSpec fields / kill_node / detection_bound_s) -> NodeReports."""
    from pjrt_cts.multiprocess import LaunchSpec, run_nodes

    if scheme.devices_per_node(num_nodes, local_device_count) * num_nodes > local_device_count and scheme.documented:
        support.skip_not_supported(f"{num_nodes} nodes need {num_nodes} devices, this host has {local_device_count}")
    node_options = [{**create_options, **scheme.node_options(i, num_nodes, local_device_count)} for i in range(num_nodes)]
    preload, environment = profile_setup

    def run(scenario: str, timeout_s: float, *, kill_node: int | None = None, detection_bound_s: float | None = None,
            **fields: Any) -> list[Any]:
        spec = LaunchSpec(str(plugin_path), num_nodes, node_options, scenario=scenario, preload=preload,
                          environment=environment, **fields)
        return run_nodes(spec, timeout_s=timeout_s, kill_node=kill_node, detection_bound_s=detection_bound_s)

    return run


@pytest.fixture(scope="session")
def topology_reports(launch: Callable[..., list[Any]]) -> list[Any]:
    """One N-node run that only creates clients (shared by the topology and callback tests)."""
    return launch("topology", TOPOLOGY_BOUND_S)


@pytest.fixture(scope="session")
def require_global_topology(scheme: Any, topology_reports: list[Any]) -> Callable[[], None]:
    """Call in a test that needs one global topology: FAIL where the plugin documents multi-node
    clients, NOT_SUPPORTED with what each node saw where it does not."""
    from pjrt_cts.multiprocess.checks import global_topology_problem, kv_call_count

    def require() -> None:
        problem = global_topology_problem(topology_reports)
        if problem is None:
            return
        if scheme.documented:
            pytest.fail(f"no global topology across {len(topology_reports)} nodes ({scheme.description}): {problem}")
        support.not_supported(
            f"{scheme.description}: the plugin builds no multi-process topology; {problem}; "
            f"KV callback calls made: {kv_call_count(topology_reports)}")

    return require


@pytest.fixture(scope="session")
def require_kv_usage(scheme: Any, topology_reports: list[Any]) -> Callable[[], None]:
    """NOT_SUPPORTED where the plugin never called the KV callbacks in an N-node run (FAIL if documented)."""
    from pjrt_cts.multiprocess.checks import kv_call_count, topology_observation

    def require() -> None:
        if kv_call_count(topology_reports) > 0:
            return
        reason = (f"{scheme.description}: the plugin never called the KV callbacks in a {len(topology_reports)}-node "
                  f"run ({topology_observation(topology_reports) or 'no client'})")
        if scheme.documented:
            pytest.fail(reason)
        support.not_supported(reason)

    return require


def pytest_configure(config: pytest.Config) -> None:
    # The runner gives `timeout(S)` its meaning; registered so plain pytest runs do not warn.
    config.addinivalue_line("markers", "timeout(seconds): per-test timeout used by the pjrt-cts runner")
