"""Failures between nodes surface as errors within a bound, never as hangs: a KV get that times out
(a peer that never starts), a put that fails, and a peer that dies before a collective."""
from __future__ import annotations

from typing import Any, Callable

import pytest

MISSING_PEER_BOUND_S = 90.0
KV_GET_CAP_S = 5.0  # the callbacks cap the plugin's get timeouts to this
PEER_LOSS_BOUND_S = 60.0


def _kv_calls(report: Any) -> list[list[Any]]:
    events = [e for e in report.events if "kv" in e]
    return events[-1]["kv"]["calls"] if events else []


def _assert_reported_error(report: Any, bound_s: float, what: str) -> dict[str, Any]:
    assert not report.killed_by_launcher, f"{what}: node {report.node_id} hung past {bound_s:g} s: {report.summary()}"
    error = report.event("error") or report.event("all_reduce_error")
    assert error is not None, f"{what}: node {report.node_id} reported no error: {report.summary()}"
    return error


@pytest.mark.timeout(MISSING_PEER_BOUND_S + 60)
def test_kv_get_timeout_fails_client_create(launch: Callable[..., list[Any]], require_kv_usage: Callable[[], None],
                                            num_nodes: int) -> None:
    """Only node 0 of N starts: its KV gets for the others time out (DEADLINE_EXCEEDED from the callback),
    and PJRT_Client_Create must return an error, not a client and not a hang."""
    require_kv_usage()
    [report] = launch("topology", MISSING_PEER_BOUND_S, started_nodes=[0], max_get_timeout_s=KV_GET_CAP_S)
    assert report.event("client") is None, (
        f"PJRT_Client_Create succeeded on node 0 with num_nodes={num_nodes} while no other node ever started")
    error = _assert_reported_error(report, MISSING_PEER_BOUND_S, "missing peer")
    timed_out = [c for c in _kv_calls(report) if c[3] == "DEADLINE_EXCEEDED"]
    assert timed_out, f"node 0 failed with {error.get('code')}: {error.get('message')} but no KV get timed out first"


@pytest.mark.timeout(MISSING_PEER_BOUND_S + 60)
def test_failed_kv_put_fails_client_create(launch: Callable[..., list[Any]], require_kv_usage: Callable[[], None]) -> None:
    """Every put answers UNAVAILABLE: each node's PJRT_Client_Create must fail (within the bound)."""
    require_kv_usage()
    reports = launch("topology", MISSING_PEER_BOUND_S, fail_puts=True, max_get_timeout_s=KV_GET_CAP_S)
    for report in reports:
        assert report.event("client") is None or not any(c[0] == "put" for c in _kv_calls(report)), (
            f"node {report.node_id}: PJRT_Client_Create succeeded although its KV put failed with UNAVAILABLE")
    errors = [r for r in reports if r.event("client") is None]
    assert errors, "every node created a client although every KV put failed"
    for report in errors:
        _assert_reported_error(report, MISSING_PEER_BOUND_S, "failed put")


@pytest.mark.timeout(MISSING_PEER_BOUND_S + PEER_LOSS_BOUND_S + 60)
@pytest.mark.parametrize("victim", ["first", "last"])
def test_peer_death_is_reported_within_bound(launch: Callable[..., list[Any]],
                                             require_global_topology: Callable[[], None], num_nodes: int,
                                             victim: str) -> None:
    """All nodes create clients; one is SIGKILLed; the others then run an all_reduce that needs it and
    must report an error within PEER_LOSS_BOUND_S (killed and FAIL past it)."""
    require_global_topology()
    victim_id = 0 if victim == "first" else num_nodes - 1
    reports = launch("after_peer_loss", MISSING_PEER_BOUND_S + PEER_LOSS_BOUND_S, kill_node=victim_id,
                     detection_bound_s=PEER_LOSS_BOUND_S, max_get_timeout_s=KV_GET_CAP_S * 4)
    survivors = [r for r in reports if r.node_id != victim_id]
    not_ready = [r for r in reports if r.event("client") is None]
    assert not not_ready, "nodes failed before the victim was killed:\n" + "\n".join(r.summary() for r in not_ready)
    for report in survivors:
        result = report.event("all_reduce")
        assert result is None, (f"node {report.node_id}: the all_reduce over every node succeeded although node "
                                f"{victim_id} was dead: {result}")
        _assert_reported_error(report, PEER_LOSS_BOUND_S, f"death of node {victim_id}")
