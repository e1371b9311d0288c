"""`pytest suites/<layer> --pjrt-plugin PATH|PROFILE`: the suites run by hand, in-process, against any plugin.

Registered as the `pytest11` entry point `pjrt_cts` (pyproject.toml), so any pytest of an environment where pjrt-cts
is installed has the options; it does nothing unless one is given. With them, a bare pytest run of the suites gets
what `pjrt-cts run` gives its workers and records for the same tests:

- the run context (pjrt_cts.schema.run_context) made as `run` makes it (pjrt_cts.cli.run.run_options): the plugin
  (a path, or a profile's library), the profile's create options with `--pjrt-create-option K=V` over them, its
  "no device" codes, its runtime's environment, the user settings of the environment;
- each test's record made by the runner's code from the phase reports (pjrt_cts.runner.records: the outcome
  mapping the worker plugin attaches, NOT_SUPPORTED, SHARED_DEVIATION, WARNING, requirements), judged by the
  consistency rules that need no other test and by the expectations (`--pjrt-expectations FILE`, else the
  profile's; its SKIP entries leave tests out as in a run), shown in pytest's terminal by the runner's outcome
  names, with a `pjrt-cts outcomes` section at the end naming each test's cause, defect and waiver.

What a bare run cannot give: a crash or hang of the plugin takes pytest down with it (a run isolates each test and
times it out), findings are not confirmed by a second run, and the consistency rules that compare tests with each
other (an UNIMPLEMENTED op that another golden case ran) need the whole run: `pjrt-cts run` judges a plugin; this
debugs one test.
"""
from __future__ import annotations

import copy
import dataclasses
import os
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pjrt_cts.runner.session import RunOptions
    from pjrt_cts.runner.spec import RunSpec
    from pjrt_cts.schema import TestRecord

PLUGIN_NAME = "pjrt-cts-bare-run"
WORKER_PLUGIN = "pjrt_cts.runner.worker_plugin"  # what suites/pytest.ini loads: the outcome mapping
JUDGED = "pjrt_cts_judged"  # a report's attribute: the record as judged so far ({"id", "outcome", "message", ...})
# The dynamic loader reads these when the process starts: a profile whose runtime needs them cannot be loaded
# in-process unless pytest was started with them.
_LOADER_VARIABLES = ("LD_LIBRARY_PATH", "LD_PRELOAD")
# How pytest's terminal shows each outcome: (category counted in the summary line, letter, word). The categories
# pytest knows keep their meaning (a "failed" fails the session); the others are counted under the runner's names.
_STATUS: dict[str, tuple[str, str, str]] = {
    "PASS": ("passed", ".", "PASS"),
    "FAIL": ("failed", "F", "FAIL"),
    "ERROR": ("error", "E", "ERROR"),
    "SKIP": ("skipped", "s", "SKIP"),
    "NOT_SUPPORTED": ("NOT_SUPPORTED", "N", "NOT_SUPPORTED"),
    "WARNING": ("WARNING", "W", "WARNING"),
    "SHARED_DEVIATION": ("SHARED_DEVIATION", "D", "SHARED_DEVIATION"),
    "XFAIL": ("xfailed", "x", "XFAIL"),
    "XPASS": ("failed", "X", "XPASS"),
}

_NOT_FINDINGS = frozenset({"SKIP", "NOT_SUPPORTED", "XFAIL"})  # what -q leaves out of the outcomes section


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pjrt-cts-plugin", "pjrt-cts: the PJRT plugin a bare pytest run of suites/ tests")
    group.addoption("--pjrt-plugin", dest="pjrt_plugin", default=None, metavar="PATH|PROFILE",
                    help="the plugin under test: a shared library (a path: has a `/` or names a file) or a profile "
                         "(`pjrt-cts plugins`); default: the bundled XLA CPU plugin")
    group.addoption("--pjrt-create-option", dest="pjrt_create_options", action="append", default=[],
                    metavar="K=V", help="client create option over the profile's (value parsed as JSON when possible; "
                                        "repeatable)")
    group.addoption("--pjrt-expectations", dest="pjrt_expectations", default=None, metavar="FILE",
                    help="expectations TOML (default: the profile's; an empty file: none)")


def _given(config: pytest.Config) -> bool:
    return bool(config.getoption("pjrt_plugin", None) or config.getoption("pjrt_create_options", None)
                or config.getoption("pjrt_expectations", None))


def pytest_configure(config: pytest.Config) -> None:
    if not _given(config):
        return
    if config.getoption("pjrt_cts_spec", None):
        raise pytest.UsageError("--pjrt-plugin and its options are for a bare pytest run: `pjrt-cts run` takes "
                                "the plugin itself")
    if not config.pluginmanager.has_plugin(WORKER_PLUGIN):
        # suites/pytest.ini loads it; pytest reads another ini when an argument outside suites/ looks like a path (as
        # the plugin's own: `--pjrt-plugin /path/plugin.so`) and moves the rootdir up to where both are.
        config.pluginmanager.import_plugin(WORKER_PLUGIN)
    inherited = _context_env() in os.environ and hasattr(config, "workerinput")  # an xdist worker of a bare run
    options = run_options(config)
    _check_loader_environment(options.worker_env)
    out_dir = _inherited_out_dir() if inherited else tempfile.mkdtemp(prefix="pjrt-cts-pytest-")
    options = dataclasses.replace(options, out_dir=Path(out_dir))
    if not inherited:
        _set_environment(config, options)
    # An xdist controller shows what its workers judged.
    judging = hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None)
    config.pluginmanager.register(BareRun(options, config.rootpath, judging), PLUGIN_NAME)


def run_options(config: pytest.Config) -> RunOptions:
    """The run's options, resolved as `pjrt-cts run` resolves its own (a mistake is a usage error of pytest); its
    output directory is the caller's to choose."""
    from pjrt_cts.cli.main import UsageError
    from pjrt_cts.cli.plugin_arg import resolve_plugin
    from pjrt_cts.cli.run import run_options as options_of

    given = config.getoption("pjrt_plugin", None)
    is_path = given is not None and ("/" in given or Path(given).is_file())
    try:
        plugin = resolve_plugin(given if is_path else None, None if is_path else given)
        return options_of(plugin, list(config.getoption("pjrt_create_options")), config.getoption("pjrt_expectations"),
                          suites_dir=_suites_dir(config), layers=[], out_dir=Path())
    except UsageError as exc:
        raise pytest.UsageError(f"pjrt-cts: {exc}") from None


def _suites_dir(config: pytest.Config) -> Path:
    """The suites this session runs: its rootdir where suites/pytest.ini made it so, else the installed ones."""
    if config.inipath is not None and config.inipath.name == "pytest.ini" and (config.rootpath / "conftest.py").is_file():
        return config.rootpath
    from pjrt_cts.resources import suites_dir

    return suites_dir()


def _check_loader_environment(needed: dict[str, str]) -> None:
    missing = {name: value for name, value in needed.items()
               if name in _LOADER_VARIABLES and os.environ.get(name) != value}
    if missing:
        prefix = shlex.join(["env", *(f"{name}={value}" for name, value in missing.items())])
        raise pytest.UsageError(f"the profile's runtime needs {', '.join(missing)} set when the process starts (the "
                                f"dynamic loader reads them once): run `{prefix} pytest ...`")


def _context_env() -> str:
    from pjrt_cts.schema import CONTEXT_ENV

    return CONTEXT_ENV


def _inherited_out_dir() -> str:
    from pjrt_cts.schema import run_context

    return run_context().out_dir


def _set_environment(config: pytest.Config, options: RunOptions) -> None:
    """What every process of this run reads (this one, xdist workers, isolated children, the tests' own children):
    the run context, in the run's output directory (a temporary one, removed with the session), and the profile's
    runtime environment."""
    path = options.out_dir / ".run" / "context.json"
    options.context(blocks_file=None).write(path)
    changed = {**options.worker_env, _context_env(): str(path)}
    before = {name: os.environ.get(name) for name in changed}
    os.environ.update(changed)

    def restore() -> None:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(options.out_dir, ignore_errors=True)

    config.add_cleanup(restore)


def runner_nodeid(item: pytest.Item) -> str:
    """The node id `pjrt-cts run` gives `item` (`suites/<layer>/test_x.py::...`, relative to the suites' parent),
    whatever the rootdir of this pytest run: test ids and expectations are made from it."""
    parts = item.path.parts
    below = [index for index, part in enumerate(parts[:-1]) if part == "suites"]
    if not below or "::" not in item.nodeid:
        return item.nodeid
    return "/".join(parts[below[-1]:]) + "::" + item.nodeid.split("::", 1)[1]


class BareRun:
    """Runs isolated tests in a child as the runner does, judges each test as the runner does and shows it by the
    runner's outcome names."""

    def __init__(self, options: RunOptions, rootdir: Path, judging: bool) -> None:
        self.options = options
        self.rootdir = rootdir
        self.expectations = options.expectations
        self.judging = judging
        self.items: dict[str, pytest.Item] = {}
        self.phases: dict[str, dict[str, pytest.TestReport]] = {}  # node id -> phase -> report as pytest made it
        self.findings: list[dict[str, Any]] = []  # judged records that are not PASS, for the terminal summary
        self.spec: RunSpec | None = None

    @pytest.hookimpl(trylast=True)  # after the suites' own ordering: only adds marks
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """An expectations entry that says SKIP leaves its tests out, as a run does (with the same message)."""
        from pjrt_cts.judgment.outcomes import test_id_from_nodeid
        from pjrt_cts.runner.expectations import skip_reason

        self.items = {item.nodeid: item for item in items}
        skips = self.expectations.skip_patterns()
        for item in items if skips else ():
            reason = skip_reason(test_id_from_nodeid(runner_nodeid(item)), skips)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        """A test marked isolated (it may crash the plugin) runs in a child process of its own, as in a run: the
        runner's isolation (pjrt_cts.runner.isolation) with the child's output in the run's log, so that a death
        is a CRASH or TIMEOUT record with its signal and stderr."""
        from pjrt_cts.runner import crashlog, isolation
        from pjrt_cts.runner.worker_plugin import is_isolated

        if not is_isolated(item):
            return None
        spec = self._spec()
        log_path = Path(spec.log_dir) / "isolated.log"
        with open(log_path, "ab") as log:
            saved = os.dup(2)
            os.dup2(log.fileno(), 2)  # the child (and the spare it leaves) write there: crashlog reads it
            try:
                os.write(2, crashlog.start_marker(item.nodeid))
                isolation.run_in_fresh_process(item, nextitem, spec, log_path)
                os.write(2, crashlog.end_marker(item.nodeid))
            finally:
                os.dup2(saved, 2)
                os.close(saved)
        return True

    def _spec(self) -> RunSpec:
        """The spec of the runner's isolated children, written once (in the run's temporary output directory)."""
        if self.spec is None:
            from pjrt_cts.runner.session import Run

            run = Run(self.options)
            spec = run.spec([])
            # Node ids here are relative to this session's rootdir (the suites directory, where their pytest.ini is,
            # or above it), not to the suites' parent as in a run: the child runs from there and makes the same ones.
            rootdir = str(self.rootdir)
            args = list(spec.child_args)
            args[args.index("--rootdir") + 1] = rootdir
            self.spec = dataclasses.replace(spec, rootdir=rootdir, child_args=args)
            Path(self.spec.log_dir).mkdir(parents=True, exist_ok=True)
            self.spec.write(run.run_dir / "spec.json")
        return self.spec

    def pytest_unconfigure(self) -> None:
        if self.spec is not None:
            from pjrt_cts.runner import isolation

            isolation.discard_spare()

    @pytest.hookimpl(tryfirst=True)  # before the terminal shows the report and the session counts it
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if isinstance(report.longrepr, list):  # a skip an isolated child streamed: its (path, line, reason) went by JSON
            report.longrepr = tuple(report.longrepr)  # pytest's terminal wants the tuple
        if self.judging:
            phases = self.phases.setdefault(report.nodeid, {})
            phases[report.when] = copy.copy(report)  # as made: later phases are judged from these, not the shown ones
            if report.when == "teardown":
                del self.phases[report.nodeid]
            if report.when == "call" or (report.when == "setup" and not report.passed):  # what pytest shows
                _show(report, self.judge(report.nodeid, phases))
        judged = getattr(report, JUDGED, None)
        if judged and judged["outcome"] != "PASS":
            self.findings.append(judged)

    def judge(self, nodeid: str, phases: dict[str, pytest.TestReport]) -> TestRecord:
        """The record `pjrt-cts run` would make of these phase reports, with the judgments one test allows."""
        from pjrt_cts.runner.consistency import apply_consistency
        from pjrt_cts.runner.expectations import apply_expectation
        from pjrt_cts.runner.records import make_record, result_of_phases

        item = self.items.get(nodeid)
        record = make_record(runner_nodeid(item) if item is not None else nodeid, result_of_phases(phases), repro="")
        (record,) = apply_consistency([record])
        return apply_expectation(record, self.expectations)

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        judged = getattr(report, JUDGED, None)
        return _STATUS.get(judged["outcome"]) if judged else None

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Each test that did not pass, with its cause, defect and waiver; with -q, only the findings."""
        quiet = terminalreporter.verbosity < 0
        shown = [judged for judged in self.findings if not (quiet and judged["outcome"] in _NOT_FINDINGS)]
        if not shown:
            return
        terminalreporter.section("pjrt-cts outcomes (as `pjrt-cts run` records them)")
        for judged in shown:
            notes = [f"defect {judged['defect']}"] if judged.get("defect") else []
            if judged.get("waiver"):
                notes.append(f"waived: {judged['waiver'][:160]}")
            message = (judged["message"] or "").strip().splitlines()
            line = f"{judged['outcome']} {judged['id']}" + (f": {message[0][:240]}" if message else "")
            terminalreporter.write_line(line + (f" ({'; '.join(notes)})" if notes else ""))


def _show(report: pytest.TestReport, record: TestRecord) -> None:
    """Put the record's outcome on the report pytest shows, and make pytest count it as the runner does: a waived
    failure (XFAIL) is pytest's xfail, a waived test that passed (XPASS: a stale waiver) and a NOT_SUPPORTED the
    consistency rules turn into a FAIL fail the session."""
    from pjrt_cts.judgment.outcomes import Outcome

    outcome = record.outcome
    expected = record.expected
    setattr(report, JUDGED, {"id": record.id, "outcome": outcome.value, "message": record.message,
                             "defect": record.defect, "waiver": expected.reason if expected is not None else None})
    if outcome is Outcome.XFAIL and report.failed:
        report.outcome = "skipped"
        report.wasxfail = expected.reason if expected is not None else ""
    elif outcome in (Outcome.XPASS, Outcome.FAIL) and not report.failed:
        report.outcome = "failed"
        report.longrepr = f"{outcome.value}: {record.message}" if record.message else (
            f"{outcome.value}: the expectation waives a failure this test did not show"
            f" ({expected.pattern if expected is not None else ''})")
