"""The pytest plugin `pjrt-cts run` passes with `-p` to every process it starts: it registers, in pytest_configure,
the plugin objects of the process it finds itself in, each for one concern. No hook checks the role.

  worker      an xdist worker (`--pjrt-cts-spec`, xdist's workerinput): outcomes.OutcomeMapping,
              process.WorkerTiming (its log, a timer per test), selection.Selection, routing.ChildRouting (isolated
              and contained tests in a forked child, the fork server), reruns.Reruns (when it reruns its findings),
              and process.WorkerExit.
  child       a process that runs tests for its worker (`--pjrt-cts-child-reports`; a process forked from the fork
              server becomes one through `become_child`): OutcomeMapping, child.ChildTiming, child.ChildStream.
  controller  the `pjrt-cts run` process: only markers and options (controller/recorder.py is its plugin).
  plain       a bare `pytest suites/`: OutcomeMapping (outcomes.py) and the suites' fixtures (with `--pjrt-plugin`,
              pjrt_cts.cli.pytest_plugin adds its own and loads this one where the ini did not).
Every role also has report_wire, the short form of a passed phase report: each process reads what another writes.
The suites' markers are registered here, in every process (MARKERS).

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import atexit
import gc
from pathlib import Path

import pytest

from pjrt_cts.runner.spec import RunSpec
from pjrt_cts.runner.files import report_wire
from pjrt_cts.runner.worker import outcomes
from pjrt_cts.runner.worker.child import ChildStream, ChildTiming
from pjrt_cts.runner.worker.outcomes import OutcomeMapping

PLUGIN_NAME = "pjrt-cts-outcomes"  # the OutcomeMapping every test-running process has
# The suites' markers, registered here only: every process that runs suites loads this plugin (the runner's, and a bare
# pytest through suites/pytest.ini).
MARKERS = (
    "isolated: run in a fresh subprocess; the test may crash the plugin",
    "feature(*names): tag the result with these feature names",
    "timeout(seconds): per-test timeout for `pjrt-cts run`",
    "own_process: the test starts a process of its own that loads the plugin (spread over the run's order, as long "
    "tests are)",
    "nondeterministic(why): the outcome may differ between runs by design (a race the suite provokes, a timing "
    "bound); not rerun by the confirmation pass",
    "requires(*slots, devices=, element_type=, memory_kind=, feature=): what the test needs from the plugin "
    "(pjrt_cts.testing.requirements)",
    "golden_corpus_unreadable(reason): placeholder of a golden test whose corpus could not be read (an ERROR)",
)
_WORKER_ONLY = ("pjrt-cts-timing", "pjrt-cts-selection", "pjrt-cts-routing", "pjrt-cts-reruns", "pjrt-cts-exit")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pjrt-cts", "pjrt-cts runner internals")
    group.addoption("--pjrt-cts-spec", dest="pjrt_cts_spec", default=None, help="run spec JSON (set by the runner)")
    group.addoption("--pjrt-cts-child-reports", dest="pjrt_cts_child_reports", default=None,
                    help="stream this isolated test's reports to FILE (set by the runner)")


def pytest_configure(config: pytest.Config) -> None:
    for marker in MARKERS:
        config.addinivalue_line("markers", marker)
    manager = config.pluginmanager
    if manager.has_plugin(PLUGIN_NAME):
        return
    if not manager.is_registered(report_wire):  # every role: each reads what another process writes
        manager.register(report_wire, "pjrt-cts-report-wire")
    spec_path = config.getoption("pjrt_cts_spec", None)
    child_reports = config.getoption("pjrt_cts_child_reports", None)
    if spec_path is None:  # a bare pytest
        manager.register(outcomes, "pjrt-cts-fixtures")
        manager.register(OutcomeMapping(), PLUGIN_NAME)
        return
    if not child_reports and not hasattr(config, "workerinput"):
        return  # the controller: it runs no test
    spec = RunSpec.read(spec_path)
    if spec.quick:
        # A sample holds a few cases of each pack: they run their own programs, not 128-case packs.
        from pjrt_cts.testing.corpus import use_own_programs

        use_own_programs()
    # Python's own traceback format (`--tb` belongs to the terminal plugin, which workers do not load): pytest's
    # long format parses each frame's source file again for every failed test, ~20 ms a test, and hundreds of
    # deviations and waived tests fail by design.
    config.option.tbstyle = "native"
    manager.register(outcomes, "pjrt-cts-fixtures")
    manager.register(OutcomeMapping(), PLUGIN_NAME)
    if child_reports:
        manager.register(ChildTiming(spec), "pjrt-cts-child-timing")
        manager.register(ChildStream(config, Path(child_reports)), "pjrt-cts-child-stream")
    else:
        _register_worker(config, spec)


def _register_worker(config: pytest.Config, spec: RunSpec) -> None:
    """An xdist worker's plugin objects. Registered last, called first: of the hooks that run `tryfirst` at the end of
    collection, the timer stops, then the collection payload is written (Selection) and the collection frozen
    (WorkerExit), then the fork server starts (ChildRouting)."""
    from pjrt_cts.runner.worker.reruns import Reruns
    from pjrt_cts.runner.worker.routing import ChildRouting
    from pjrt_cts.runner.worker.selection import Selection
    from pjrt_cts.runner.worker.process import WorkerExit, WorkerTiming, leave_without_freeing

    # Collection allocates millions of objects that live as long as the worker: the cyclic collector would walk
    # them again at each of its passes (~1.4 s of a worker's ~3 s collection). Off until they are frozen.
    gc.disable()
    # Exit handlers run last-registered first: registered now, it runs after calltimes' writer, pytest's and weakref
    # finalizers. Only logging's and execnet's come earlier; leave_without_freeing does their part.
    atexit.register(leave_without_freeing)
    worker_id = str(getattr(config, "workerinput", {}).get("workerid", "main"))
    log_path = Path(spec.log_dir) / f"{worker_id}.log"
    manager = config.pluginmanager
    routing = ChildRouting(spec, log_path)
    manager.register(routing, "pjrt-cts-routing")
    selection = Selection(config, spec, worker_id)
    if spec.confirm_in_workers:
        manager.register(Reruns(config, spec, worker_id, log_path, routing.runs_in_child, lambda: selection.units),
                         "pjrt-cts-reruns")
    manager.register(WorkerExit(spec, worker_id), "pjrt-cts-exit")
    manager.register(selection, "pjrt-cts-selection")
    manager.register(WorkerTiming(spec, log_path, routing.runs_in_child), "pjrt-cts-timing")


def become_child(config: pytest.Config, reports_path: Path) -> None:
    """A process forked from a worker's fork server runs tests for the worker: the worker's plugin objects go, a
    child's come."""
    manager = config.pluginmanager
    timing = manager.get_plugin("pjrt-cts-timing")
    assert timing is not None, "become_child: not a worker's process"
    spec: RunSpec = timing.spec
    for name in _WORKER_ONLY:
        plugin = manager.get_plugin(name)
        if plugin is not None:
            manager.unregister(plugin)
    manager.register(ChildTiming(spec), "pjrt-cts-child-timing")
    manager.register(ChildStream(config, reports_path), "pjrt-cts-child-stream")
