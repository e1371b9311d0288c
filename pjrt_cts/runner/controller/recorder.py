"""Controller side of a run: a pytest plugin in the `pjrt-cts run` process (xdist's DSession).

It never collects or runs tests. It folds the phase reports workers send into one record per test,
turns a worker death into CRASH/TIMEOUT for the test that was running, and appends every record to
results.jsonl the moment it is final.

Crash storms: CRASH_STORM_THRESHOLD consecutive CRASH/TIMEOUT records of one test module (nothing else of
that module recorded in between; expected crashes, XFAIL, do not count) make the rest of the module FAIL
"blocked by <the first of those crashes>" without running (a nodeid-prefix Block, pjrt_cts.runner.blocks,
that workers read before each test); the run's warnings say so.

A death confirmed in a child, not in a second session: a test a worker died in is rerun by a worker that ends later,
in a process forked from it (worker/reruns.py), when `reruns_in_workers`: its node id
joins the dead worker's findings list. A test rescheduled after a death (a grouped program's crash met by a case, a
death between tests) runs in a forked child (worker/routing.py: CONTAINED_NODEIDS): dying again costs a child, not another
worker start.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import pytest

from pjrt_cts.judgment.outcomes import Outcome, test_id_from_nodeid
from pjrt_cts.runner import api_calls, crashlog
from pjrt_cts.runner.controller import consistency
from pjrt_cts.runner.blocks import Block, BlockFile
from pjrt_cts.runner.controller.expectations import Expectations, apply_expectation
from pjrt_cts.runner.controller.progress import Progress
from pjrt_cts.runner.records import PhaseResult, make_record, result_of_phases
from pjrt_cts.judgment.results import JsonlWriter
from pjrt_cts.schema import TestRecord, merge_tallies

_WAIT_FOR_EXIT_STATUS_SECONDS = 10.0
CRASH_STORM_THRESHOLD = 8  # consecutive CRASH/TIMEOUT records of one test module
_STORM_OUTCOMES = (Outcome.CRASH, Outcome.TIMEOUT)


class Controller:
    def __init__(
        self,
        *,
        log_dir: Path,
        writer: JsonlWriter,
        expectations: Expectations,
        progress: Progress,
        repro: Callable[[str], str],
        timeout: float,
        workers: int,
        done_nodeids: set[str],
        done_ids: list[str],
        blocks: BlockFile | None = None,
        out_dir: Path | None = None,
        reruns_in_workers: bool = False,
    ) -> None:
        self.log_dir = log_dir
        self.out_dir = out_dir  # the run's --out: where workers mark grouped-program attempts
        self.reruns_in_workers = reruns_in_workers  # workers rerun findings after their last test (the main session)
        self.writer = writer
        self.expectations = expectations
        self.progress = progress
        self.repro = repro
        self.timeout = timeout
        self.workers = workers
        self.recorded: set[str] = set(done_nodeids)
        self.collected_ids: set[str] = set(done_ids)  # every id seen (run, deselected or done)
        self.pending_nodeids: set[str] = set()  # collected to run, not yet recorded
        self.phases: dict[str, dict[str, Any]] = {}
        self.last_word: dict[str, float] = {}  # worker id -> when it last reported (collection, a phase)
        self.rescheduled: Counter[str] = Counter()
        self._crash_report: pytest.TestReport | None = None  # xdist's report of the last dead worker's test
        self.collection_read: set[str] = set()
        self.deaths_without_progress = 0
        self.stop_reason: str | None = None
        self.incidents: list[str] = []
        self._total_set = False
        self._judged_by_consistency = False  # a record the consistency rules judge was seen
        self.first_collection: set[str] = set()
        self.collection: dict[str, Any] = {}  # the first worker's <worker>.collection.json payload
        self._done_before = len(done_nodeids)
        self.config: pytest.Config | None = None
        self.blocks = blocks
        self.storm_streaks: dict[str, list[TestRecord]] = {}  # module -> its current run of crashes
        self.storm_modules: set[str] = set()

    # -- collection ---------------------------------------------------------------------------

    def pytest_configure(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """`--dist load`, keeping each golden program's tests on one worker (pjrt_cts.runner.controller.scheduling)."""
        from pjrt_cts.runner.controller.scheduling import ProgramLoadScheduling

        return ProgramLoadScheduling(config, log, lambda: self.collection.get("units") or [])

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """The first worker's collection is the run's (xdist schedules it); later ones must match."""
        worker_id = node.gateway.id
        self.last_word[worker_id] = time.monotonic()
        if worker_id in self.collection_read:
            return
        self.collection_read.add(worker_id)
        if self._total_set:
            if set(ids) != self.first_collection:
                added = len(set(ids) - self.first_collection)
                missing = len(self.first_collection - set(ids))
                self.incidents.append(f"worker {worker_id} collected different tests ({added} more, {missing} fewer) "
                                      f"than the first worker; xdist ran only the first collection "
                                      f"(were the suites edited during the run?)")
            return
        self.first_collection = set(ids)
        path = self.log_dir / f"{worker_id}.collection.json"
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            payload = {"items": list(ids), "deselected": [], "done": []}
        self.collection = payload  # the session reads the shard split from it (results.json "shard")
        for nodeid in list(ids) + payload.get("done", []):
            self.collected_ids.add(test_id_from_nodeid(nodeid))
        # `--shard`: other shards' tests were collected too (an expectation matching only them is not unknown).
        self.collected_ids.update(payload.get("outside_shard", []))
        self.pending_nodeids |= {nodeid for nodeid in ids if nodeid not in self.recorded}
        skips = []
        for nodeid, reason, tags, *by in payload.get("deselected", []):
            self.collected_ids.add(test_id_from_nodeid(nodeid))
            if nodeid not in self.recorded:
                # `deselected_by`: the run left this test out on purpose (a partial selection, pjrt_cts.judgment.verdict)
                skipped = PhaseResult(Outcome.SKIP, message=reason, tags=tags,
                                      details={"deselected_by": by[0] if by else "?"})
                skips.append(make_record(nodeid, skipped, self.repro(nodeid)))
        self._total_set = True
        self.progress.done = self._done_before
        self.progress.set_total(self._done_before + len(self.pending_nodeids) + len(skips))
        for record in skips:
            self._emit(record, progress_made=False)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """A module that fails to import or collect: one ERROR record for it (xdist dedupes workers)."""
        if not report.failed or report.nodeid in self.recorded:
            return
        nodeid = report.nodeid
        test_id = test_id_from_nodeid(f"{nodeid}::<collection>")
        text = getattr(report, "longreprtext", "") or str(report.longrepr)
        failed = PhaseResult(Outcome.ERROR,
                             message=f"collection failed: {text.strip().splitlines()[-1] if text.strip() else ''}",
                             details={"traceback": text[-20000:]})
        self.collected_ids.add(test_id)
        self._emit(make_record(nodeid, failed, self.repro(nodeid), test_id=test_id), progress_made=False)

    # -- running ------------------------------------------------------------------------------

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report is self._crash_report:  # xdist's report of a dead worker's test, handled (pytest_handlecrashitem)
            self._crash_report = None
            return
        self.phases.setdefault(report.nodeid, {})[report.when] = report
        node = getattr(report, "node", None)
        if node is not None:
            self.last_word[node.gateway.id] = time.monotonic()
        if report.when == "teardown":  # a test's last report (logfinish follows; a test its worker made up may
            self._finish(report.nodeid)  # end at logfinish without one: an isolated child that died)

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        self._finish(nodeid)

    def _finish(self, nodeid: str) -> None:
        reports = self.phases.pop(nodeid, {})
        if nodeid in self.recorded:
            return
        self._emit(make_record(nodeid, result_of_phases(reports), self.repro(nodeid)))

    @pytest.hookimpl(tryfirst=True)
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched: Any) -> None:
        """A worker died while `crashitem` was pending (xdist logs `report` for it next, which is ignored): the
        test's CRASH or TIMEOUT record, unless the death was not the test's own. A worker that died between tests
        (its log's last marker is an end marker) makes xdist blame the next pending test, which never started: that
        test runs again elsewhere instead (once), as does a golden case that met its grouped program's crash."""
        self._crash_report = report
        node = getattr(report, "node", None)
        if node is None or self.rescheduled[crashitem] >= 1 or not hasattr(sched, "mark_test_pending"):
            self._record_worker_crash(report)
            return
        segment = crashlog.read_segment(self._log_path(node), crashitem)
        if segment.started:
            if not self._record_grouped_program_crash(crashitem, node, sched):
                self._record_worker_crash(report)
            return
        self.rescheduled[crashitem] += 1
        returncode = self._returncode(node)
        _, words = crashlog.describe_death(returncode, segment)
        self.progress.note(f"warning: worker {node.gateway.id} {words} between tests; rescheduling {crashitem}")
        self._contain(crashitem)
        sched.mark_test_pending(crashitem)

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        if error is None:
            return
        segment = crashlog.read_segment(self._log_path(node), "")
        if segment.running is None and self._total_set:
            _, words = crashlog.describe_death(self._returncode(node), segment)
            self.incidents.append(f"worker {node.gateway.id} {words} outside any test (e.g. while unloading "
                                  f"the plugin); see {self._log_path(node)}")
        if self._total_set and not self.pending_nodeids:
            self._stop_replacing_workers()  # nothing left to run: do not replace the dead worker
            return
        self.deaths_without_progress += 1
        if self.deaths_without_progress > max(4, 2 * self.workers):
            self.stop_reason = (f"{self.deaths_without_progress} workers died in a row without finishing a test "
                                f"(see {self.log_dir})")
            dsession = self._stop_replacing_workers()
            if dsession is not None and not dsession.shouldstop:
                dsession.shouldstop = self.stop_reason

    # -- helpers ------------------------------------------------------------------------------

    def _stop_replacing_workers(self) -> Any:
        """xdist clones a dead worker until its restart budget is spent: spend it now."""
        dsession = self.config.pluginmanager.getplugin("dsession") if self.config else None
        if dsession is not None:
            dsession._max_worker_restart = 0
        return dsession

    def _log_path(self, node: Any) -> Path:
        return self.log_dir / f"{node.gateway.id}.log"

    @staticmethod
    def _popen(node: Any) -> Any:
        """The worker's process as execnet started it (None when execnet does not say)."""
        return getattr(getattr(getattr(node, "gateway", None), "_io", None), "popen", None)

    @classmethod
    def _returncode(cls, node: Any) -> int | None:
        """The dead worker's exit status (negative: killed by that signal), from execnet's Popen."""
        popen = cls._popen(node)
        if popen is None:
            return None
        try:
            return popen.wait(timeout=_WAIT_FOR_EXIT_STATUS_SECONDS)
        except Exception:  # noqa: BLE001 - an exit status we cannot get is reported as unknown
            return None

    def _record_grouped_program_crash(self, crashitem: str, node: Any, sched: Any) -> bool:
        """A golden case's test died inside its grouped program: the crash is recorded once, under the program's
        identity (pjrt_cts.testing.corpus.grouped_program_crash), and the case runs again on its own program --
        so the same plugin gets the same records whichever layers are selected."""
        from pjrt_cts.testing.corpus import grouped_program_crash

        program_nodeid = grouped_program_crash(crashitem, self.out_dir) if self.out_dir is not None else None
        if program_nodeid is None:
            return False
        self.rescheduled[crashitem] += 1
        if program_nodeid not in self.recorded:
            if program_nodeid not in self.pending_nodeids and self.progress.total is not None:
                self.progress.set_total(self.progress.total + 1)  # its layer is not selected: one record more
            crash = self._crash_result(crashitem, node)
            crash.details["met_by"] = test_id_from_nodeid(crashitem)
            self.collected_ids.add(test_id_from_nodeid(program_nodeid))
            self._leave_for_rerun(self._emit(make_record(program_nodeid, crash, self.repro(program_nodeid))), node)
        self.progress.note(f"warning: {test_id_from_nodeid(crashitem)} met the crash of its grouped program; "
                           "recorded for the program, running the case on its own program")
        self._contain(crashitem)
        sched.mark_test_pending(crashitem)
        return True

    def _record_worker_crash(self, report: pytest.TestReport) -> None:
        node = getattr(report, "node", None)
        record = self._emit(make_record(report.nodeid, self._crash_result(report.nodeid, node), self.repro(report.nodeid)))
        self._leave_for_rerun(record, node)

    def _leave_for_rerun(self, record: TestRecord | None, node: Any) -> None:
        """A finding a worker died in joins that worker's findings list (`<worker>-<pid>.findings`), which a worker
        ending later claims and reruns in a forked child: the second observation, without a second session."""
        from pjrt_cts.runner.controller.confirmation import needs_confirmation
        from pjrt_cts.runner.worker.rerun_sharing import FINDINGS_SUFFIX

        if not self.reruns_in_workers or record is None or node is None or not needs_confirmation(record):
            return
        pid = getattr(self._popen(node), "pid", None)
        if pid is None:
            return  # the confirmation pass reruns it
        with open(self.log_dir / f"{node.gateway.id}-{pid}{FINDINGS_SUFFIX}", "a", encoding="utf-8") as handle:
            handle.write(record.nodeid + "\n")

    def _contain(self, nodeid: str) -> None:
        """Workers run `nodeid` in a forked child from now on (worker/routing.py: CONTAINED_NODEIDS)."""
        from pjrt_cts.runner.worker.routing import CONTAINED_NODEIDS

        with open(self.log_dir / CONTAINED_NODEIDS, "a", encoding="utf-8") as handle:
            handle.write(nodeid + "\n")

    def _crash_result(self, nodeid: str, node: Any) -> PhaseResult:
        """CRASH (or TIMEOUT) of the test `nodeid` that was running when `node`'s worker died."""
        worker_id = node.gateway.id if node is not None else "?"
        returncode = self._returncode(node) if node is not None else None
        segment = crashlog.read_segment(self.log_dir / f"{worker_id}.log", nodeid)
        partial = result_of_phases(self.phases.pop(nodeid, {}))
        started = self.last_word.get(worker_id)  # the test began after its worker's last report (no logstart comes)
        duration = time.monotonic() - started if started is not None else 0.0
        signal_name, words = crashlog.describe_death(returncode, segment)
        where = crashlog.where(segment)
        if segment.timed_out:
            outcome = Outcome.TIMEOUT
            limit = segment.timeout_seconds or self.timeout
            headline = f"exceeded the {limit:g}s per-test timeout{where}; worker {worker_id} was stopped"
        else:
            outcome = Outcome.CRASH
            headline = f"worker {worker_id} {words}{where} while running this test"
        details = dict(partial.details)
        details.update({"worker": worker_id, "exit_status": returncode, "signal": signal_name,
                        "function": segment.pjrt_function, "stderr_tail": segment.tail()})
        pid = getattr(self._popen(node), "pid", None) if node is not None else None
        calls = partial.api_calls  # what the dead worker counted since its last test (this one's calls) is on disk
        if pid is not None:
            calls = merge_tallies(calls, api_calls.dead_worker_calls(self.log_dir, worker_id, pid))
        return PhaseResult(outcome, message=crashlog.crash_message(headline, segment), duration=duration,
                           details=details, tags=partial.tags, compatibility=partial.compatibility, api_calls=calls)

    def _emit(self, record: TestRecord, progress_made: bool = True) -> TestRecord | None:
        """Write `record` (its expectation applied) unless its test has one already; the record written, or None."""
        if record.nodeid in self.recorded:
            return None
        record = apply_expectation(record, self.expectations)
        self.writer.write(record)
        self.recorded.add(record.nodeid)
        self.pending_nodeids.discard(record.nodeid)
        self._judged_by_consistency = self._judged_by_consistency or consistency.judges(record)
        if self._judged_by_consistency and self._total_set and not self.pending_nodeids:
            consistency.preload()  # every test recorded: read what judging needs while the workers rerun findings
        if progress_made:
            self.deaths_without_progress = 0
        self.progress.add(record)
        self._watch_for_storm(record)
        return record

    def _watch_for_storm(self, record: TestRecord) -> None:
        module = record.nodeid.split("::", 1)[0]
        if module in self.storm_modules or self.blocks is None or "::" not in record.nodeid:
            return
        if record.outcome not in _STORM_OUTCOMES:
            self.storm_streaks.pop(module, None)
            return
        streak = self.storm_streaks.setdefault(module, [])
        streak.append(record)
        if len(streak) < CRASH_STORM_THRESHOLD:
            return
        self.storm_modules.add(module)
        first = streak[0]
        message = first.message.strip()
        headline = message.splitlines()[0] if message else ""
        reason = (f"crash storm: {len(streak)} consecutive CRASH/TIMEOUT in {module} "
                  f"(first {first.id}: {headline[:160]}); the rest of the module is not run")
        self.blocks.add(Block(finding=first.id, reason=reason, nodeid_prefixes=(module + "::",), kind="crash storm"))
        self.incidents.append(reason)
        self.progress.note(f"warning: {reason}")
