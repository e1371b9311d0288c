"""A worker reruns its own findings after its last test: the second observation every finding needs before the
verdict (controller/confirmation.py), without a second session. Pieces of them, and a dead worker's, go to workers
that have ended (rerun_sharing.py)."""
from __future__ import annotations

import json
import os
import time
from itertools import takewhile
from pathlib import Path
from typing import Callable, Generator

import pytest

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.runner.files.child_reports import CONFIRMATIONS_SUFFIX, ChildEvents, read_child_events
from pjrt_cts.runner.spec import RunSpec
from pjrt_cts.runner.worker import forkserver
from pjrt_cts.runner.worker.rerun_sharing import RerunSharing
from pjrt_cts.runner.worker.routing import is_isolated
from pjrt_cts.runner.worker.timing import ISOLATION_GRACE_SECONDS, timeout_for


class Reruns:
    """Notes the worker's findings as they come; reruns them, in processes forked from the fork server, at its end."""

    def __init__(self, config: pytest.Config, spec: RunSpec, worker_id: str, log_path: Path,
                 runs_in_child: Callable[[pytest.Item], bool], units: Callable[[], dict[str, str | None]]) -> None:
        self.config = config
        self.spec = spec
        self.log_path = log_path
        self.runs_in_child = runs_in_child
        self.units = units  # node id -> golden program, from the worker's selection
        self.sharing = RerunSharing(Path(spec.log_dir), worker_id)
        self.path = Path(spec.log_dir) / f"{worker_id}{CONFIRMATIONS_SUFFIX}"
        self.items: dict[str, pytest.Item] = {}
        self.findings: dict[str, None] = {}  # node ids of this worker's findings, in the order they ran
        # findings of tests marked isolated: (outcome, cause), to tell which have an isolated twin that found the same
        self.child_findings: dict[str, tuple[Outcome, str]] = {}
        self._phases: dict[str, dict[str, pytest.TestReport]] = {}  # the phase reports of the test under way

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.items = {item.nodeid: item for item in session.items}
        self.sharing.collected = self.items
        self.sharing.units = self.units()
        self.sharing.isolated = {item.nodeid for item in session.items if is_isolated(item)}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._phases.setdefault(report.nodeid, {})[report.when] = report

    def pytest_runtest_logfinish(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        self._note_finding(nodeid, self._phases.pop(nodeid, {}))
        self._rerun_long_finding(nodeid)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        self.sharing.testing()
        try:
            result = yield
            self.confirm_findings()
        finally:
            self.sharing.ended()
        return result

    def _note_finding(self, nodeid: str, phases: dict[str, pytest.TestReport]) -> None:
        """When a test has finished (its phase reports, a death's in a child included): whether its record will need a
        second observation is the controller's own rule (confirmation.needs_confirmation), applied to the record the
        controller will make of these reports."""
        if not phases or all(phase.passed for phase in phases.values()):
            return
        from pjrt_cts.runner.controller.confirmation import cause_class, needs_confirmation
        from pjrt_cts.runner.records import make_record, result_of_phases

        record = make_record(nodeid, result_of_phases(phases), repro="")
        if needs_confirmation(record):
            if nodeid in self.sharing.isolated:  # marked isolated (so tagged): its twin's may be its second observation
                self.child_findings[nodeid] = (record.actual_outcome, cause_class(record))
            self.sharing.note_finding(nodeid)
            self.findings[nodeid] = None

    def confirm_findings(self) -> None:
        """After this worker's last test: rerun its findings, in order, in processes forked from the worker as it
        was after collection (no plugin loaded, nothing run: a fresh worker that runs only them), reports to
        `<worker>.confirmations.jsonl`, which the controller folds in as the findings' second observations (_rerun
        says how a death counts). Then the pieces other workers share and the findings of workers that died
        meanwhile, as long as a worker still runs tests (rerun_sharing.next_batch). Two isolated twins that found the
        same thing confirm each other (confirmation.twin_observations): no rerun. Findings of long tests were rerun
        right after them (_rerun_long_finding)."""
        if forkserver.server() is None:
            return  # no process to fork reruns from: the confirmation pass reruns them all
        own = [nodeid for nodeid in self.findings if nodeid in self.items and not self._twin_confirms(nodeid)]
        # Shared before this worker counts as ended, so that a worker waiting for shares sees them.
        batch = self.sharing.share(own)
        self.sharing.ending()
        if not batch:
            batch = self.sharing.next_batch()
        while batch:
            if not self._rerun(batch):
                return  # what is left goes to the confirmation pass
            batch = self.sharing.next_batch()
        self.sharing.done()

    def _rerun_long_finding(self, nodeid: str) -> None:
        """A finding of a test that declares its own timeout (a long one: order.spread_long_tests puts those in the
        first half of the order) is rerun right away, where the other workers' tests balance it, not at this worker's
        tail while the others have ended (the known-hang regression input waits its bound in each run). Other findings
        wait for the end, where one process reruns them all: each rerun process creates a client (~2 s on CUDA)."""
        item = self.items.get(nodeid)
        if nodeid not in self.findings or item is None or item.get_closest_marker("timeout") is None:
            return
        if self._rerun([nodeid]):
            del self.findings[nodeid]

    def _rerun(self, nodeids: list[str]) -> bool:
        """Rerun `nodeids`, in order, in processes forked from the fork server. A test that runs in a child of its own
        reruns alone in one (the same conditions as its first observation). A rerun that kills its process runs again
        first in a new one, and that death is its second observation (as an isolated test's is: nothing ran before it
        there); the rest go on in another. False when it could not finish (no fork server, or the process ended well
        without running them all: pytest's own trouble): the rest is the confirmation pass's."""
        server = forkserver.server()
        if server is None:
            return False
        remaining = list(dict.fromkeys(nodeids))
        while remaining:
            chunk = remaining[:1] if self.runs_in_child(self.items[remaining[0]]) else list(takewhile(
                lambda nodeid: not self.runs_in_child(self.items[nodeid]), remaining))
            later = remaining[len(chunk):]
            os.write(2, f"[pjrt-cts] confirming {len(chunk)} finding(s) in a forked process\n".encode())
            budget = sum(timeout_for(self.items[nodeid], self.spec) for nodeid in chunk) + ISOLATION_GRACE_SECONDS
            began = time.time()
            ended = server.run(chunk, self.path, budget)
            if ended is None:
                return False
            events = read_child_events(self.path, self.config)
            left = [nodeid for nodeid in chunk if nodeid not in events.finished()]
            if left and ended == (0, False):
                return False
            if left and left[0] != chunk[0]:
                remaining = left + later  # it died after other reruns: run it again, first in a new process
                continue
            if left:  # ran first in its process, so nothing before it there caused the death: its observation
                self._record_death(left[0], events, ended, began)
            remaining = left[1:] + later
        return True

    def _twin_confirms(self, nodeid: str) -> bool:
        """Whether `nodeid` and its twin (confirmation.twin_of) both found the same thing here, each in a child."""
        from pjrt_cts.runner.controller.confirmation import twin_of

        found = self.child_findings.get(nodeid)
        return found is not None and self.child_findings.get(twin_of(nodeid) or "") == found

    def _record_death(self, nodeid: str, events: ChildEvents, ended: tuple[int, bool], began: float) -> None:
        """The rerun of `nodeid` killed its forked process: that death (CRASH, or TIMEOUT when it overran) is the
        finding's second observation, written to the reruns' file as the reports an isolated test's death gets."""
        from pjrt_cts.runner.worker import isolation

        item = self.items[nodeid]
        returncode, killed = ended
        reports = list(events.reports.get(nodeid, {}).values())
        # from the end of the last test this process finished (the reruns before it) to now
        since = max((report.stop for phases in events.reports.values() for report in phases.values()
                     if report.stop >= began), default=began)
        died = isolation.death_reports(item, reports, started=nodeid in events.started, returncode=returncode,
                                       killed=killed, elapsed=time.time() - since, timeout=timeout_for(item, self.spec),
                                       log_path=self.log_path, began=began)
        data = self.config.hook.pytest_report_to_serializable(config=self.config, report=died[-1])
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"event": "report", "data": data}, default=str) + "\n")
            handle.write(json.dumps({"event": "died", "nodeid": nodeid}) + "\n")
