"""How xdist hands tests to workers: its `load` scheduling, never splitting one golden program's tests.

xdist sends each worker batches of consecutive tests. The suites keep a golden program's tests consecutive (its
compile test, then its cases' execute tests: `testing.corpus.keep_programs_together`), but a batch boundary can
still fall inside them, and then two workers compile the same pack: cheap on the default plugin, seconds per pack
on CUDA, where a 16-worker run made many such compiles (issue 29; docs/bench.md). `ProgramLoadScheduling` extends every batch
to the end of the program its last test belongs to; the units come from the first worker's collection
(`<worker>.collection.json`, key "units", written by the worker plugin).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from xdist.scheduler.load import LoadScheduling


class ProgramLoadScheduling(LoadScheduling):
    """`--dist load` whose batches end at a golden program's boundary."""

    def __init__(self, config: Any, log: Any, units: Callable[[], Sequence[str | None]]) -> None:
        super().__init__(config, log)
        self._units_source = units
        self._units: Sequence[str | None] | None = None

    def _unit(self, index: int) -> str | None:
        if self._units is None:
            units = list(self._units_source())
            self._units = units if self.collection is not None and len(units) == len(self.collection) else []
        return self._units[index] if index < len(self._units) else None

    def _send_tests(self, node: Any, num: int) -> None:
        count = min(num, len(self.pending))
        if count:
            unit = self._unit(self.pending[count - 1])
            while unit is not None and count < len(self.pending) and self._unit(self.pending[count]) == unit:
                count += 1
        super()._send_tests(node, count)
