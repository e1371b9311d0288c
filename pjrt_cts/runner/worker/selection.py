"""Which collected tests a worker runs, in which order, and what it tells the controller about the rest.

The controller is started on an empty directory so that it never imports suite code (conftest files included);
workers collect the selected layers instead, keep what `--id`, `--quick`, `--shard` and the expectations' skips
leave, and write `<worker>.collection.json` (the deselected tests, which the controller records as SKIP, and each
test's golden program, which its scheduler reads) before xdist reports the collection.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pjrt_cts.judgment import outcomes
from pjrt_cts.judgment.outcomes import test_id_from_nodeid
from pjrt_cts.runner.controller.expectations import skip_reason
from pjrt_cts.runner.files import shard
from pjrt_cts.runner.spec import RunSpec
from pjrt_cts.runner.worker.order import program_units, spread_long_tests
from pjrt_cts.runner.worker.outcomes import tags_of


class Selection:
    def __init__(self, config: pytest.Config, spec: RunSpec, worker_id: str) -> None:
        self.config = config
        self.spec = spec
        self.worker_id = worker_id
        self.deselected: dict[str, tuple[str, list[str], str]] = {}  # nodeid -> (reason, tags, by)
        self.done: list[str] = []
        self.shard_split: dict[str, Any] | None = None
        self.outside_shard: list[str] = []
        self.quick_sample: dict[str, int] | None = None
        self.units: dict[str, str | None] = {}  # node id -> its golden program (_in_run_order), once collected
        self.selected_ids = outcomes.IdPatterns(spec.select_ids)  # --id
        # a confirmation pass's modules, by id prefix (each node id's module path names its module)
        self.wanted_modules = {outcomes.module_id_prefix(nodeid.split("::", 1)[0]) for nodeid in spec.only_nodeids}

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> None:
        if self.spec.suite_paths:
            session.config.args = list(self.spec.suite_paths)

    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> bool | None:
        """A selection (`--id`, a confirmation pass's node ids) leaves out every suite module none of its tests can
        belong to: such a module is not imported, and its tests get no record, as with `--layers`. Collecting the
        golden-case module alone is ~14,000 items (seconds per worker) for a run that selects none of them."""
        if collection_path.suffix != ".py":
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
        if self.spec.only_nodeids:  # a confirmation pass (controller/confirmation.py): the rest is not this pass's
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
        """`items` in the order xdist hands them out (order.spread_long_tests), each one's golden program kept in
        `units` for the collection payload the scheduler reads."""
        units = program_units([item.nodeid for item in items])
        self.units = dict(zip((item.nodeid for item in items), units))
        return spread_long_tests(items, units)

    def _keep_quick_sample(self, items: list[pytest.Item]) -> list[pytest.Item]:
        """`--quick`: only the stratified sample of the mandatory contract runs; the rest is left out without a
        record (like another shard's tests), and the run says it is a sample (never CONFORMANT)."""
        from pjrt_cts.runner.worker import quick

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
        assert self.spec.shard
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
        if self.selected_ids and not self.selected_ids.matches(test_id):
            return "not selected by --id", "--id"
        reason = skip_reason(test_id, self.spec.expectation_skips)
        return (reason, "expectations") if reason else (None, "")

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
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
