"""Which of a worker's tests run in a child of their own, and the fork server those children come from.

A test runs in a forked child (isolation.py) when it is marked `@pytest.mark.isolated`, or when the controller
rescheduled it after a worker died in (or just before) it: the controller lists those in CONTAINED_NODEIDS, so that
dying again costs a child, not another worker."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from pjrt_cts.runner.spec import RunSpec
from pjrt_cts.runner.worker import forkserver, isolation

CONTAINED_NODEIDS = "contained.nodeids"  # in the log directory, written by the controller (controller/recorder.py)


def is_isolated(item: pytest.Item) -> bool:
    return item.get_closest_marker("isolated") is not None


def starts_processes(item: pytest.Item) -> bool:
    """Marked `own_process`: the test starts processes of its own that load the plugin (forked from the fork server
    where there is one: forkserver.py)."""
    return item.get_closest_marker("own_process") is not None


class ChildRouting:
    """In a worker: sends each test that runs in a child there, and keeps the fork server for the worker's life."""

    def __init__(self, spec: RunSpec, log_path: Path) -> None:
        self.spec = spec
        self.log_path = log_path
        self._contained: frozenset[str] = frozenset()  # CONTAINED_NODEIDS as last read
        self._contained_stamp: tuple[int, int] | None = None

    def runs_in_child(self, item: pytest.Item) -> bool:
        """Whether the worker runs `item` in a forked child: marked isolated, or rescheduled by the controller after a
        worker died in it (CONTAINED_NODEIDS)."""
        return is_isolated(item) or item.nodeid in self.contained()

    def contained(self) -> frozenset[str]:
        """CONTAINED_NODEIDS, read again only when the controller has written to it (one stat per test)."""
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

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Before any test (the plugin is not loaded yet: forkserver.py), when a test will need it: isolated tests,
        reruns, and the children of `own_process` tests (the robustness layer's risky calls)."""
        if (self.spec.confirm_in_workers or any(is_isolated(item) for item in session.items)
                or any(starts_processes(item) for item in session.items)):
            forkserver.start(session)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        if not self.runs_in_child(item):
            return None
        isolation.run_in_fresh_process(item, nextitem, self.spec, self.log_path)
        return True

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        forkserver.stop()
        isolation.discard_spare()
