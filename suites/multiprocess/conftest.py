"""Multi-process layer fixtures: the plugin's multi-node scheme, a node launcher, one topology run per worker,
and the layer's feature probes (`requires(feature=...)`, pjrt_cts.testing.requirements).

Nodes are `python -m pjrt_cts.multiprocess.node` children sharing one key-value store; each creates a client
with the scheme's options (pjrt_cts.multiprocess.schemes) plus the KV callbacks. The store is jaxlib's
distributed runtime service when jaxlib is importable, else the suite's loopback server
(`PJRT_CTS_KV_BACKEND` = auto | jaxlib | loopback); every test that ran nodes records which one in its
results.json `details.kv_backend` (and `details.kv_backend_reason`). `PJRT_CTS_NUM_NODES` sets N (default 2).

Probes decide from a real N-node run: `nodes` (the host has a device per node where the scheme splits devices),
`node_ids` (distinct process indices), `multi_node_topology` (one global device list), `kv_callbacks` (the plugin
calls them). Where the scheme documents multi-node clients, a failed probe is a FAIL (BlockedByFailure), else
the dependent tests are NOT_SUPPORTED naming what each node saw.
"""
from __future__ import annotations

from typing import Any, Callable

import pytest

from pjrt_cts.testing import BlockedByFailure, FeatureProbe, not_applicable, profile_name
from pjrt_cts.testing.plugin_under_test import expected_platform, user_settings
from pjrt_cts.testing.requirements import unsupported_by_report
from pjrt_cts.testing.requirements import requirements_of

TOPOLOGY_BOUND_S = 90.0  # client creation on every node; CPU takes ~2 s, GPUs with NCCL more
# For details.kv_backend: every node run of this worker (lists of NodeReports), the shared topology run once it
# happened, and how many runs there were when a test started.
_NODE_RUNS = pytest.StashKey[list]()
_TOPOLOGY_RUN = pytest.StashKey[list]()
_RUNS_BEFORE = pytest.StashKey[int]()


@pytest.fixture(scope="session")
def num_nodes() -> int:
    return max(2, user_settings().num_nodes)


@pytest.fixture(scope="session")
def scheme(client: Any) -> Any:
    """The multi-node scheme of the profile's platform (what the plugin must report: client.platform checks it);
    without a profile that names it, of the reported platform name, and a name the suite knows no scheme for is
    NOT_SUPPORTED naming that answer (counted by the verdict), never a SKIP."""
    from pjrt_cts.multiprocess import SCHEMES, scheme_for_platform

    profile_platform = expected_platform()
    found = scheme_for_platform(profile_platform or client.platform_name)
    if found is not None:
        return found
    known = ", ".join(sorted(SCHEMES))
    if profile_platform is not None:
        not_applicable(f"the suite knows multi-node client options for {known} only (pjrt_cts/multiprocess/schemes.py); "
                       f"the profile says the plugin is {profile_platform!r}")
    unsupported_by_report("PJRT_Client_PlatformName", client.platform_name,
                          f"the suite knows multi-node client options for {known} only "
                          "(pjrt_cts/multiprocess/schemes.py), and no profile names the plugin's platform")


@pytest.fixture(scope="session")
def local_device_count(client: Any) -> int:
    return len(client.addressable_devices)


@pytest.fixture(scope="session")
def profile_setup() -> tuple[list[str], dict[str, str]]:
    """(libraries to preload, environment) for node processes, from the profile under test."""
    name = profile_name()
    if not name:
        return [], {}
    from pjrt_cts.profiles import get_profile

    profile = get_profile(name)
    return [str(p) for p in profile.preload_libraries()], dict(profile.worker_environment())


@pytest.fixture(scope="session")
def launch(request: pytest.FixtureRequest, plugin_path: Any, create_options: dict[str, Any], scheme: Any,
           num_nodes: int, local_device_count: int,
           profile_setup: tuple[list[str], dict[str, str]]) -> Callable[..., list[Any]]:
    """launch(scenario, timeout_s, **LaunchSpec fields / kill_node / detection_bound_s) -> NodeReports."""
    from pjrt_cts.multiprocess import LaunchSpec, run_nodes

    node_options = [{**create_options, **scheme.node_options(i, num_nodes, local_device_count)} for i in range(num_nodes)]
    preload, environment = profile_setup
    node_runs = request.config.stash.setdefault(_NODE_RUNS, [])

    def run(scenario: str, timeout_s: float, *, kill_node: int | None = None, detection_bound_s: float | None = None,
            **fields: Any) -> list[Any]:
        spec = LaunchSpec(str(plugin_path), num_nodes, node_options, scenario=scenario, preload=preload,
                          environment=environment, **fields)
        reports = run_nodes(spec, timeout_s=timeout_s, kill_node=kill_node, detection_bound_s=detection_bound_s)
        node_runs.append(reports)
        return reports

    return run


# -- details.kv_backend ----------------------------------------------------------------------------------------
# Hooks, not a fixture: a test made NOT_SUPPORTED by its probes stops in the setup hook of suites/conftest.py
# before any fixture of this layer is set up, and its record must still say which store its probes' run used.
# `user_properties` of every phase land in results.json `details` (pjrt_cts.runner.records).

def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[_RUNS_BEFORE] = len(item.config.stash.get(_NODE_RUNS, []))


def pytest_runtest_teardown(item: pytest.Item) -> None:
    """The runs this test launched itself, else (a test resting on nodes) the shared topology run."""
    runs = item.config.stash.get(_NODE_RUNS, [])[item.stash.get(_RUNS_BEFORE, 0):]
    topology = item.config.stash.get(_TOPOLOGY_RUN, None)
    if not runs and topology is not None and "nodes" in requirements_of(item).features:
        runs = [topology]
    backends = {(r.kv_backend, r.kv_backend_reason) for reports in runs for r in reports}
    if backends:
        item.user_properties.append(("kv_backend", ", ".join(sorted({name for name, _ in backends}))))
        item.user_properties.append(("kv_backend_reason", "; ".join(sorted({why for _, why in backends}))))


@pytest.fixture(scope="session")
def topology_run(request: pytest.FixtureRequest, launch: Callable[..., list[Any]]) -> list[Any]:
    """One N-node run that only creates clients (shared by the topology and callback tests and the probes)."""
    reports = launch("topology", TOPOLOGY_BOUND_S)
    request.config.stash[_TOPOLOGY_RUN] = reports
    return reports


@pytest.fixture
def topology_reports(request: pytest.FixtureRequest) -> list[Any]:
    """The topology run's reports, for a test. Function-scoped on purpose: pytest sets up session fixtures a
    test names before the autouse requirement check, so naming `topology_run` directly would launch the nodes
    (up to TOPOLOGY_BOUND_S on a host that cannot hold them) before `requires(feature="nodes")` says
    NOT_SUPPORTED; this way the launch waits for the check."""
    reports: list[Any] = request.getfixturevalue("topology_run")
    return reports


def _probe(scheme: Any, description: str, problem: str | None) -> FeatureProbe:
    if problem is None:
        return FeatureProbe(description, True, "")
    if scheme.documented:
        raise BlockedByFailure(f"blocked: {scheme.description} documents {description}, but {problem}")
    return FeatureProbe(description, False, f"{scheme.description}: {problem}")


@pytest.fixture(scope="session")
def feature_nodes(scheme: Any, num_nodes: int, local_device_count: int) -> FeatureProbe:
    """A documented scheme gives each node its own devices: the host needs enough of them."""
    needed = scheme.devices_per_node(num_nodes, local_device_count) * num_nodes
    problem = None
    if scheme.documented and needed > local_device_count:
        problem = f"{num_nodes} nodes need {needed} devices; the host has {local_device_count}"
    description = f"{num_nodes} nodes on this host"
    return FeatureProbe(description, problem is None, problem or "")


@pytest.fixture(scope="session")
def feature_node_ids(scheme: Any, topology_run: list[Any]) -> FeatureProbe:
    from pjrt_cts.multiprocess.checks import clients_by_node, topology_observation

    indices = {node: event["process_index"] for node, event in clients_by_node(topology_run).items()}
    problem = None
    if len(set(indices.values())) != len(indices):
        problem = (f"the node id is ignored: PJRT_Client_ProcessIndex per node: {indices} "
                   f"({topology_observation(topology_run)})")
    return _probe(scheme, "one process index per node", problem)


@pytest.fixture(scope="session")
def feature_multi_node_topology(scheme: Any, topology_run: list[Any]) -> FeatureProbe:
    from pjrt_cts.multiprocess.checks import global_topology_problem, kv_call_count

    problem = global_topology_problem(topology_run)
    if problem is not None:
        problem = (f"the plugin builds no multi-process topology; {problem}; "
                   f"KV callback calls made: {kv_call_count(topology_run)}")
    return _probe(scheme, f"one global topology across {len(topology_run)} nodes", problem)


@pytest.fixture(scope="session")
def feature_kv_callbacks(scheme: Any, topology_run: list[Any]) -> FeatureProbe:
    from pjrt_cts.multiprocess.checks import kv_call_count, topology_observation

    problem = None
    if kv_call_count(topology_run) == 0:
        problem = (f"the plugin never called the KV callbacks in a {len(topology_run)}-node run "
                   f"({topology_observation(topology_run) or 'no client'})")
    return _probe(scheme, "the key-value store callbacks", problem)
