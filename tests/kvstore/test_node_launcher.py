"""The node launcher around the loopback KV server: node events come back, and every wait is bounded
(hung nodes are killed at the bound; a victim is killed before the survivors are released)."""
from __future__ import annotations

import time

import pytest

from pjrt_cts.multiprocess import LaunchSpec, run_nodes
from pjrt_cts.runtime import default_plugin_path

NODE_OPTIONS = [{"cpu_device_count": 1, "process_id": i} for i in range(2)]


def spec(scenario: str, **fields: object) -> LaunchSpec:
    return LaunchSpec(str(default_plugin_path()), 2, NODE_OPTIONS, scenario=scenario, **fields)


def test_each_node_reports_its_client() -> None:
    reports = run_nodes(spec("topology"), timeout_s=60)
    assert [r.node_id for r in reports] == [0, 1]
    for report in reports:
        client = report.event("client")
        assert client is not None, report.summary()
        assert client["process_index"] == report.node_id  # the 0.115 CPU plugin honours process_id
        assert report.returncode == 0 and report.event("done") is not None


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


def test_victim_is_killed_before_survivors_are_released() -> None:
    reports = run_nodes(spec("after_peer_loss"), timeout_s=60, kill_node=1, detection_bound_s=20)
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
