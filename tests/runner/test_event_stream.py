"""A worker's thinned event stream (pjrt_cts.runner.worker.event_stream): what it leaves out, and that the controller's record
of a test is the same from either stream."""
from __future__ import annotations

import copy
import inspect
import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from _pytest.reports import TestReport

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.judgment.results import JsonlWriter, read_jsonl
from pjrt_cts.runner.controller.recorder import Controller
from pjrt_cts.runner.worker.event_stream import FOLDED_DURATION, ThinEventStream, thin_worker_events
from pjrt_cts.runner.controller.expectations import Expectations
from pjrt_cts.runner.controller.progress import Progress
from pjrt_cts.runner.records import result_of_phases

NODEID = "suites/execute/test_x.py::test_y[a]"


def _data(when: str, outcome: str = "passed", duration: float = 0.25, **extra: Any) -> dict[str, Any]:
    """A phase report as xdist's worker sends it (pytest's own serialisation of a real report)."""
    longrepr = "boom" if outcome == "failed" else None
    report = TestReport(nodeid=NODEID, location=("x.py", 1, "test_y"), keywords={}, outcome=outcome,
                        longrepr=longrepr, when=when, duration=duration, **{"user_properties": [], **extra})
    return TestReport._to_json(report)


def _stream(events: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    sent: list[tuple[str, dict[str, Any]]] = []
    stream = ThinEventStream(lambda name, **kwargs: sent.append((name, kwargs)))
    for name, kwargs in copy.deepcopy(events):  # the stream adds to the reports it sends
        stream.sendevent(name, **kwargs)
    return sent


def _test_events(setup: dict[str, Any], *later: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    location = ("x.py", 1, "test_y")
    return ([("logstart", {"nodeid": NODEID, "location": location}), ("testreport", {"data": setup})]
            + [("testreport", {"data": data}) for data in later]
            + [("logfinish", {"nodeid": NODEID, "location": location}),
               ("runtest_protocol_complete", {"item_index": 0, "duration": 1.0})])


def _record_of(sent: list[tuple[str, dict[str, Any]]]) -> Any:
    """What the controller makes of the reports it received (Controller: phases by `when`, then result_of_phases)."""
    reports = [TestReport._from_json(kwargs["data"]) for name, kwargs in sent if name == "testreport"]
    return result_of_phases({report.when: report for report in reports})


def test_a_plain_test_sends_its_teardown_report_alone_with_the_other_phases_durations() -> None:
    events = _test_events(_data("setup", duration=0.5), _data("call", duration=0.25), _data("teardown", duration=0.125))
    sent = _stream(events)
    assert [name for name, _ in sent] == ["testreport", "runtest_protocol_complete"]
    teardown = sent[0][1]["data"]
    assert teardown["when"] == "teardown" and teardown[FOLDED_DURATION] == 0.75
    whole, thin = _record_of(events), _record_of(sent)
    assert thin.outcome is whole.outcome and thin.duration == whole.duration == pytest.approx(0.875)


@pytest.mark.parametrize("call", [
    _data("call", outcome="failed"),
    _data("call", pjrt_cts={"outcome": "SHARED_DEVIATION", "message": "as XLA", "details": {"max_abs": 1.0}}),
    _data("call", user_properties=[("k", 1)]),
], ids=["failed", "shared-deviation", "user-properties"])
def test_a_call_report_that_says_more_is_sent_with_the_setups_duration(call: dict[str, Any]) -> None:
    events = _test_events(_data("setup", duration=0.5), call, _data("teardown", duration=0.125))
    sent = _stream(events)
    reports = [kwargs["data"] for name, kwargs in sent if name == "testreport"]
    assert [data["when"] for data in reports] == ["call", "teardown"] and reports[0][FOLDED_DURATION] == 0.5
    whole, thin = _record_of(events), _record_of(sent)
    assert (thin.outcome, thin.message, thin.details, thin.duration) == \
        (whole.outcome, whole.message, whole.details, whole.duration)


def test_a_failed_teardown_after_a_plain_call_is_the_same_error() -> None:
    events = _test_events(_data("setup"), _data("call"), _data("teardown", outcome="failed"))
    sent = _stream(events)
    whole, thin = _record_of(events), _record_of(sent)
    assert thin.outcome is whole.outcome and thin.message == whole.message and thin.duration == whole.duration


@pytest.mark.parametrize("setup", [
    _data("setup", pjrt_cts={"tags": ["requires"]}),  # tags ride on the setup report only
    _data("setup", pjrt_cts={"details": {"k": 1}}),
    _data("setup", sections=[("Captured log setup", "WARNING x")]),
    _data("setup", outcome="failed"),
    _data("setup", outcome="skipped"),
], ids=["tags", "details", "sections", "failed", "skipped"])
def test_a_setup_report_that_says_more_than_its_duration_is_sent_as_it_is(setup: dict[str, Any]) -> None:
    later = [_data("teardown")] if setup["outcome"] != "passed" else [_data("call"), _data("teardown")]
    events = _test_events(setup, *later)
    sent = _stream(events)
    reports = [kwargs["data"] for name, kwargs in sent if name == "testreport"]
    assert reports[0] == setup and FOLDED_DURATION not in reports[0]
    whole, thin = _record_of(events), _record_of(sent)
    assert (thin.outcome, thin.message, thin.tags, thin.details, thin.duration) == \
        (whole.outcome, whole.message, whole.tags, whole.details, whole.duration)


def test_a_test_without_a_teardown_report_keeps_its_logfinish() -> None:
    """A blocked test's reports are made up by the runner (a failed setup, no teardown), as is an isolated test's
    whose child died: the controller ends those at logfinish."""
    sent = _stream(_test_events(_data("setup", outcome="failed")))
    assert [name for name, _ in sent] == ["testreport", "logfinish", "runtest_protocol_complete"]


def test_held_reports_whose_test_sends_no_teardown_go_out_before_the_next_event() -> None:
    setup, call = _data("setup"), _data("call")
    sent = _stream([("testreport", {"data": setup}), ("testreport", {"data": call}),
                    ("logfinish", {"nodeid": NODEID, "location": None})])
    assert sent == [("testreport", {"data": setup}), ("testreport", {"data": call}),
                    ("logfinish", {"nodeid": NODEID, "location": None})]


def test_the_filter_replaces_the_sendevent_of_xdists_worker_interactor() -> None:
    """xdist's worker sends every event through `self.sendevent`, looked up at each call, so an instance attribute
    replaces it; a process without a worker interactor keeps its stream."""
    from xdist.remote import WorkerInteractor

    assert "self.sendevent(" in inspect.getsource(WorkerInteractor.pytest_runtest_logreport)
    assert "self.sendevent(" in inspect.getsource(WorkerInteractor.pytest_runtest_logfinish)

    sent: list[str] = []

    class FakeInteractor:
        def sendevent(self, name: str, **kwargs: Any) -> None:
            sent.append(name)

    FakeInteractor.__name__ = "WorkerInteractor"
    interactor = FakeInteractor()

    class Manager:
        def __init__(self, plugins: list[Any]) -> None:
            self.plugins = plugins

        def get_plugins(self) -> list[Any]:
            return self.plugins

    class Config:
        def __init__(self, plugins: list[Any]) -> None:
            self.pluginmanager = Manager(plugins)

    assert not thin_worker_events(Config([object()]))
    assert thin_worker_events(Config([interactor]))
    for when in ("setup", "call", "teardown"):
        interactor.sendevent("testreport", data=_data(when))
    assert sent == ["testreport"]


def test_the_controller_records_a_test_at_its_teardown_report_and_times_a_death_from_the_last_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without logstart or logfinish: a test is recorded at its teardown report, and a test its worker died in
    lasted from that worker's last report to the death."""
    controller = Controller(log_dir=tmp_path, writer=JsonlWriter(tmp_path / "results.jsonl"),
                            expectations=Expectations(), progress=Progress(io.StringIO(), enabled=False),
                            repro=lambda nodeid: "", timeout=60.0, workers=1, done_nodeids=set(), done_ids=[],
                            reruns_in_workers=False)
    node = SimpleNamespace(gateway=SimpleNamespace(id="gw0", _io=SimpleNamespace(popen=SimpleNamespace(
        pid=4242, returncode=-6, poll=lambda: -6))))
    now = [100.0]
    monkeypatch.setattr("pjrt_cts.runner.controller.recorder.time.monotonic", lambda: now[0])
    sent = _stream(_test_events(_data("setup"), _data("call"), _data("teardown")))
    for name, kwargs in sent:
        if name == "testreport":
            report = TestReport._from_json(kwargs["data"])
            report.node = node  # as xdist's DSession sets it
            controller.pytest_runtest_logreport(report)
    assert NODEID in controller.recorded
    now[0] = 107.5
    dying = NODEID.replace("[a]", "[b]")
    died = TestReport(nodeid=dying, location=("x.py", 1, "test_y"), keywords={}, outcome="failed", longrepr="crash",
                      when="???", duration=0)  # xdist's report for a dead worker's test
    died.node = node  # as xdist sets it
    controller.pytest_runtest_logreport(died)
    records = {record.nodeid: record for record in read_jsonl(tmp_path / "results.jsonl")}
    assert records[NODEID].outcome is Outcome.PASS
    assert records[dying].outcome is Outcome.CRASH and records[dying].duration == pytest.approx(7.5)
