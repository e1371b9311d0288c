"""Worker side of blocks (pjrt_cts.runner.blocks): pytest plugin passed with `-p` by `pjrt-cts run`.

In workers and isolated children only (never the controller, never a bare pytest run), and only when the run
wrote blocks:
  - a test whose fixture closure uses a blocked fixture, or whose node id is under a blocked prefix (a crash
    storm's module), is reported FAIL "blocked by <finding>: ..." without running (no setup, no isolated child);
  - the blocked PJRT functions of the plugin under test are refused by a call hook (pjrt_cts.runtime.hooks):
    `Plugin.function(name)` (every slot call goes through it) and `Plugin.load` (for a library that died loading)
    raise BlockedByFailure instead of calling the plugin. The test that reached the call FAILs as blocked even if
    it caught the exception.
Workers re-read out/.run/blocks.json before each test when it changed (the controller adds crash-storm blocks
while the run goes on).
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Generator

import pytest

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.runner.blocks import LOAD_FUNCTION, Block, BlockFile
from pjrt_cts.schema import run_context

if TYPE_CHECKING:  # the controller loads this module too, and never the runtime
    from pjrt_cts.runtime import Plugin
    from pjrt_cts.runtime.hooks import SlotCallable

PLUGIN_NAME = "pjrt-cts-blocking"


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Registered after the worker plugin's objects (routing.ChildRouting), so that its runtest hook comes first."""
    in_worker = hasattr(config, "workerinput") or bool(config.getoption("pjrt_cts_child_reports", None))
    if not in_worker or config.pluginmanager.has_plugin(PLUGIN_NAME):
        return
    path = run_context().blocks_file
    if path:
        config.pluginmanager.register(BlockingPlugin(Path(path)), PLUGIN_NAME)


class BlockingPlugin:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.blocks: list[Block] = []
        self._stamp: tuple[int, int] | None = None
        self._guarded = False
        self.refused: tuple[Block, str] | None = None  # a call refused during the current test, not yet reported

    # -- reading the blocks ---------------------------------------------------------------------

    def refresh(self) -> None:
        try:
            stat = self.path.stat()
            stamp: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            stamp = None
        if stamp == self._stamp:
            return
        self._stamp = stamp
        self.blocks = BlockFile.read(self.path).blocks if stamp else []
        if any(block.functions for block in self.blocks):
            self._install_guard()

    def block_before_start(self, item: pytest.Item) -> Block | None:
        fixtures = set(getattr(item, "fixturenames", ()))
        for block in self.blocks:
            if fixtures.intersection(block.fixtures) or (block.nodeid_prefixes and item.nodeid.startswith(block.nodeid_prefixes)):
                return block
        return None

    def block_for_call(self, function: str, library: Path) -> Block | None:
        if not any(function in block.functions for block in self.blocks):
            return None
        resolved = str(library.resolve())
        for block in self.blocks:
            if function in block.functions and (not block.plugin_path or block.plugin_path == resolved):
                return block
        return None

    # -- hooks ----------------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        self.refresh()
        self.refused = None
        block = self.block_before_start(item)
        if block is None:
            return None
        _report_blocked(item, nextitem, block)
        return True

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        refusal = getattr(call.excinfo.value, "refused_call", None) if call.excinfo is not None else None
        if refusal is not None:  # also a session fixture's cached refusal, re-raised for a later test
            self.refused = refusal
        if self.refused is not None and report.when in ("setup", "call"):
            block, function = self.refused
            self.refused = None
            message = block.message(function)
            info = dict(getattr(report, "pjrt_cts", None) or {})
            info.update(outcome=Outcome.FAIL.value, message=message)
            info["details"] = {**(info.get("details") or {}), "blocked_by": block.finding}
            report.pjrt_cts = info  # type: ignore[attr-defined]  # the record rides on pytest's report (xdist serialises it)
            if not report.failed:  # the test swallowed the refusal: it did not earn its outcome
                report.outcome = "failed"
                report.longrepr = message
        return report

    # -- the guard ------------------------------------------------------------------------------

    def _install_guard(self) -> None:
        if self._guarded:
            return
        self._guarded = True
        from pjrt_cts.runtime import Plugin

        Plugin.add_call_hook(_BlockGuard(self))

    def refuse(self, block: Block, function: str) -> Exception:
        from pjrt_cts.testing.outcomes import BlockedByFailure  # a FAIL in any phase (outcomes.classify_exception)

        self.refused = (block, function)
        error = BlockedByFailure(block.message(function))
        error.refused_call = (block, function)  # type: ignore[attr-defined]  # the refusal rides on the error for the report hook
        return error


class _BlockGuard:
    """A call hook (pjrt_cts.runtime.hooks.CallHook) that refuses the blocked functions and loads of the run (the
    blocks file, as its BlockingPlugin last read it)."""

    def __init__(self, blocking: BlockingPlugin) -> None:
        self.blocking = blocking

    def before_load(self, path: Path) -> None:
        block = self.blocking.block_for_call(LOAD_FUNCTION, path)
        if block is not None:
            raise self.blocking.refuse(block, f"loading {path.name}")

    def slot_function(self, plugin: Plugin, name: str, function: SlotCallable) -> SlotCallable:
        block = self.blocking.block_for_call("PJRT_" + name, Path(plugin.path))
        if block is not None:
            raise self.blocking.refuse(block, "PJRT_" + name)
        return function


def _report_blocked(item: pytest.Item, nextitem: pytest.Item | None, block: Block) -> None:
    """The test's whole protocol, without running it: one failed setup report that names the block."""
    from pjrt_cts.runner.worker.outcomes import tags_of

    ihook = item.ihook
    ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    now = time.time()
    message = block.message()
    report = pytest.TestReport(
        nodeid=item.nodeid, location=item.location, keywords={name: 1 for name in item.keywords},
        outcome="failed", longrepr=message, when="setup", duration=0.0, start=now, stop=now, user_properties=[],
    )
    report.pjrt_cts = {  # type: ignore[attr-defined]  # the record rides on pytest's report
        "outcome": Outcome.FAIL.value, "message": message, "details": {"blocked_by": block.finding},
                       "tags": tags_of(item)}
    ihook.pytest_runtest_logreport(report=report)
    ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    try:  # fixtures the previous test left set up that the next one does not need (as pytest would)
        item.session._setupstate.teardown_exact(nextitem)
    except Exception:  # noqa: BLE001 - a teardown error belongs to an earlier test; nothing to attribute it to here
        pass
