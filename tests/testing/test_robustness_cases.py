"""pjrt_cts.testing.robustness_cases: every case the robustness suites name exists, the child runs a case by name,
and the reproduction script it saves calls the same case by name (tests/testing/test_reproduction_scripts.py runs
the scripts)."""
from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

from pjrt_cts.fuzz.isolate import child_environment, run_command
from pjrt_cts.testing import robustness_cases as rc
from robustness_suites import named_cases, suite_module

# the suite modules are imported here without their conftest (which registers the `isolated` mark)
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")


def test_every_case_the_suites_name_exists_and_takes_its_arguments() -> None:
    cases = named_cases()
    assert len(cases) > 60
    for name, kwargs in cases:
        assert name in rc.CASES, name
        inspect.signature(rc.CASES[name]).bind(**kwargs)  # raises TypeError on an unknown keyword


def test_each_risky_call_is_a_long_test_for_the_runner() -> None:
    """A risky call's child loads the plugin and creates a client (seconds on CUDA): the suite marks each test that
    makes one, and the runner spreads those over its order (runner/worker/order.py: spread_long_tests)."""
    from types import SimpleNamespace

    from pjrt_cts.runner.worker.order import is_long

    class Item:
        def __init__(self, fixturenames: tuple[str, ...]) -> None:
            self.fixturenames, self.marks = fixturenames, []

        def add_marker(self, mark: Any) -> None:
            self.marks.append(mark.name)

        def get_closest_marker(self, name: str) -> Any:
            return SimpleNamespace(name=name) if name in self.marks else None

    risky, other = Item(("client", "risky_call", "case")), Item(("client",))
    suite_module("conftest").pytest_collection_modifyitems([risky, other])
    assert (risky.marks, is_long(risky)) == (["own_process"], True)
    assert (other.marks, is_long(other)) == ([], False)


def test_kwargs_travel_through_json_with_bytes() -> None:
    kwargs = {"code": b"ML\xefR\x00", "options": None, "arguments": [(4, "float32")], "fmt": ""}
    decoded = rc.decode_kwargs(rc.encode_kwargs(kwargs))
    assert decoded == {"code": b"ML\xefR\x00", "options": None, "arguments": [[4, "float32"]], "fmt": ""}
    assert rc.decode_kwargs("") == {}


def test_unknown_case_is_refused_before_anything_runs() -> None:
    with pytest.raises(KeyError):
        rc.child_argv("/nonexistent.so", {}, "no_such_case", {})
    with pytest.raises(KeyError):
        rc.reproduction_script("no_such_case", {}, title="t", path="p.py", plugin_path="x.so", options={})


def test_reproduction_script_quotes_the_case_and_calls_it_by_name() -> None:
    text = rc.reproduction_script("compile_code_at_page_end", {"code": b"\x00ML"}, title="PJRT_Client_Compile: c",
                                  path="/tmp/x.py", plugin_path="/p/plugin.so", options={"cpu_device_count": 2})
    compile(text, "repro.py", "exec")
    assert "# def compile_code_at_page_end(code: bytes)" in text
    assert ("sys.exit(reproduce('/p/plugin.so', {'cpu_device_count': 2}, 'compile_code_at_page_end', "
            "code=b'\\x00ML'))") in text


@pytest.fixture(scope="module")
def cpu_plugin_path() -> str:
    from pjrt_cts.runtime import default_plugin_path

    try:
        return str(default_plugin_path())
    except FileNotFoundError as error:
        pytest.skip(str(error))


@pytest.mark.parametrize("name, kwargs, status", [
    ("lookup_device_out_of_range", {}, "error"),
    ("compile_program", {"code": b"ML\xefR"}, "error"),
    ("control_compile", {}, "ok"),
    ("compile_with_options", {"options": b"\xde\xad\xbe\xef" * 4}, "error"),  # a case keyword named like run_case's
])
def test_child_runs_a_case_by_name(cpu_plugin_path: str, name: str, kwargs: dict[str, Any], status: str) -> None:
    outcome = run_command(rc.child_argv(cpu_plugin_path, {}, name, kwargs), timeout=60, env=child_environment())
    assert outcome.answered, outcome.describe()
    assert outcome.result is not None and outcome.result["status"] == status, outcome.result
    if status == "error":
        assert outcome.result["code"] and outcome.result["message"]


@pytest.mark.parametrize("control, case, control_status, case_status", [
    ("control_compile", "compile_program", "ok", "error"),
    ("control_lookup_device", "lookup_device_out_of_range", "ok", "error"),
])
def test_child_runs_the_control_first_then_the_case(cpu_plugin_path: str, control: str, case: str,
                                                     control_status: str, case_status: str) -> None:
    """One process for both: the control's answer on its own line, then the case's as usual."""
    kwargs = {"code": b"ML\xefR"} if case == "compile_program" else {}
    outcome = run_command(rc.child_argv(cpu_plugin_path, {}, case, kwargs, control), timeout=60,
                          env=child_environment())
    assert outcome.answered, outcome.describe()
    assert outcome.control is not None and outcome.control["status"] == control_status, outcome.control
    assert outcome.result is not None and outcome.result["status"] == case_status, outcome.result
    alone = run_command(rc.child_argv(cpu_plugin_path, {}, case, kwargs), timeout=60, env=child_environment())
    assert alone.control is None and alone.result == outcome.result


def test_a_case_that_did_not_answer_after_its_control_is_judged_by_a_run_alone(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """suites/robustness/conftest.py: the control runs in the first rejection case's child of its function; a
    child that then crashed is not judged (the case reruns alone, as its reproduction script runs it), and the
    control's answer is kept so later cases of the function start one process each."""
    from pjrt_cts.fuzz.isolate import ChildOutcome

    conftest = suite_module("conftest")
    function = next(name for name, control in rc.CONTROLS.items() if control == "control_compile")
    controls_asked: list[str | None] = []

    def fake_run(self: Any, case: str, kwargs: Any, *, timeout: float, control: str | None = None) -> ChildOutcome:
        controls_asked.append(control)
        if control is not None:  # the control answered, then the case killed the child
            return ChildOutcome("crashed", -6, "SIGABRT", None, "", 1.0, {"status": "ok"})
        return ChildOutcome("answered", 0, None, {"status": "error", "code": "INVALID_ARGUMENT"}, "", 1.0)

    monkeypatch.setattr(conftest.RiskyCall, "_run", fake_run)
    risky = conftest.RiskyCall("plugin.so", {}, tmp_path, None)
    outcome = risky._run_with_control(function, "compile_program", {}, timeout=1.0, wants_control=True)
    assert controls_asked == ["control_compile", None]
    assert outcome.answered and outcome.result == {"status": "error", "code": "INVALID_ARGUMENT"}
    assert conftest._control_outcomes[function].result == {"status": "ok"}
    controls_asked.clear()
    risky._run_with_control(function, "compile_program", {}, timeout=1.0, wants_control=True)
    assert controls_asked == [None]


def test_unknown_control_is_refused_before_anything_runs() -> None:
    with pytest.raises(KeyError, match="no robustness case"):
        rc.child_argv("/nonexistent.so", {}, "control_compile", {}, "no_such_control")


def test_a_failing_control_is_reported_with_its_reproduction_script(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A rejection proves nothing when the same function with valid arguments fails too: the problem names the
    control's script, which is written (only then) beside the case's."""
    from pjrt_cts.fuzz.isolate import ChildOutcome

    conftest = suite_module("conftest")
    function, control = next(iter(rc.CONTROLS.items()))

    def failing_control(self: Any, case: str, kwargs: Any, *, timeout: float, control: str | None = None) -> ChildOutcome:
        return ChildOutcome("answered", 0, None, {"status": "error", "code": "INTERNAL", "message": "broken"}, "", 1.0)

    monkeypatch.setattr(conftest.RiskyCall, "_run", failing_control)
    risky = conftest.RiskyCall("plugin.so", {}, tmp_path, None)
    problem = risky._control_problem(function, "contract", tmp_path / "case.py")
    script = tmp_path / f"control-{function}.py"
    assert isinstance(problem, AssertionError) and f"python {script}" in str(problem) and "INTERNAL: broken" in str(problem)
    assert script.is_file() and f"reproduce('plugin.so', {{}}, {control!r})" in script.read_text()
