"""PJRT_Client_UpdateGlobalProcessInfo (0.73+): a job's coordination service telling each process's client the state
of every process (IFRT's job-state updates).

In an N-node run each node tells its client that every process is connected, then that a peer disconnected, then
that a peer is in error (scenario `process_info`, pjrt_cts.multiprocess.node): each update is accepted (or every
node answers UNIMPLEMENTED: NOT_SUPPORTED), and the client stays what it was -- its process index and devices
unchanged, a program still runs on its own device. A process state outside the enum is rejected, not fatal.
"""
from __future__ import annotations

from typing import Any, Callable

import pytest

from pjrt_cts.multiprocess.checks import client_failures, clients_by_node
from pjrt_cts.runtime import PjrtError, ProcessInfo, ProcessState
from pjrt_cts.testing import expect_rejection, first_line, requires, unsupported_if_unimplemented

pytestmark = requires("Client_UpdateGlobalProcessInfo")
PROCESS_INFO_BOUND_S = 90.0
STEPS = ("all_connected", "peer_disconnected", "peer_error")


@pytest.fixture(scope="module")
def process_info_reports(launch: Callable[..., list[Any]]) -> list[Any]:
    return launch("process_info", PROCESS_INFO_BOUND_S)


def _answers(reports: list[Any]) -> dict[int, dict[str, Any]]:
    """Per node: its process_info event (FAILs naming what went wrong when a node has none)."""
    __tracebackhide__ = True
    failures = client_failures(reports)
    assert not failures, "PJRT_Client_Create with multi-node options failed on some nodes:\n" + "\n".join(failures)
    events = {r.node_id: r.event("process_info") for r in reports}
    missing = [r.summary() for r in reports if events[r.node_id] is None]
    assert not missing, "nodes ended without reporting their process-info updates:\n" + "\n".join(missing)
    return {node: event for node, event in events.items() if event is not None}


@requires(feature="nodes")
@pytest.mark.parametrize("step", STEPS)
def test_every_node_accepts_the_update(process_info_reports: list[Any], step: str) -> None:
    answers = {node: event["answers"][step] for node, event in _answers(process_info_reports).items()}
    codes = {node: answer["code"] for node, answer in answers.items()}
    if set(codes.values()) == {"UNIMPLEMENTED"}:
        with unsupported_if_unimplemented("PJRT_Client_UpdateGlobalProcessInfo"):
            answer = next(iter(answers.values()))
            raise PjrtError(answer["function"], answer["code"], answer["message"])
    failed = {node: f"{a['code']}: {first_line(a.get('message', ''))}" for node, a in answers.items() if a["code"] != "OK"}
    assert not failed, (f"PJRT_Client_UpdateGlobalProcessInfo ({step.replace('_', ' ')}) should be accepted on every "
                        f"node, but failed on {failed}")


@requires(feature="nodes")
def test_client_is_unchanged_by_the_updates(process_info_reports: list[Any]) -> None:
    before = clients_by_node(process_info_reports)
    for node, event in _answers(process_info_reports).items():
        after = event["after"]
        seen = (after["process_index"], after["devices"], after["addressable"])
        expected = (before[node]["process_index"], before[node]["devices"], before[node]["addressable"])
        assert seen == expected, (f"node {node}: after PJRT_Client_UpdateGlobalProcessInfo the client reports "
                                  f"(process index, devices, addressable devices) {seen}, before it {expected}")
        assert after.get("program_ok"), (
            f"node {node}: after PJRT_Client_UpdateGlobalProcessInfo a program on its own device "
            f"{'computed a wrong result' if 'program_ok' in after else 'failed: ' + str(after.get('program_error'))}")


@pytest.mark.isolated  # the XLA plugins abort (CHECK) on a state outside the enum
def test_out_of_range_process_state_is_rejected(client: Any) -> None:
    expect_rejection(lambda: client.update_global_process_info([ProcessInfo(0, 1, 99)]),
                     control=lambda: client.update_global_process_info([ProcessInfo(0, 1, ProcessState.CONNECTED)]),
                     function="PJRT_Client_UpdateGlobalProcessInfo", what="a PJRT_ProcessState of 99")
