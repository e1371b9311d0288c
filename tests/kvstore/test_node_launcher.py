"""The node launcher around its key-value store (jaxlib's service or the loopback server): node events come
back, every wait is bounded (hung nodes are killed at the bound; a victim is killed before the survivors are
released), and the KV backend is chosen, reported and fallen back from as documented."""
from __future__ import annotations

import time
from typing import Any

import pytest

from pjrt_cts.kvstore import JAXLIB, LOOPBACK, BackendUnavailable, jaxlib_unavailable_reason
from pjrt_cts.multiprocess import LaunchSpec, launcher, run_nodes
from pjrt_cts.runtime import default_plugin_path
from pjrt_cts.schema import CONTEXT_ENV, KV_BACKEND_ENV

NODE_OPTIONS = [{"cpu_device_count": 1, "process_id": i} for i in range(2)]
BACKENDS = [pytest.param("jaxlib", marks=pytest.mark.skipif(jaxlib_unavailable_reason() is not None,
                                                            reason=str(jaxlib_unavailable_reason()))),
            "loopback"]


@pytest.fixture(autouse=True)
def _no_backend_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CONTEXT_ENV, raising=False)  # a bare run: the user setting comes from the environment
    monkeypatch.delenv(KV_BACKEND_ENV, raising=False)  # each test says what it runs on


def spec(scenario: str, **fields: Any) -> LaunchSpec:
    return LaunchSpec(str(default_plugin_path()), 2, NODE_OPTIONS, scenario=scenario, **fields)


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_node_reports_its_client(backend: str) -> None:
    reports = run_nodes(spec("topology", kv_backend=backend), timeout_s=60)
    assert [r.node_id for r in reports] == [0, 1]
    for report in reports:
        client = report.event("client")
        assert client is not None, report.summary()
        assert client["process_index"] == report.node_id  # the 0.115 CPU plugin honours process_id
        assert report.returncode == 0 and report.event("done") is not None
        assert report.kv_backend == {"jaxlib": JAXLIB, "loopback": LOOPBACK}[backend]
        assert report.event("kv_backend")["backend"] == report.kv_backend  # what the node itself opened


def test_auto_uses_jaxlib_when_importable() -> None:
    if jaxlib_unavailable_reason() is not None:
        pytest.skip(str(jaxlib_unavailable_reason()))
    reports = run_nodes(spec("topology"), timeout_s=60)
    assert {(r.kv_backend, r.kv_backend_reason) for r in reports} == {(JAXLIB, "auto: jaxlib is importable")}
    assert sorted(r.event("kv_backend")["task_id"] for r in reports) == [0, 1]


def test_auto_falls_back_to_loopback_without_jaxlib(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launcher, "jaxlib_unavailable_reason", lambda: "jaxlib hidden by the test")
    reports = run_nodes(spec("topology"), timeout_s=60)
    assert {(r.kv_backend, r.kv_backend_reason) for r in reports} == {
        (LOOPBACK, "auto fallback: jaxlib hidden by the test")}
    assert all(r.event("client") is not None for r in reports)


def test_explicit_jaxlib_without_jaxlib_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launcher, "jaxlib_unavailable_reason", lambda: "jaxlib hidden by the test")
    monkeypatch.setenv(KV_BACKEND_ENV, "jaxlib")
    with pytest.raises(BackendUnavailable, match="jaxlib hidden by the test"):
        run_nodes(spec("topology"), timeout_s=60)


def test_unknown_backend_is_refused() -> None:
    with pytest.raises(ValueError, match="auto, jaxlib, loopback"):
        run_nodes(spec("topology", kv_backend="etcd"), timeout_s=60)


def test_a_service_that_does_not_start_falls_back_saying_why(monkeypatch: pytest.MonkeyPatch) -> None:
    class BrokenService:
        def __init__(self, *args: Any) -> None:
            pass

        def __enter__(self) -> None:
            raise BackendUnavailable("jaxlib distributed runtime service: port trouble (test)")

        def __exit__(self, *exc: object) -> None:
            pass

    monkeypatch.setattr(launcher, "jaxlib_unavailable_reason", lambda: None)
    monkeypatch.setattr(launcher, "DistributedRuntimeService", BrokenService)
    reports = run_nodes(spec("topology"), timeout_s=60)
    assert {r.kv_backend for r in reports} == {LOOPBACK}
    assert reports[0].kv_backend_reason == "auto fallback: jaxlib distributed runtime service: port trouble (test)"


@pytest.mark.slow
def test_nodes_that_cannot_connect_are_rerun_on_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """jaxlib aborts a node whose connect fails (nothing listens at the address here): the run is repeated on
    the loopback store, within the register timeout plus one run."""
    if jaxlib_unavailable_reason() is not None:
        pytest.skip(str(jaxlib_unavailable_reason()))
    real = launcher._jaxlib_kv
    monkeypatch.setattr(launcher, "_jaxlib_kv", lambda _address, settings: real("127.0.0.1:1", settings))
    start = time.monotonic()
    reports = run_nodes(spec("topology"), timeout_s=15)
    assert time.monotonic() - start < 60
    assert {r.kv_backend for r in reports} == {LOOPBACK}
    assert "nodes did not connect to the jaxlib service" in reports[0].kv_backend_reason
    assert all(r.event("client") is not None for r in reports)


def test_the_service_never_declares_a_node_dead_within_a_run() -> None:
    """A dead task makes jaxlib's service abort every other task: the heartbeat timeout must outlast the run
    (the launcher's bound and the nodes' own watchdog at timeout + 30 s), so only the plugin reports a loss."""
    for timeout_s in (5.0, 90.0, 150.0):
        settings = launcher._service_settings(2, timeout_s)
        assert settings.heartbeat_timeout_s > timeout_s + 30
        assert settings.register_timeout_s <= timeout_s and settings.lifetime_s > timeout_s + 30


def test_client_create_error_is_reported_not_raised() -> None:
    bad = LaunchSpec(str(default_plugin_path()), 2, [{"no_such_option": 1}] * 2, started_nodes=[0])
    [report] = run_nodes(bad, timeout_s=60)
    error = report.event("error")
    assert error is not None and error["code"] == "INVALID_ARGUMENT", report.summary()
    assert "no_such_option" in error["message"]


@pytest.mark.slow
def test_a_node_past_the_bound_is_killed() -> None:
    start = time.monotonic()
    reports = run_nodes(spec("hang", started_nodes=[0]), timeout_s=5)
    assert time.monotonic() - start < 30
    assert "bound" in reports[0].killed_by_launcher and reports[0].event("client") is not None


@pytest.mark.parametrize("backend", BACKENDS)
def test_victim_is_killed_before_survivors_are_released(backend: str) -> None:
    reports = run_nodes(spec("after_peer_loss", kv_backend=backend), timeout_s=60, kill_node=1, detection_bound_s=20)
    victim, survivor = reports[1], reports[0]
    assert victim.killed_by_launcher == "victim" and victim.event("collective") is None
    # CPU nodes share no topology: the survivor's all_reduce is local and completes.
    assert not survivor.killed_by_launcher and survivor.event("collective") is not None, survivor.summary()


@pytest.mark.parametrize("scenario", ["all_reduce", "all_reduce_partitions", "spmd_sum"])
def test_node_collectives_compute_the_reference_on_one_node(scenario: str) -> None:
    """The node's programs, checked where they can be here: one node whose 2 local devices are the topology."""
    import numpy as np

    from pjrt_cts.multiprocess.collective_programs import collective_expected

    one_node = LaunchSpec(str(default_plugin_path()), 1, [{"cpu_device_count": 2}], scenario=scenario)
    [report] = run_nodes(one_node, timeout_s=60)
    result = report.event("collective")
    assert result is not None, report.summary()
    assert sorted(result["results"]) == ["0", "1"]
    for values in result["results"].values():
        np.testing.assert_array_equal(np.asarray(values, dtype=np.float32), collective_expected(scenario, 2))
