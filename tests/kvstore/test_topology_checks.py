"""pjrt_cts.multiprocess.checks on synthetic node reports: what counts as one global topology."""
from __future__ import annotations

from typing import Any

from pjrt_cts.multiprocess.checks import client_failures, global_topology_problem, kv_call_count
from pjrt_cts.multiprocess.launcher import NodeReport


def device(device_id: int, process_index: int, addressable: bool = True) -> dict[str, Any]:
    return {"id": device_id, "process_index": process_index, "kind": "gpu", "local_hardware_id": 0,
            "is_addressable": addressable}


def node(node_id: int, devices: list[dict[str, Any]], addressable: list[dict[str, Any]], calls: int = 0) -> NodeReport:
    kv = {"calls": [["get", "k", 1000, None]] * calls, "allocations": calls, "frees": calls, "outstanding": 0,
          "problems": []}
    return NodeReport(node_id, events=[{"event": "client", "process_index": node_id, "devices": devices,
                                        "addressable": addressable, "kv": kv}], returncode=0)


def test_two_nodes_sharing_one_device_list_are_a_global_topology() -> None:
    everything = [device(0, 0), device(1, 1)]
    reports = [node(0, everything, [device(0, 0)], calls=3), node(1, everything, [device(1, 1)], calls=2)]
    assert global_topology_problem(reports) is None
    assert kv_call_count(reports) == 5


def test_nodes_seeing_only_their_own_devices_are_not() -> None:
    reports = [node(0, [device(0, 0)], [device(0, 0)]), node(1, [device(2048, 1)], [device(2048, 1)])]
    problem = global_topology_problem(reports)
    assert problem is not None and "node 0 sees devices [0]" in problem and "[0, 2048]" in problem


def test_overlapping_addressable_ids_are_not() -> None:
    reports = [node(0, [device(0, 0)], [device(0, 0)]), node(1, [device(0, 0)], [device(0, 0)])]
    assert "overlap" in (global_topology_problem(reports) or "")


def test_a_node_without_client_is_reported_with_its_error() -> None:
    failed = NodeReport(1, events=[{"event": "error", "stage": "client_create", "function": "PJRT_Client_Create",
                                    "code": "DEADLINE_EXCEEDED", "message": "key-value get timed out"}], returncode=0)
    reports = [node(0, [device(0, 0)], [device(0, 0)]), failed]
    assert client_failures(reports) == [
        "node 1: PJRT_Client_Create failed with DEADLINE_EXCEEDED: key-value get timed out"]
    assert "not every node created a client" in (global_topology_problem(reports) or "")
