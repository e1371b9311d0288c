"""Units of the runner: folding phase reports, crash logs, results files, junit, progress."""
from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pjrt_cts.judgment.outcomes import HardeningFinding, FeatureNotSupported, Outcome
from pjrt_cts.runner import crashlog
from pjrt_cts.runner.files.junit import write_junit
from pjrt_cts.runner.controller.progress import Progress
from pjrt_cts.runner.records import layer_of_nodeid, result_of_phases
from pjrt_cts.judgment.results import JsonlWriter, load_results, read_jsonl, summarize
from pjrt_cts.runtime import MissingFunction
from pjrt_cts.schema import Expected, TestRecord
from pjrt_cts.runner.worker.outcomes import classify_exception
from pjrt_cts.runtime import NullExtensionFunction


def _report(when: str, outcome: str, longrepr: Any = None, info: dict | None = None, duration: float = 0.1) -> Any:
    report = SimpleNamespace(when=when, outcome=outcome, longrepr=longrepr, duration=duration,
                             passed=outcome == "passed", skipped=outcome == "skipped", failed=outcome == "failed",
                             longreprtext=str(longrepr or ""))
    if info is not None:
        report.pjrt_cts = info
    return report


def _phases(*reports: Any) -> dict[str, Any]:
    return {r.when: r for r in reports}


def test_passing_phases_make_pass_with_summed_duration() -> None:
    verdict = result_of_phases(_phases(_report("setup", "passed"), _report("call", "passed"),
                                           _report("teardown", "passed")))
    assert verdict.outcome is Outcome.PASS and verdict.duration == pytest.approx(0.3)


def test_setup_failure_is_error_call_failure_is_fail() -> None:
    assert result_of_phases(_phases(_report("setup", "failed", "boom"))).outcome is Outcome.ERROR
    verdict = result_of_phases(_phases(_report("setup", "passed"), _report("call", "failed", "AssertionError: x"),
                                           _report("teardown", "failed", "later")))
    assert verdict.outcome is Outcome.FAIL and verdict.message == "AssertionError: x"


def test_teardown_failure_after_pass_is_error() -> None:
    verdict = result_of_phases(_phases(_report("setup", "passed"), _report("call", "passed"),
                                           _report("teardown", "failed", "leaked buffer")))
    assert verdict.outcome is Outcome.ERROR and verdict.message.startswith("teardown failed")


def test_skip_reasons_split_not_supported_from_skip() -> None:
    not_supported = _report("setup", "skipped", ("f.py", 3, "Skipped: NOT_SUPPORTED: needs 8 devices"))
    assert result_of_phases(_phases(not_supported)).outcome is Outcome.NOT_SUPPORTED
    assert result_of_phases(_phases(not_supported)).message == "needs 8 devices"
    skipped = _report("setup", "skipped", ("f.py", 3, "Skipped: user asked"))
    assert result_of_phases(_phases(skipped)).outcome is Outcome.SKIP


def test_explicit_outcomes_and_details_from_workers_win() -> None:
    call = _report("call", "passed", info={"outcome": "WARNING", "message": "hardening", "details": {"a": 1}})
    setup = _report("setup", "passed", info={"tags": ["donation"]})
    verdict = result_of_phases(_phases(setup, call, _report("teardown", "passed")))
    assert (verdict.outcome, verdict.message, verdict.details, verdict.tags) == (
        Outcome.WARNING, "hardening", {"a": 1}, ["donation"])


@pytest.mark.parametrize(("error", "when", "hidden", "outcome"), [
    (HardeningFinding("meh"), "call", True, "passed"),
    (FeatureNotSupported("no frobnicate"), "setup", True, "skipped"),
    (HardeningFinding("meh"), "setup", False, "failed"),  # a failed setup stays failed: pytest's traceback is kept
    (AssertionError("lists differ"), "call", False, "failed"),
], ids=["warning", "not_supported", "warning_in_setup", "fail"])
def test_pytest_formats_no_traceback_the_report_replaces(error: BaseException, when: str, hidden: bool,
                                                        outcome: str) -> None:
    from pjrt_cts.runner.worker.outcomes import OutcomeMapping

    plugin = OutcomeMapping()
    item: Any = SimpleNamespace(location=("suites/x.py", 3, "test_x"), path="suites/x.py", stash={},
                                iter_markers=lambda *args, **kwargs: iter(()))
    try:
        raise error
    except BaseException as raised:  # noqa: BLE001 - an ExceptionInfo needs a raised exception's traceback
        excinfo = pytest.ExceptionInfo.from_exception(raised)
    call: Any = SimpleNamespace(excinfo=excinfo, when=when)
    making = plugin.pytest_runtest_makereport(item, call)
    next(making)  # pytest makes its report now: from the exception only where the report keeps its traceback
    assert (call.excinfo is None) is hidden
    made = _report(when, "passed" if hidden else "failed", longrepr=None if hidden else "a formatted traceback")
    with pytest.raises(StopIteration) as done:
        making.send(made)
    assert call.excinfo is excinfo  # outer wrappers (the blocking plugin) see the exception again
    assert done.value.value.outcome == outcome


def test_classify_exception_by_class_and_code() -> None:
    assert classify_exception(FeatureNotSupported("no slot")) == ("NOT_SUPPORTED", "no slot")
    assert classify_exception(HardeningFinding("meh")) == ("WARNING", "meh")
    runtime_error = type("PjrtError", (Exception,), {"__module__": "pjrt_cts.runtime.errors"})
    unimplemented = runtime_error("PJRT_X: UNIMPLEMENTED: nope")
    unimplemented.code = "UNIMPLEMENTED"
    # UNIMPLEMENTED is NOT_SUPPORTED only inside a declared `unsupported_if_unimplemented` block; raw, it is a FAIL.
    assert classify_exception(unimplemented) == (None, "")
    invalid = runtime_error("PJRT_X: INVALID_ARGUMENT: bad")
    invalid.code = "INVALID_ARGUMENT"
    assert classify_exception(invalid) == (None, "")
    unsupported = MissingFunction("PJRT_Y", "0.81", "beyond struct_size")
    assert classify_exception(unsupported) == ("NOT_SUPPORTED",
                                               "requires PJRT_Y: missing slot (API 0.81): beyond struct_size")
    # a NULL function of an advertised extension is the plugin's defect, never a missing feature
    null = NullExtensionFunction("LAYOUTS.Client_GetDefaultLayout", "0.115", "function at offset 40 is NULL")
    assert classify_exception(null)[0] == "FAIL"
    # matched by class, not by name: a look-alike from elsewhere is no missing slot
    look_alike = type("MissingFunction", (Exception,), {"__module__": "pjrt_cts.runtime"})("PJRT_Y needs 0.90")
    assert classify_exception(look_alike) == (None, "")
    assert classify_exception(ValueError("x")) == (None, "")


def test_log_segment_of_the_running_test(tmp_path: Path) -> None:
    log = tmp_path / "gw0.log"
    log.write_bytes(crashlog.start_marker("a.py::t1") + b"noise\n" + crashlog.end_marker("a.py::t1")
                    + crashlog.start_marker("a.py::t2") + b"plugin says bye\nFatal Python error: Aborted\n"
                    + b'  File "/x/site-packages/_pytest/runner.py", line 1 in f\n')
    segment = crashlog.read_segment(log, "a.py::t2")
    assert segment.started
    assert segment.lines == ["plugin says bye", "Fatal Python error: Aborted"]  # harness frames dropped
    assert crashlog.describe_death(None, segment) == ("SIGABRT", "killed by SIGABRT (Aborted)")
    assert crashlog.describe_death(-11, segment) == ("SIGSEGV", "killed by SIGSEGV")
    assert crashlog.describe_death(3, crashlog.LogSegment(True, [])) == (None, "exited with status 3")
    assert not crashlog.read_segment(log, "a.py::t1").started


def test_log_segment_between_tests_is_not_started(tmp_path: Path) -> None:
    log = tmp_path / "gw0.log"
    log.write_bytes(crashlog.start_marker("a.py::t1") + crashlog.end_marker("a.py::t1") + b"Timeout (0:01:30)!\n")
    segment = crashlog.read_segment(log, "a.py::t2")
    assert not segment.started
    # faulthandler was armed for TIMER_SLACK x the test's timeout: 90 s armed is a 72 s test timeout
    assert segment.timed_out and segment.timeout_seconds == 72


def test_a_death_names_the_pjrt_function_it_happened_in(tmp_path: Path) -> None:
    """faulthandler's dump names the slot call (pjrt_cts.runtime.named_calls): the crashing thread's, else the first."""
    log = tmp_path / "gw0.log"
    frames = (b"Fatal Python error: Aborted\n\nThread 0x00007f01 (most recent call first):\n"
              b'  File "/x/pjrt_cts/runtime/named_calls.py", line 17 in PJRT_Event_Await\n'
              b"\nCurrent thread 0x00007f00 (most recent call first):\n"
              b'  File "/x/pjrt_cts/runtime/named_calls.py", line 17 in PJRT_Client_Compile\n'
              b'  File "/x/pjrt_cts/runtime/client.py", line 80 in compile\n')
    log.write_bytes(crashlog.start_marker("t") + frames)
    segment = crashlog.read_segment(log, "t")
    assert segment.pjrt_function == "PJRT_Client_Compile" and crashlog.where(segment) == " in PJRT_Client_Compile"
    log.write_bytes(crashlog.start_marker("t") + b"Timeout (0:02:30)!\nThread 0x00007f00 (most recent call first):\n"
                    b'  File "/x/pjrt_cts/runtime/named_calls.py", line 17 in PJRT_Event_Await\n')
    assert crashlog.read_segment(log, "t").pjrt_function == "PJRT_Event_Await"
    log.write_bytes(crashlog.start_marker("t") + b"Timeout (0:02:30)!\n")
    assert crashlog.read_segment(log, "t").pjrt_function is None and crashlog.where(crashlog.read_segment(log, "t")) == ""


def test_tail_is_at_most_50_lines(tmp_path: Path) -> None:
    log = tmp_path / "gw0.log"
    log.write_bytes(crashlog.start_marker("t") + b"".join(b"line %d\n" % i for i in range(200)))
    tail = crashlog.read_segment(log, "t").tail()
    assert len(tail) == 50 and tail[-1] == "line 199"


def test_jsonl_survives_a_partial_last_line(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    writer = JsonlWriter(path)
    writer.write(TestRecord(id="a", nodeid="n/a", outcome=Outcome.PASS))
    writer.write(TestRecord(id="b", nodeid="n/b", outcome=Outcome.FAIL))
    writer.close()
    with open(path, "a") as handle:
        handle.write('{"id": "c", "nodeid": "n/c", "outc')  # the controller died mid-write
    assert [r.id for r in read_jsonl(path)] == ["a", "b"]
    writer = JsonlWriter(path)  # appending again first drops the partial line
    writer.write(TestRecord(id="b", nodeid="n/b", outcome=Outcome.PASS))
    writer.close()
    assert all(json.loads(line) for line in path.read_text().splitlines())
    assert {r.id: r.outcome for r in read_jsonl(path)} == {"a": Outcome.PASS, "b": Outcome.PASS}


def test_summary_verdicts() -> None:
    def tests(*outcomes: str) -> list[TestRecord]:
        return [TestRecord(id=f"client.a.test_{i}", layer="client", outcome=Outcome(o), expected=_entry(o))
                for i, o in enumerate(outcomes)]

    def _entry(outcome: str) -> Expected | None:
        """An XFAIL or XPASS carries the expectation entry that made it (judgment.contradictions)."""
        if outcome not in ("XFAIL", "XPASS"):
            return None
        actual = Outcome.FAIL if outcome == "XFAIL" else Outcome.PASS
        return Expected(pattern="client.a.*", outcome=Outcome.FAIL, cause=None, reason="known", url=None, actual=actual)

    # Nothing bad but no level contract met: a handful of client tests proves nothing.
    assert summarize(tests("PASS", "NOT_SUPPORTED", "SKIP", "XFAIL", "WARNING"))["verdict"] == "INCOMPLETE"
    for bad in ("FAIL", "CRASH", "TIMEOUT", "XPASS", "ERROR"):
        assert summarize(tests("PASS", bad))["verdict"] == "NON_CONFORMANT"
    assert summarize(tests("PASS"), complete=False)["verdict"] == "INCOMPLETE"
    assert summarize([])["verdict"] == "INCOMPLETE"
    assert summarize(tests("PASS", "PASS", "FAIL"))["by_layer"] == {"client": {"FAIL": 1, "PASS": 2}}


def test_load_results_rejects_other_files(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"schema_version": 2}))
    with pytest.raises(ValueError, match="schema_version"):
        load_results(path)


def test_layer_of_nodeids() -> None:
    assert layer_of_nodeid("suites/client/test_devices.py::test_x[1]") == "client"
    assert layer_of_nodeid("elsewhere/test_x.py::t") == "unknown"


def test_junit_classifies_outcomes(tmp_path: Path) -> None:
    tests = [TestRecord(id=f"client.a.test_{o.lower()}[x.y]", layer="client", outcome=Outcome(o), duration=0.5,
                        message=f"{o} happened") for o in ("PASS", "FAIL", "CRASH", "NOT_SUPPORTED")]
    write_junit(tests, tmp_path / "junit.xml")
    suite = ET.parse(tmp_path / "junit.xml").getroot()[0]
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("4", "1", "1", "1")
    case = suite.find("testcase[@name='test_crash[x.y]']")
    assert case is not None and case.get("classname") == "client.a"
    assert case.find("error").get("message") == "CRASH: CRASH happened"


def test_progress_plain_and_tty() -> None:
    plain = io.StringIO()
    progress = Progress(plain, tty=False)
    progress.set_total(2)
    progress.add(TestRecord(id="a", outcome=Outcome.PASS))
    progress.add(TestRecord(id="b", outcome=Outcome.CRASH, message="killed by SIGSEGV"))
    progress.finish()
    text = plain.getvalue()
    assert "CRASH    b  -- killed by SIGSEGV" in text
    assert text.count("[2/2] PASS 1 CRASH 1") == 1
    tty = io.StringIO()
    progress = Progress(tty, tty=True)
    progress.set_total(1)
    progress.add(TestRecord(id="a", outcome=Outcome.PASS))
    assert "\r[1/1] PASS 1" in tty.getvalue()


def test_thread_headers_left_without_frames_are_dropped(tmp_path: Path) -> None:
    log = tmp_path / "gw0.log"
    log.write_bytes(crashlog.start_marker("t") + b"Timeout (0:02:00)!\n"
                    b"Thread 0x00007f01 (most recent call first):\n"
                    b'  File "/v/site-packages/execnet/gateway_base.py", line 534 in read\n'
                    b"Current thread 0x00007f02 (most recent call first):\n"
                    b'  File "/work/pjrt_cts/runtime/event.py", line 40 in wait\n')
    assert crashlog.read_segment(log, "t").lines == [
        "Timeout (0:02:00)!", "Current thread 0x00007f02 (most recent call first):",
        '  File "/work/pjrt_cts/runtime/event.py", line 40 in wait']


def test_test_timer_rearms_only_when_less_than_the_timeout_is_left(monkeypatch: pytest.MonkeyPatch) -> None:
    from pjrt_cts.runner.worker import timing

    armed: list[float] = []
    cancelled: list[bool] = []
    now = [1000.0]
    monkeypatch.setattr(timing.faulthandler, "dump_traceback_later", lambda span, **_: armed.append(span))
    monkeypatch.setattr(timing.faulthandler, "cancel_dump_traceback_later", lambda: cancelled.append(True))
    monkeypatch.setattr(timing.time, "monotonic", lambda: now[0])
    timer = timing.TestTimer()
    timer.start(120)
    assert armed == [150.0]  # TIMER_SLACK x the timeout
    now[0] += 30
    timer.start(120)  # exactly the timeout left: no new watchdog thread
    assert armed == [150.0]
    now[0] += 0.5
    timer.start(120)  # less than the timeout left: re-armed, so this test gets its full 120 s
    assert armed == [150.0, 150.0]
    timer.start(2)  # another timeout: armed for it at once
    assert armed == [150.0, 150.0, 2.5]
    timer.stop()
    assert cancelled == [True]
    timer.start(2)
    assert armed[-1] == 2.5 and len(armed) == 4  # stopped timers are armed again


class _Item:
    def __init__(self, name: str, timeout: float | None = None, marker: str | None = None) -> None:
        self.name, self.timeout, self.marker = name, timeout, marker

    def get_closest_marker(self, name: str) -> Any:
        if name == "timeout" and self.timeout:
            return SimpleNamespace(args=(self.timeout,))
        return SimpleNamespace(args=()) if name == self.marker else None


def test_long_tests_are_spread_over_the_first_half() -> None:
    """xdist hands tests out in collection order and in consecutive chunks: a long test collected last would leave
    the other workers idle, long tests side by side would all go to one worker. Long: a declared timeout, a test
    that starts a process of its own that loads the plugin. An isolated test keeps its place."""
    from pjrt_cts.runner.worker.order import spread_long_tests

    plain = [_Item(f"t{i}") for i in range(12)]
    items = (plain[:10] + [_Item("fuzz", 600), _Item("risky", marker="own_process")] + plain[10:]
             + [_Item("nodes", 300), _Item("forked", marker="isolated")])
    ordered = [item.name for item in spread_long_tests(items)]
    assert sorted(ordered) == sorted(item.name for item in items)  # nothing lost or doubled
    assert [ordered.index(name) for name in ("fuzz", "risky", "nodes")] == [0, 3, 6]  # stride 13 // 6 = 2
    assert [name for name in ordered if not name.startswith(("fuzz", "risky", "nodes"))] == (
        [f"t{i}" for i in range(12)] + ["forked"])  # the rest in order
    assert spread_long_tests(plain) is plain


def test_long_tests_go_in_only_where_a_golden_programs_tests_end() -> None:
    """The scheduler hands a program's tests to one worker only while they are consecutive: a long test between them
    would split the program, and two workers would compile it."""
    from pjrt_cts.runner.worker.order import spread_long_tests

    items = [_Item(f"p{i}") for i in range(5)] + [_Item(f"q{i}") for i in range(3)] + [_Item(f"r{i}") for i in range(4)]
    units: list[str | None] = ["p"] * 5 + ["q"] * 3 + [None] * 4
    items += [_Item("risky", marker="own_process"), _Item("fuzz", 600)]
    units += [None, None]
    ordered = [item.name for item in spread_long_tests(items, units)]  # stride 12 // 4 = 3: inside p and inside q
    assert ordered == ["risky", "p0", "p1", "p2", "p3", "p4", "fuzz", "q0", "q1", "q2", "r0", "r1", "r2", "r3"]
    assert [item.name for item in spread_long_tests(items)][:5] == ["risky", "p0", "p1", "p2", "fuzz"]  # no units


def test_a_slot_call_runs_behind_a_frame_named_after_its_pjrt_function() -> None:
    import faulthandler
    import tempfile

    from pjrt_cts.runtime.named_calls import named_call

    def dump() -> int:
        with tempfile.TemporaryFile("w+") as handle:
            faulthandler.dump_traceback(handle, all_threads=False)
            handle.seek(0)
            stacks.append(handle.read())
        return 7

    stacks: list[str] = []
    assert named_call("PJRT_Client_Compile", dump)() == 7
    assert "in PJRT_Client_Compile" in stacks[0]
