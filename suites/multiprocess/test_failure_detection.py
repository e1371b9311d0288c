"""Failures between nodes surface as errors within a bound, never as hangs: a KV get that times out
(a peer that never starts), a put that fails, and a peer that dies before a collective."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from pjrt_cts.judgment.outcomes import HardeningFinding
from pjrt_cts.testing import requires

# Detection bounds are timings under the machine's load: a miss is not rerun by the confirmation pass.
pytestmark = [requires(feature="nodes"), pytest.mark.nondeterministic("detection within a time bound under load")]
# These tests measure how the *plugin* reports a failure through its KV callbacks (a get that times out, a put that
# fails, a peer that dies), so they run on the suite's own store. jaxlib's coordination service answers a dead node
# by aborting the survivors itself (its heartbeat), which would measure jaxlib instead, and with its heartbeat held
# off (pjrt_cts.kvstore.jaxlib_store) a survivor waiting in its collective is told nothing: on two H200s with
# jax-cuda13-pjrt 0.11.2 node 0 never learned of node 1's death there (issue 28). Recorded as details.kv_backend.
FAILURE_STORE = "loopback"

MISSING_PEER_BOUND_S = 90.0
# Runner timeouts leave room for the shared topology run (up to 90 s) that may happen in the same test.
SHARED_RUN_ALLOWANCE_S = 150.0
KV_GET_CAP_S = 5.0  # the callbacks cap the plugin's get timeouts to this
PEER_LOSS_BOUND_S = 60.0


def _kv_calls(report: Any) -> list[list[Any]]:
    events = [e for e in report.events if "kv" in e]
    return events[-1]["kv"]["calls"] if events else []


def _assert_reported_error(report: Any, bound_s: float, what: str) -> dict[str, Any]:
    assert not report.killed_by_launcher, f"{what}: node {report.node_id} hung past {bound_s:g} s: {report.summary()}"
    error = report.event("error") or report.event("collective_error")
    assert error is not None, f"{what}: node {report.node_id} reported no error: {report.summary()}"
    return error


@pytest.mark.timeout(MISSING_PEER_BOUND_S + SHARED_RUN_ALLOWANCE_S)
@requires(feature="kv_callbacks")
def test_kv_get_timeout_fails_client_create(launch: Callable[..., list[Any]],
                                            num_nodes: int) -> None:
    """Only node 0 of N starts: its KV gets for the others time out (DEADLINE_EXCEEDED from the callback),
    and PJRT_Client_Create must return an error, not a client and not a hang."""
    [report] = launch("topology", MISSING_PEER_BOUND_S, started_nodes=[0], max_get_timeout_s=KV_GET_CAP_S,
                       kv_backend=FAILURE_STORE)
    assert report.event("client") is None, (
        f"PJRT_Client_Create succeeded on node 0 with num_nodes={num_nodes} while no other node ever started")
    error = _assert_reported_error(report, MISSING_PEER_BOUND_S, "missing peer")
    timed_out = [c for c in _kv_calls(report) if c[3] == "DEADLINE_EXCEEDED"]
    assert timed_out, f"node 0 failed with {error.get('code')}: {error.get('message')} but no KV get timed out first"


@pytest.mark.timeout(MISSING_PEER_BOUND_S + SHARED_RUN_ALLOWANCE_S)
@requires(feature="kv_callbacks")
def test_failed_kv_put_fails_client_create(launch: Callable[..., list[Any]]) -> None:
    """Every put answers UNAVAILABLE: each node's PJRT_Client_Create must fail (within the bound)."""
    reports = launch("topology", MISSING_PEER_BOUND_S, fail_puts=True, max_get_timeout_s=KV_GET_CAP_S,
                     kv_backend=FAILURE_STORE)
    for report in reports:
        assert report.event("client") is None or not any(c[0] == "put" for c in _kv_calls(report)), (
            f"node {report.node_id}: PJRT_Client_Create succeeded although its KV put failed with UNAVAILABLE")
    errors = [r for r in reports if r.event("client") is None]
    assert errors, "every node created a client although every KV put failed"
    for report in errors:
        _assert_reported_error(report, MISSING_PEER_BOUND_S, "failed put")


@pytest.mark.timeout(MISSING_PEER_BOUND_S + PEER_LOSS_BOUND_S + SHARED_RUN_ALLOWANCE_S)
@pytest.mark.parametrize("victim", ["first", "last"])
@requires(feature="multi_node_topology")
def test_peer_death_is_reported_within_bound(launch: Callable[..., list[Any]], num_nodes: int,
                                             victim: str) -> None:
    """All nodes create clients; one is SIGKILLed; the others then run an all_reduce that needs it and
    must report an error within PEER_LOSS_BOUND_S (killed and FAIL past it). A survivor that reports in
    time but then hangs destroying its client is a WARNING."""
    victim_id = 0 if victim == "first" else num_nodes - 1
    reports = launch("after_peer_loss", MISSING_PEER_BOUND_S + PEER_LOSS_BOUND_S, kill_node=victim_id,
                     detection_bound_s=PEER_LOSS_BOUND_S, max_get_timeout_s=KV_GET_CAP_S * 4, kv_backend=FAILURE_STORE)
    not_ready = [r for r in reports if r.event("client") is None]
    assert not not_ready, "nodes failed before the victim was killed:\n" + "\n".join(r.summary() for r in not_ready)
    hung_after_reporting = []
    for report in (r for r in reports if r.node_id != victim_id):
        result = report.event("collective")
        assert result is None, (f"node {report.node_id}: the all_reduce over every node succeeded although node "
                                f"{victim_id} was dead: {result}")
        error = report.event("collective_error")
        assert error is not None, (f"death of node {victim_id}: node {report.node_id} reported no error within "
                                   f"{PEER_LOSS_BOUND_S:g} s: {report.summary()}")
        latency = report.seconds_after_release(error)
        assert latency is not None and latency <= PEER_LOSS_BOUND_S + 1, (
            f"node {report.node_id} reported the death of node {victim_id} only after {latency} s")
        if report.killed_by_launcher:
            hung_after_reporting.append(f"node {report.node_id} reported {error.get('code')}: "
                                        f"{error.get('message')} after {latency:.1f} s, then had to be killed "
                                        f"({report.killed_by_launcher}; last event {report.events[-1]['event']})")
    if hung_after_reporting:
        raise HardeningFinding("; ".join(hung_after_reporting))
