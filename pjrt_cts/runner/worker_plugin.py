"""pytest plugin of `pjrt-cts run` (passed with `-p`): outcome mapping, timeouts, stderr logs, isolation.

It is loaded in four roles:
  worker      an xdist worker: stderr/stdout go to out/logs/<worker>.log, each test is bracketed by
              marker lines and armed with a faulthandler timer (dump + exit on timeout); tests marked
              `@pytest.mark.isolated`, and tests the controller rescheduled after a worker died in them
              (CONTAINED_NODEIDS), run in a forked child (see isolation.py).
  child       that fresh subprocess: runs one test, streams its reports to a file for the worker.
  controller  the `pjrt-cts run` process: only registers markers and options (it runs no test).
  plain       a bare `pytest suites/` (no runner): outcome mapping and fixtures still work.
"""
from __future__ import annotations

import atexit
import ctypes
import faulthandler
import gc
import json
import logging
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from itertools import takewhile
from pathlib import Path
from typing import Any, Callable, Generator, Iterator, Mapping, Sequence

import pytest

from pjrt_cts.judgment import outcomes
from pjrt_cts.judgment.outcomes import Outcome, test_id_from_nodeid
from pjrt_cts.runtime import MissingFunction, NullExtensionFunction
from pjrt_cts.schema import PhaseInfo
from pjrt_cts.testing.outcomes import BlockedByFailure, SuiteError
from pjrt_cts.runner import api_calls, crashlog, shard
from pjrt_cts.runner.crashlog import TIMER_SLACK
from pjrt_cts.runner.expectations import skip_reason
from pjrt_cts.judgment.results import jsonable
from pjrt_cts.runner.spec import RunSpec
from pjrt_cts.runner.event_stream import thin_worker_events

DETAILS_KEY = pytest.StashKey[dict]()
COMPATIBILITY_KEY = pytest.StashKey[dict]()

# Markers that are pytest machinery, not features worth tagging a result with.
_MACHINERY_MARKERS = frozenset(
    {"parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings", "timeout", "feature",
     "tryfirst", "trylast", "own_process"}
)
ISOLATION_GRACE_SECONDS = 10.0  # the worker waits this much longer than the child's own timer
CONFIRMATIONS_SUFFIX = ".confirmations.jsonl"  # a worker's reruns of its findings, in the log directory
FINDINGS_SUFFIX = ".findings"  # `<worker>-<pid>.findings`: the node ids of a worker process's findings, as they come
# `<worker>-<pid>.testing` while a worker process runs its tests, then `.ending` while it reruns findings or waits for
# a share of another's (WorkerPlugin.confirm_findings); `<worker>-<pid>-<k>.shared-findings`: a piece of a worker's
# findings that whichever worker is free first reruns.
TESTING_SUFFIX = ".testing"
ENDING_SUFFIX = ".ending"
SHARED_SUFFIX = ".shared-findings"
MAX_SHARED_PIECES = 4  # a worker's findings split at most this many ways (each piece: a process and a client)
WAIT_POLL_SECONDS = 0.05
# In the log directory: node ids the controller rescheduled after a worker died in (or just before) them. A worker runs
# them in a forked child, as isolated tests, so that dying again costs a child, not another worker.
CONTAINED_NODEIDS = "contained.nodeids"
COLLECTION_TIMEOUT_SECONDS = 600.0  # a worker stuck importing suites dies with a stack dump
PLUGIN_NAME = "pjrt-cts-worker"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pjrt-cts", "pjrt-cts runner internals")
    group.addoption("--pjrt-cts-spec", dest="pjrt_cts_spec", default=None, help="run spec JSON (set by the runner)")
    group.addoption("--pjrt-cts-child-reports", dest="pjrt_cts_child_reports", default=None,
                    help="stream this isolated test's reports to FILE (set by the runner)")


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


def pytest_configure(config: pytest.Config) -> None:
    for marker in MARKERS:
        config.addinivalue_line("markers", marker)
    spec_path = config.getoption("pjrt_cts_spec", None)
    child_reports = config.getoption("pjrt_cts_child_reports", None)
    if spec_path is None:
        role = "plain"
    elif child_reports:
        role = "child"
    elif hasattr(config, "workerinput"):
        role = "worker"
    else:
        role = "controller"
    spec = RunSpec.read(spec_path) if spec_path else None
    if role == "worker":
        # Collection allocates millions of objects that live as long as the worker: the cyclic collector would walk
        # them again at each of its passes (~1.4 s of a worker's ~3 s collection). Off until they are frozen
        # (pytest_collection_finish).
        gc.disable()
        # Exit handlers run last-registered first: registered now, it runs after calltimes' writer, pytest's and weakref
        # finalizers. Only logging's and execnet's come earlier; _leave_without_freeing does their part.
        atexit.register(_leave_without_freeing)
        thin_worker_events(config)
    if role in ("worker", "child"):
        _ensure_terminal_reporter(config)
        # Python's own traceback format (`--tb` belongs to the terminal plugin, which workers do not load): pytest's
        # long format parses each frame's source file again for every failed test, ~20 ms a test, and hundreds of
        # deviations and waived tests fail by design.
        config.option.tbstyle = "native"
    if not config.pluginmanager.has_plugin(PLUGIN_NAME):
        worker = WorkerPlugin(config, role, spec, child_reports)
        config.pluginmanager.register(worker, PLUGIN_NAME)
        config.pluginmanager.register(IsolationPlugin(worker), PLUGIN_NAME + "-isolation")


def _ensure_terminal_reporter(config: pytest.Config) -> None:
    """The runner passes `-p no:terminal` (the controller prints its own progress), but pytest's assertion
    rewriting asks `config.get_terminal_writer()` for a highlighter when it explains a failed comparison:
    without a terminal reporter that raises, and every `assert a == b, why` failure ends as a bare
    "AssertionError" with `why` lost. Workers and isolation children get a writer that writes nowhere."""
    if config.pluginmanager.get_plugin("terminalreporter") is not None:
        return
    from _pytest._io import TerminalWriter

    writer = TerminalWriter(file=open(os.devnull, "w", encoding="utf-8"))  # the writer lives as long as the process
    writer.hasmarkup = False
    config.get_terminal_writer = lambda: writer  # type: ignore[method-assign]  # silences pytest's own terminal in workers


# -- fixtures for suites --------------------------------------------------------------------------


@pytest.fixture
def record_details(request: pytest.FixtureRequest) -> Callable[..., None]:
    """`record_details(max_abs_err=..., first_mismatch_index=...)`: lands in the test's results.json `details`."""
    details = request.node.stash.setdefault(DETAILS_KEY, {})

    def record(mapping: dict[str, Any] | None = None, **values: Any) -> None:
        details.update(mapping or {})
        details.update(values)

    return record


@pytest.fixture
def record_compatibility(request: pytest.FixtureRequest) -> Callable[..., None]:
    """`record_compatibility(stablehlo_current_version=...)`: merged into results.json `compatibility`."""
    found = request.node.stash.setdefault(COMPATIBILITY_KEY, {})

    def record(mapping: dict[str, Any] | None = None, **values: Any) -> None:
        found.update(mapping or {})
        found.update(values)

    return record


# -- helpers --------------------------------------------------------------------------------------


def unsupported_kind(exc: BaseException) -> str:
    """What a NOT_SUPPORTED exception rests on (pjrt_cts.judgment.outcomes.UNSUPPORTED_KINDS): a missing slot, or the
    FeatureNotSupported's own kind."""
    if isinstance(exc, MissingFunction):
        return "slot"  # an extension function beyond the struct_size of an older version included
    return str(getattr(exc, "kind", "") or "unimplemented")


def classify_exception(exc: BaseException) -> tuple[Outcome | None, str]:
    """(NOT_SUPPORTED | WARNING | SHARED_DEVIATION | FAIL | ERROR | None, reason), by the exception's class.

    NOT_SUPPORTED comes from pjrt_cts.testing.requirements (FeatureNotSupported) or a missing slot (runtime
    MissingFunction); an UNIMPLEMENTED PjrtError that no `unsupported_if_unimplemented` block expected is a FAIL.
    BlockedByFailure is a FAIL in any phase (a fixture's failed prerequisite); SuiteError is an ERROR."""
    described = str(exc) or type(exc).__name__
    if isinstance(exc, outcomes.FeatureNotSupported):
        return Outcome.NOT_SUPPORTED, exc.reason or described
    if isinstance(exc, NullExtensionFunction):  # an advertised extension with a NULL function: the plugin's defect
        return Outcome.FAIL, described
    if isinstance(exc, MissingFunction):  # a missing slot: same wording as a declared `requires(slot)`
        if exc.function and exc.plugin_version:
            return Outcome.NOT_SUPPORTED, (f"requires {exc.function}: missing slot (API {exc.plugin_version}): "
                                           f"{exc.reason or exc}")
        return Outcome.NOT_SUPPORTED, described
    if isinstance(exc, outcomes.HardeningFinding):
        return Outcome.WARNING, described
    if isinstance(exc, outcomes.SharedDeviation):
        return Outcome.SHARED_DEVIATION, described
    if isinstance(exc, BlockedByFailure):
        return Outcome.FAIL, described
    if isinstance(exc, SuiteError):
        return Outcome.ERROR, described
    return None, ""


def tags_of(item: pytest.Item) -> list[str]:
    """`@pytest.mark.feature("donation")` -> 'donation'; any other non-machinery marker -> its name."""
    tags: list[str] = []
    for mark in item.iter_markers():
        if mark.name == "feature":
            tags.extend(str(arg) for arg in mark.args)
        elif mark.name not in _MACHINERY_MARKERS:
            tags.append(mark.name)
    return list(dict.fromkeys(tags))


def timeout_for(item: pytest.Item, spec: RunSpec) -> float:
    mark = item.get_closest_marker("timeout")
    if mark is not None and mark.args:
        try:
            return float(mark.args[0])
        except (TypeError, ValueError):
            pass
    return spec.timeout


# Markers of tests that are long on some plugin: a declared timeout (fuzz batches, the known-hang input, multi-node
# runs, resource cycles), or processes of its own that load the plugin (`own_process`: the robustness layer's risky
# calls, a deserialize in a new process), which take seconds where creating a client does (~2 s per CUDA client with
# 16 workers on one GPU). Isolated tests keep their place: spread too, they cost the default plugin's 2-core run
# ~1.5 idle core-seconds (docs/bench.md).
LONG_TEST_MARKERS = ("timeout", "own_process")


def is_long(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(name) is not None for name in LONG_TEST_MARKERS)


def starts_processes(item: pytest.Item) -> bool:
    """Marked `own_process`: the test starts processes of its own that load the plugin (forked from the fork server
    where there is one: forkserver.py)."""
    return item.get_closest_marker("own_process") is not None


def spread_long_tests(items: list[pytest.Item], units: Sequence[str | None] | None = None) -> list[pytest.Item]:
    """Long tests (`is_long`) spread evenly over the first half of the order; the rest keep their order.

    xdist hands tests out in this order, in consecutive chunks: a 10 s test started last keeps one worker busy
    while the others idle, and long tests side by side would all land in one worker's chunk (on CUDA, 72 risky
    calls of ~5 s each at the end of the order kept four workers busy for ~50 s after the others had ended). With
    `units` (per item, the golden program it belongs to, or None), a long test goes in only where a program's tests
    end, so that the scheduler still hands each program to one worker."""
    flags = [is_long(item) for item in items]
    if not any(flags):
        return items
    long = [item for item, flag in zip(items, flags) if flag]
    rest = [item for item, flag in zip(items, flags) if not flag]
    rest_units = [unit for unit, flag in zip(units, flags) if not flag] if units is not None else [None] * len(rest)
    stride = max(1, len(rest) // (2 * len(long)))
    ordered: list[pytest.Item] = []
    taken = 0
    for index, item in enumerate(long):
        ordered.append(item)
        end = max(taken, min(len(rest), (index + 1) * stride))
        while 0 < end < len(rest) and rest_units[end] is not None and rest_units[end] == rest_units[end - 1]:
            end += 1  # not inside a golden program's tests
        ordered += rest[taken:end]
        taken = end
    return ordered + rest[taken:]


def _alive(pid: int, parent: int | None = None) -> bool:
    """Whether process `pid` still runs (a zombie, dead but not yet reaped, does not), and, given `parent`, is that
    process's child (where /proc cannot tell, alive is enough)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return parent is None
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return True  # no /proc: alive as far as kill() can tell
    state, ppid = stat.rsplit(")", 1)[-1].split()[:2]  # the fields after the command name
    return state != "Z" and (parent is None or int(ppid) == parent)


def _pid_in_name(path: Path, suffix: str) -> int | None:
    """The process id a `<worker>-<pid><suffix>` file in the log directory names, None when it names none."""
    pid = path.name[:-len(suffix)].rsplit("-", 1)[-1]
    return int(pid) if pid.isdigit() else None


def split_findings(nodeids: list[str], units: Mapping[str, str | None], count: int) -> list[list[str]]:
    """`nodeids` in at most `count` consecutive pieces of about equal rerun cost, never splitting the findings of one
    golden program (`units`: node id -> its program, or None): a piece compiles its programs again, so a program
    weighs one and a finding outside any program a quarter. The first piece is never empty."""
    blocks: list[list[str]] = []
    for nodeid in nodeids:
        unit = units.get(nodeid)
        if blocks and unit is not None and units.get(blocks[-1][-1]) == unit:
            blocks[-1].append(nodeid)
        else:
            blocks.append([nodeid])
    weights = [1.0 if units.get(block[0]) is not None else 0.25 for block in blocks]
    count = max(1, min(count, len(blocks)))
    target = sum(weights) / count
    pieces: list[list[str]] = [[]]
    weight = 0.0
    for block, block_weight in zip(blocks, weights):
        if pieces[-1] and weight + block_weight / 2 > target and len(pieces) < count:
            pieces.append([])
            weight = 0.0
        pieces[-1].extend(block)
        weight += block_weight
    return pieces


def is_isolated(item: pytest.Item) -> bool:
    return item.get_closest_marker("isolated") is not None


class TestTimer:
    """The per-test timeout: faulthandler's C timer, which fires even while plugin code holds the GIL.

    Re-arming faulthandler starts a new watchdog thread (~0.7 ms, paid by every one of ~10,000 tests), so the
    timer is armed for `TIMER_SLACK` x the test's timeout and re-armed only when less than the timeout is left
    (or the timeout differs): every test still gets its full timeout, and a hung test is killed between its
    timeout and TIMER_SLACK x its timeout after it began."""

    def __init__(self) -> None:
        self.deadline: float | None = None
        self.armed_for: float | None = None

    def start(self, timeout: float) -> None:
        now = time.monotonic()
        if self.deadline is not None and self.armed_for == timeout and self.deadline - now >= timeout:
            return
        span = timeout * TIMER_SLACK
        faulthandler.dump_traceback_later(span, exit=True, file=sys.stderr)
        self.deadline, self.armed_for = now + span, timeout

    def stop(self) -> None:
        faulthandler.cancel_dump_traceback_later()
        self.deadline = self.armed_for = None


class WorkerPlugin:
    def __init__(self, config: pytest.Config, role: str, spec: RunSpec | None, child_reports: str | None) -> None:
        self.config = config
        self.role = role
        self.spec = spec
        self.child_reports = Path(child_reports) if child_reports else None
        self.worker_id = getattr(config, "workerinput", {}).get("workerid", "main")
        self.log_path = Path(spec.log_dir) / f"{self.worker_id}.log" if spec else None
        self.deselected: dict[str, tuple[str, list[str], str]] = {}  # nodeid -> (reason, tags, by)
        self.done: list[str] = []
        self.shard_split: dict[str, Any] | None = None
        self.outside_shard: list[str] = []
        self.quick_sample: dict[str, int] | None = None
        self.timer = TestTimer()
        self.findings: dict[str, None] = {}  # node ids of this worker's findings, in the order they ran
        self.isolated: set[str] = set()  # marked isolated: each runs in a forked child
        self._contained: frozenset[str] = frozenset()  # CONTAINED_NODEIDS as last read
        self._contained_stamp: tuple[int, int] | None = None
        # findings of tests marked isolated: (outcome, cause), to tell which have an isolated twin that found the same
        self.child_findings: dict[str, tuple[Outcome, str]] = {}
        self.items: dict[str, pytest.Item] = {}
        self.units: dict[str, str | None] = {}  # node id -> its golden program (_in_run_order), once collected
        self.selected_ids = outcomes.IdPatterns(spec.select_ids if spec else ())  # --id
        # a confirmation pass's modules, by id prefix (each node id's module path names its module)
        self.wanted_modules = {outcomes.module_id_prefix(nodeid.split("::", 1)[0])
                               for nodeid in (spec.only_nodeids if spec else ())}
        self._phases: dict[str, dict[str, pytest.TestReport]] = {}  # the phase reports of the test under way
        if role == "worker":
            self._redirect_output()
            if spec is not None:
                api_calls.start_counting(Path(spec.log_dir), self.worker_id)  # its children inherit the directory
        if spec is not None and spec.quick and role in ("worker", "child"):
            # A sample holds a few cases of each pack: they run their own programs, not 128-case packs.
            from pjrt_cts.testing.corpus import use_own_programs

            use_own_programs()

    # -- process setup ------------------------------------------------------------------------

    def _redirect_output(self) -> None:
        """fd 1 and 2 (the plugin's printf/stderr too) -> the worker log, so a crash leaves a tail."""
        assert self.log_path is not None
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        sys.stdout.flush()
        sys.stderr.flush()
        fd = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.role == "worker" and self.spec is not None:
            api_calls.stop_counting()  # what is left counted belongs to no test

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if self.role in ("worker", "child"):
            # pytest's own faulthandler points at a copy of the original stderr; ours is the log.
            faulthandler.enable(file=sys.stderr, all_threads=True)

    # -- selection (workers only; the controller does not collect) ----------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> None:
        """The controller is started on an empty directory so that it never imports suite code
        (conftest files included); workers collect the selected layers instead."""
        if self.role == "worker" and self.spec is not None:
            if self.spec.suite_paths:
                session.config.args = list(self.spec.suite_paths)
            self.timer.start(max(COLLECTION_TIMEOUT_SECONDS, self.spec.timeout))

    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> bool | None:
        """A selection (`--id`, a confirmation pass's node ids) leaves out every suite module none of its tests can
        belong to: such a module is not imported, and its tests get no record, as with `--layers`. Collecting the
        golden-case module alone is ~14,000 items (seconds per worker) for a run that selects none of them."""
        if self.role != "worker" or self.spec is None or collection_path.suffix != ".py":
            return None
        prefix = outcomes.module_id_prefix(str(collection_path))
        if prefix is None:
            return None
        if self.spec.only_nodeids:
            return None if prefix in self.wanted_modules else True
        if self.selected_ids and not self.selected_ids.may_match_prefix(prefix):
            return True
        return None

    @pytest.hookimpl(trylast=True)  # after the suites' own conftest adjustments
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        if self.role != "worker" or self.spec is None:
            return
        if self.spec.only_nodeids:  # a confirmation pass (runner/confirmation.py): the rest is not this pass's
            wanted = set(self.spec.only_nodeids)
            items[:] = self._in_run_order([item for item in items if item.nodeid in wanted])
            return
        if self.spec.quick:
            items[:] = self._keep_quick_sample(items)
        if self.spec.shard:
            items[:] = self._keep_own_shard(items)
        done = set(self.spec.done_nodeids)
        keep: list[pytest.Item] = []
        deselected: list[pytest.Item] = []
        for item in items:
            if item.nodeid in done:
                self.done.append(item.nodeid)  # recorded by an earlier run: silently not rerun
                continue
            reason, by = self._deselection_reason(test_id_from_nodeid(item.nodeid))
            if reason:
                self.deselected[item.nodeid] = (reason, tags_of(item), by)
                deselected.append(item)
            else:
                keep.append(item)
        items[:] = self._in_run_order(keep)
        if deselected:
            config.hook.pytest_deselected(items=deselected)

    def _in_run_order(self, items: list[pytest.Item]) -> list[pytest.Item]:
        """`items` in the order xdist hands them out (spread_long_tests), each one's golden program kept in `units`
        for the collection payload the scheduler reads."""
        units = _program_units([item.nodeid for item in items])
        self.units = dict(zip((item.nodeid for item in items), units))
        return spread_long_tests(items, units)

    def _keep_quick_sample(self, items: list[pytest.Item]) -> list[pytest.Item]:
        """`--quick`: only the stratified sample of the mandatory contract runs; the rest is left out without a
        record (like another shard's tests), and the run says it is a sample (never CONFORMANT)."""
        from pjrt_cts.runner import quick

        ids = {item.nodeid: test_id_from_nodeid(item.nodeid) for item in items}
        chosen = quick.sample(ids.values(), quick.mandatory_ids())
        self.quick_sample = {"tests_in_sample": len(chosen), "collected": len(ids)}
        self.outside_shard.extend(sorted(test_id for test_id in ids.values() if test_id not in chosen))
        return [item for item in items if ids[item.nodeid] in chosen]

    def _keep_own_shard(self, items: list[pytest.Item]) -> list[pytest.Item]:
        """`--shard K/N`: the tests of other shards are left out without a record (not SKIP), so a shard's
        results hold only its own tests and shards merge by plain union. The plan covers every collected test,
        -k-deselected ones too (pytest deselected them before this hook), so that each -k SKIP is recorded by
        exactly one shard and every shard process computes the same plan."""
        assert self.spec is not None and self.spec.shard
        index, count = self.spec.shard
        nodeids = [item.nodeid for item in items] + list(self.deselected)
        ids = {nodeid: test_id_from_nodeid(nodeid) for nodeid in nodeids}
        from pjrt_cts.testing.corpus import program_unit_of

        assignment = shard.plan(ids.values(), count, self.spec.shard_durations, program_unit_of())
        self.shard_split = {"plan_digest": shard.plan_digest(assignment), "tests_in_split": len(assignment)}
        self.outside_shard = sorted(test_id for test_id, owner in assignment.items() if owner != index)
        for nodeid in [n for n in self.deselected if assignment[ids[n]] != index]:
            del self.deselected[nodeid]
        return [item for item in items if assignment[ids[item.nodeid]] == index]

    def _deselection_reason(self, test_id: str) -> tuple[str | None, str]:
        """(why the test is left out, by what: "--id" / "expectations"), or (None, "") when it runs."""
        assert self.spec is not None
        if self.selected_ids and not self.selected_ids.matches(test_id):
            return "not selected by --id", "--id"
        reason = skip_reason(test_id, self.spec.expectation_skips)
        return (reason, "expectations") if reason else (None, "")

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        if self.role != "worker":
            return
        done = set(self.done)
        for item in items:
            if item.nodeid in self.deselected or item.nodeid in done:
                continue
            option = self.config.option
            if getattr(option, "keyword", ""):
                reason, by = f"deselected by -k {option.keyword}", "-k"
            elif getattr(option, "markexpr", ""):
                reason, by = f"deselected by -m {option.markexpr}", "-m"
            else:
                reason, by = "deselected by the suite", "suite"
            self.deselected[item.nodeid] = (reason, tags_of(item), by)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Tell the controller what was deselected (it records those as SKIP) before xdist reports ids."""
        if self.role != "worker" or self.spec is None:
            return
        self.timer.stop()
        payload = {
            "items": [item.nodeid for item in session.items],
            "units": [self.units.get(item.nodeid) for item in session.items],
            "deselected": [[nodeid, reason, tags, by] for nodeid, (reason, tags, by) in self.deselected.items()],
            "done": self.done,
            "shard": self.shard_split,  # the plan's fingerprint, recorded in results.json for `merge`
            "outside_shard": self.outside_shard,  # collected but another shard's (or outside --quick): no record
            "quick": self.quick_sample,
        }
        path = Path(self.spec.log_dir) / f"{self.worker_id}.collection.json"
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(payload), encoding="utf-8")
        os.replace(tmp, path)
        # The collection lives as long as the worker and is never garbage: frozen, the collector stops walking its
        # millions of objects again and again while tests run. Frozen as it is: the little garbage collecting made
        # (~12,000 objects) is not worth a full pass over the rest (~0.35 s).
        gc.freeze()
        gc.enable()
        self.items = {item.nodeid: item for item in session.items}
        self.isolated = {item.nodeid for item in session.items if is_isolated(item)}
        if (self.spec.confirm_in_workers or self.isolated
                or any(starts_processes(item) for item in session.items)):
            from pjrt_cts.runner import forkserver

            # Before any test: the plugin is not loaded yet (forkserver.py). It forks isolated tests, reruns and the
            # children of `own_process` tests (the robustness layer's risky calls).
            forkserver.start(session)

    # -- running ------------------------------------------------------------------------------

    def runs_in_child(self, item: pytest.Item) -> bool:
        """Whether the worker runs `item` in a forked child: marked isolated, or rescheduled by the controller after a
        worker died in it (CONTAINED_NODEIDS)."""
        return is_isolated(item) or item.nodeid in self.contained()

    def contained(self) -> frozenset[str]:
        """CONTAINED_NODEIDS, read again only when the controller has written to it (one stat per test)."""
        if self.spec is None:
            return self._contained
        path = Path(self.spec.log_dir) / CONTAINED_NODEIDS
        try:
            stat = os.stat(path)
        except OSError:
            return self._contained
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp != self._contained_stamp:
            try:
                self._contained = frozenset(path.read_text(encoding="utf-8").split())
                self._contained_stamp = stamp
            except OSError:
                pass
        return self._contained

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        if self.role not in ("worker", "child") or self.spec is None:
            return (yield)
        timeout = timeout_for(item, self.spec)
        if self.role == "worker" and self.runs_in_child(item):
            timeout += ISOLATION_GRACE_SECONDS * 2  # backstop only: the child has its own timer
        if self.role == "worker":
            os.write(2, crashlog.start_marker(item.nodeid))
        self.timer.start(timeout)
        try:
            return (yield)
        finally:
            if nextitem is None or self.role != "worker":  # nothing queued: the worker may wait, untimed
                self.timer.stop()
            if self.role == "worker":
                os.write(2, crashlog.end_marker(item.nodeid))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        excinfo = call.excinfo
        kind, reason = classify_exception(excinfo.value) if excinfo is not None else (None, "")
        # These kinds' reports carry no traceback: NOT_SUPPORTED becomes a skip (below), and WARNING and
        # SHARED_DEVIATION of the call phase a pass (of setup they stay failed: a passed setup would let pytest run the
        # call phase). pytest formats the traceback of every failed phase (~1.5 ms): hide the exception from it while
        # it makes the report, which is then a pass with none; outer wrappers see the exception again.
        hidden = kind is Outcome.NOT_SUPPORTED or (kind in (Outcome.WARNING, Outcome.SHARED_DEVIATION)
                                                   and call.when == "call")
        if hidden:
            call.excinfo = None
        try:
            report = yield
        finally:
            call.excinfo = excinfo
        if excinfo is not None and kind is Outcome.NOT_SUPPORTED:
            report.outcome = "skipped"
            lineno = (item.location[1] or 0) + 1
            report.longrepr = (str(item.path), lineno, f"NOT_SUPPORTED: {reason}")
            # what it rests on: only a run-time UNIMPLEMENTED is confirmed and checked for consistency
            stash = item.stash.setdefault(DETAILS_KEY, {})
            stash["unsupported_by"] = unsupported_kind(excinfo.value)
            subject = getattr(excinfo.value, "subject", None)
            if subject:
                stash["unsupported_subject"] = str(subject)
        if excinfo is not None and isinstance(excinfo.value, BlockedByFailure) and excinfo.value.finding:
            item.stash.setdefault(DETAILS_KEY, {})["blocked_by"] = excinfo.value.finding  # the root cause's own test
        # FAIL, ERROR: the report stays failed; setup or call alike
        if excinfo is not None:
            api_calls.note_missing(item, excinfo.value)
        details, compatibility = item.stash.get(DETAILS_KEY, None), item.stash.get(COMPATIBILITY_KEY, None)
        # The test's PJRT calls ride on its last report, the teardown's (always sent: event_stream)
        counted = (api_calls.test_calls(item) if call.when == "teardown" and self.role in ("worker", "child")
                   and api_calls.counting() else {})
        info = PhaseInfo(outcome=kind, message=reason if kind is not None else "",
                         details=jsonable(details) if details else {},
                         compatibility=jsonable(compatibility) if compatibility else {},
                         tags=tuple(tags_of(item)) if call.when == "setup" else (), api_calls=counted)
        data = info.to_json()
        if data:
            report.pjrt_cts = data  # type: ignore[attr-defined]  # the record rides on pytest's report (xdist serialises it)
        return report

    # -- child: stream reports to the worker --------------------------------------------------

    def pytest_runtest_logstart(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        if self.role == "child":
            self._child_event({"event": "logstart", "nodeid": nodeid})

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.role == "child":
            data = self.config.hook.pytest_report_to_serializable(config=self.config, report=report)
            self._child_event({"event": "report", "data": data})
        elif self.role == "worker" and self.spec is not None and self.spec.confirm_in_workers:
            self._phases.setdefault(report.nodeid, {})[report.when] = report

    def pytest_runtest_logfinish(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        if self.role == "worker" and self.spec is not None and self.spec.confirm_in_workers:
            self._note_finding(nodeid, self._phases.pop(nodeid, {}))
            self._rerun_long_finding(nodeid)

    # -- worker: rerun its findings -------------------------------------------------------------

    def _note_finding(self, nodeid: str, phases: dict[str, pytest.TestReport]) -> None:
        """When a test has finished (its phase reports, a death's in a child included): whether its record will need a
        second observation is the controller's own rule (confirmation.needs_confirmation), applied to the record the
        controller will make of these reports."""
        if not phases or all(phase.passed for phase in phases.values()):
            return
        from pjrt_cts.runner.confirmation import cause_class, needs_confirmation
        from pjrt_cts.runner.records import make_record, result_of_phases

        record = make_record(nodeid, result_of_phases(phases), repro="")
        if needs_confirmation(record):
            if nodeid in self.isolated:  # marked isolated (so tagged): its twin's may be its second observation
                self.child_findings[nodeid] = (record.actual_outcome, cause_class(record))
            # Also on disk: if a later test kills this worker, another worker reruns these (_claim_orphans).
            with open(self._findings_path(), "a", encoding="utf-8") as handle:
                handle.write(nodeid + "\n")
            self.findings[nodeid] = None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        confirming = self.role == "worker" and self.spec is not None and self.spec.confirm_in_workers
        if confirming:
            self._marker(TESTING_SUFFIX).touch()
        try:
            result = yield
            if confirming:
                self.confirm_findings()
        finally:
            if confirming:
                self._marker(TESTING_SUFFIX).unlink(missing_ok=True)
                self._marker(ENDING_SUFFIX).unlink(missing_ok=True)
        return result

    def _marker(self, suffix: str) -> Path:
        """`<worker>-<pid><suffix>` in the log directory: this worker process's state (TESTING_SUFFIX, ENDING_SUFFIX)
        or its findings (FINDINGS_SUFFIX)."""
        assert self.spec is not None
        return Path(self.spec.log_dir) / f"{self.worker_id}-{os.getpid()}{suffix}"

    def _peers(self, suffix: str) -> int:
        """How many other worker processes of this run (children of the same controller, still running) are in the
        state `suffix` names. A marker left by a worker that died, or by an earlier run in the same directory whose
        process id is now another process's, does not count: a worker waits on its peers (_next_batch)."""
        assert self.spec is not None
        pids = (_pid_in_name(path, suffix) for path in Path(self.spec.log_dir).glob(f"*{suffix}"))
        return sum(1 for pid in pids if pid is not None and pid != os.getpid() and _alive(pid, parent=os.getppid()))

    def _findings_path(self) -> Path:
        return self._marker(FINDINGS_SUFFIX)

    def _claim_orphans(self) -> list[str]:
        """The findings of one worker that died (a later test crashed it; the test it died in is on its list too,
        controller.Controller._leave_for_rerun), claimed by an atomic rename: one list at a time, so that workers
        ending one after the other share the dead workers' lists. Two tests marked isolated that are each other's
        twin (confirmation.twin_of) are left to confirm each other. A worker that dies after the last one ends leaves
        its list to the confirmation pass."""
        from pjrt_cts.runner.confirmation import twin_of

        assert self.spec is not None
        for path in sorted(Path(self.spec.log_dir).glob(f"*{FINDINGS_SUFFIX}")):
            pid = _pid_in_name(path, FINDINGS_SUFFIX)
            if pid is None or pid == os.getpid() or _alive(pid):
                continue
            claimed = self._claim(path)
            paired = {nodeid for nodeid in claimed
                      if nodeid in self.isolated and twin_of(nodeid) in self.isolated and twin_of(nodeid) in claimed}
            left = [nodeid for nodeid in claimed if nodeid not in paired]
            if left:
                return left
        return []

    def confirm_findings(self) -> None:
        """After this worker's last test: rerun its findings, in order, in processes forked from the worker as it
        was after collection (no plugin loaded, nothing run: a fresh worker that runs only them), reports to
        `<worker>.confirmations.jsonl`, which the controller folds in as the findings' second observations (_rerun
        says how a death counts). When other workers have ended their tests, the findings are split in pieces
        (_share) that they rerun beside this one. Then the pieces other workers share and the findings of workers
        that died meanwhile (their lists, and the tests they died in), as long as a worker still runs tests
        (_next_batch). Two isolated twins that found the same thing confirm each other
        (confirmation.twin_observations): no rerun. Findings of long tests were rerun right after them
        (_rerun_long_finding)."""
        from pjrt_cts.runner import forkserver

        if forkserver.server() is None:
            return  # no process to fork reruns from: the confirmation pass reruns them all
        own = [nodeid for nodeid in self.findings if nodeid in self.items and not self._twin_confirms(nodeid)]
        # Shared before this worker counts as ended, so that a worker waiting for shares sees them (_next_batch).
        batch = self._share(own)
        self._marker(ENDING_SUFFIX).touch()
        self._marker(TESTING_SUFFIX).unlink(missing_ok=True)
        if not batch:
            batch = self._next_batch()
        while batch:
            if not self._rerun(batch):
                return  # what is left goes to the confirmation pass
            batch = self._next_batch()
        # Done: a worker ending later must not take this list for a dead worker's (the process exits soon).
        self._findings_path().unlink(missing_ok=True)

    def _share(self, own: list[str]) -> list[str]:
        """Split `own` findings when other workers have ended their tests: they rerun the later pieces
        (`<worker>-<pid>-<k>.shared-findings`, claimed by whichever is free first: _claim_shared) while this worker
        reruns the first. The last worker to end would otherwise rerun all of its findings while the others idle.
        A golden program's findings stay in one piece (a piece compiles the programs of its findings again)."""
        assert self.spec is not None
        helpers = self._peers(ENDING_SUFFIX)
        pieces = split_findings(own, self.units, min(1 + helpers, MAX_SHARED_PIECES)) if helpers else [own]
        log_dir = Path(self.spec.log_dir)
        for index, piece in enumerate(pieces[1:], start=1):
            name = f"{self.worker_id}-{os.getpid()}-{index}{SHARED_SUFFIX}"
            partial = log_dir / f".{name}.partial"
            partial.write_text("".join(nodeid + "\n" for nodeid in piece), encoding="utf-8")
            os.replace(partial, log_dir / name)  # whole or not at all: a claimer reads it at once
        return pieces[0]

    def _claim_shared(self) -> list[str]:
        """A piece of some worker's findings (_share) no other worker has claimed, claimed by an atomic rename."""
        assert self.spec is not None
        for path in sorted(Path(self.spec.log_dir).glob(f"*{SHARED_SUFFIX}")):
            claimed = self._claim(path)
            if claimed:
                return claimed
        return []

    def _claim(self, path: Path) -> list[str]:
        """The node ids `path` lists (once each, those this worker collected), claimed by renaming it to
        `<name>.claimed-by-<pid>`: atomic, so one worker only gets them. Empty when another worker claimed it first.
        The claimed file is removed once read: a rerun this worker does not finish is the confirmation pass's."""
        mine = path.with_name(f"{path.name}.claimed-by-{os.getpid()}")
        try:
            os.rename(path, mine)
        except OSError:
            return []
        listed = mine.read_text(encoding="utf-8").split()
        mine.unlink(missing_ok=True)
        return [nodeid for nodeid in dict.fromkeys(listed) if nodeid in self.items]

    def _next_batch(self) -> list[str]:
        """What this worker reruns next: a shared piece or a dead worker's list. While another worker still runs
        tests, wait for what it may share or leave behind (this worker has nothing else to do: the scheduler has no
        test left to give); once none does, whatever is left, or nothing."""
        while True:
            batch = self._claim_shared() or self._claim_orphans()
            if batch:
                return batch
            if not self._peers(TESTING_SUFFIX):
                # A worker shares before it counts as ended: one more look finds what the last one shared.
                return self._claim_shared() or self._claim_orphans()
            time.sleep(WAIT_POLL_SECONDS)

    def _rerun_long_finding(self, nodeid: str) -> None:
        """A finding of a test that declares its own timeout (a long one: spread_long_tests puts those in the first
        half of the order) is rerun right away, where the other workers' tests balance it, not at this worker's tail
        while the others have ended (the known-hang regression input waits its bound in each run). Other findings wait
        for the end, where one process reruns them all: each rerun process creates a client (~2 s on CUDA: rerun one
        by one, the robustness layer's findings cost 40 more clients than at the end)."""
        item = self.items.get(nodeid)
        if nodeid not in self.findings or item is None or item.get_closest_marker("timeout") is None:
            return
        if self._rerun([nodeid]):
            del self.findings[nodeid]

    def _rerun(self, nodeids: list[str]) -> bool:
        """Rerun `nodeids`, in order, in processes forked from the fork server, reports to
        `<worker>.confirmations.jsonl`. A test that runs in a child of its own reruns alone in one. A rerun that kills
        its process runs again first in a new one, and that death is its second observation (as an isolated test's
        is: nothing ran before it there); the rest go on in another. False when it could not finish (no fork server,
        or the process ended well without running them all: pytest's own trouble): the rest is the confirmation
        pass's."""
        from pjrt_cts.runner import forkserver

        server = forkserver.server()
        assert self.spec is not None
        if server is None:
            return False
        path = Path(self.spec.log_dir) / f"{self.worker_id}{CONFIRMATIONS_SUFFIX}"
        remaining = list(dict.fromkeys(nodeids))
        while remaining:
            # A test that ran in a child of its own (isolated, or contained after a death) reruns alone in one too:
            # the same conditions as its first observation (a process's state can decide what such a test sees).
            chunk = remaining[:1] if self.runs_in_child(self.items[remaining[0]]) else list(takewhile(
                lambda nodeid: not self.runs_in_child(self.items[nodeid]), remaining))
            later = remaining[len(chunk):]
            os.write(2, f"[pjrt-cts] confirming {len(chunk)} finding(s) in a forked process\n".encode())
            budget = sum(timeout_for(self.items[nodeid], self.spec) for nodeid in chunk) + ISOLATION_GRACE_SECONDS
            began = time.time()
            ended = server.run(chunk, path, budget)
            if ended is None:
                return False
            events = read_child_events(path)
            left = [nodeid for nodeid in chunk if nodeid not in events.finished()]
            if left and ended == (0, False):
                return False
            if left and left[0] != chunk[0]:
                remaining = left + later  # it died after other reruns: run it again, first in a new process
                continue
            if left:  # ran first in its process, so nothing before it there caused the death: its observation
                self._record_death(left[0], events, ended, began, path)
            remaining = left[1:] + later
        return True

    def _twin_confirms(self, nodeid: str) -> bool:
        """Whether `nodeid` and its twin (confirmation.twin_of) both found the same thing here, each in a child."""
        from pjrt_cts.runner.confirmation import twin_of

        found = self.child_findings.get(nodeid)
        return found is not None and self.child_findings.get(twin_of(nodeid) or "") == found

    def _record_death(self, nodeid: str, events: ChildEvents, ended: tuple[int, bool], began: float,
                      path: Path) -> None:
        """The rerun of `nodeid` killed its forked process: that death (CRASH, or TIMEOUT when it overran) is the
        finding's second observation, written to the reruns' file as the reports an isolated test's death gets."""
        from pjrt_cts.runner import isolation

        assert self.spec is not None and self.log_path is not None
        item = self.items[nodeid]
        returncode, killed = ended
        reports = list(events.reports.get(nodeid, {}).values())
        # from the end of the last test this process finished (the reruns before it) to now
        since = max((report.stop for phases in events.reports.values() for report in phases.values()
                     if report.stop >= began), default=began)
        elapsed = time.time() - since
        died = isolation.death_reports(item, reports, started=nodeid in events.started, returncode=returncode,
                                       killed=killed, elapsed=elapsed, timeout=timeout_for(item, self.spec),
                                       log_path=self.log_path, began=began)
        data = self.config.hook.pytest_report_to_serializable(config=self.config, report=died[-1])
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"event": "report", "data": data}, default=str) + "\n")
            handle.write(json.dumps({"event": "died", "nodeid": nodeid}) + "\n")

    def _child_event(self, event: dict[str, Any]) -> None:
        assert self.child_reports is not None
        # Each event reaches the OS before the test goes on, so a crash of this process loses none (no fsync: the
        # reader is the worker on the same machine, moments later, not a machine that restarted).
        with open(self.child_reports, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(event, default=str) + "\n")


@dataclass
class ChildEvents:
    """What a child streamed to its file (`_child_event`): the node ids it started, and their phase reports."""

    started: set[str] = field(default_factory=set)
    reports: dict[str, dict[str, pytest.TestReport]] = field(default_factory=dict)  # node id -> phase -> report
    died: set[str] = field(default_factory=set)  # ended by their process's death (WorkerPlugin._record_death)

    def finished(self) -> set[str]:
        return {nodeid for nodeid, phases in self.reports.items() if "teardown" in phases} | self.died


def read_child_events(path: Path) -> ChildEvents:
    """The events of a child's file, without a pytest config (the controller reads a worker's reruns after its
    session). A line cut short by a crash is skipped."""
    found = ChildEvents()
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return found
    for line in lines:
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if event.get("event") == "logstart":
            found.started.add(str(event.get("nodeid")))
        elif event.get("event") == "died":
            found.died.add(str(event.get("nodeid")))
        elif event.get("event") == "report" and event["data"].get("$report_type") == "TestReport":
            report = pytest.TestReport._from_json(event["data"])
            found.reports.setdefault(report.nodeid, {})[report.when] = report
    return found


class IsolationPlugin:
    """Runs `@pytest.mark.isolated` tests of a worker in a fresh subprocess (see isolation.py)."""

    def __init__(self, worker: WorkerPlugin) -> None:
        self.worker = worker

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        worker = self.worker
        if worker.role != "worker" or worker.spec is None or not worker.runs_in_child(item):
            return None
        from pjrt_cts.runner import isolation

        assert worker.log_path is not None
        isolation.run_in_fresh_process(item, nextitem, worker.spec, worker.log_path)
        return True

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.worker.role == "worker":
            from pjrt_cts.runner import forkserver, isolation

            forkserver.stop()
            isolation.discard_spare()
            _session_over.set()


# Set once a worker's session has ended well (pytest_unconfigure): xdist has had the worker's last word.
_session_over = threading.Event()


def _leave_without_freeing() -> None:
    """A worker whose session ended well leaves through the C library's `exit` after Python's exit handlers: the
    plugin's own exit handlers and destructors still run, but Python does not free the collection's millions of
    objects one by one first (~0.3 s at the end of a full run, while the controller waits for the last worker)."""
    if not _session_over.is_set():
        return  # ended otherwise: Python's own exit, with its status
    # The two handlers registered before this one (when the worker started) would run after it: logging's flush;
    # execnet's, which ends the gateways this process opened (a worker opens none).
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    try:
        libc = ctypes.PyDLL(None)  # holds the GIL: no other Python thread runs while the C library exits
    except OSError:
        return
    libc.exit(0)


def _program_units(nodeids: list[str]) -> list[str | None]:
    """Per collected item, the golden program it compiles (None for other tests): the scheduler hands a program's
    tests to one worker (pjrt_cts.runner.scheduling), so that the program is compiled once."""
    test_ids = [test_id_from_nodeid(nodeid) for nodeid in nodeids]
    if not any(test_id.startswith(shard.GOLDEN_PREFIXES) for test_id in test_ids):
        return [None] * len(nodeids)  # an isolated child or a selection without golden tests: no manifest read
    from pjrt_cts.testing.corpus import program_unit_of

    units = program_unit_of()
    keys = [shard.group_key(test_id, units) for test_id in test_ids]
    return [key if key.startswith("golden:") else None for key in keys]
