"""The xdist scheduler keeps a golden program's tests in one batch (pjrt_cts.runner.controller.scheduling)."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pjrt_cts.runner.controller.scheduling import ProgramLoadScheduling


class _Node:
    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.sent: list[list[int]] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.append(list(indices))

    def shutdown(self) -> None:
        self.shutting_down = True


def _scheduler(units: list[Any]) -> tuple[ProgramLoadScheduling, list[_Node]]:
    options = {"tx": ["popen", "popen"], "maxschedchunk": None}
    config = SimpleNamespace(getvalue=options.get, getoption=options.get)
    scheduler = ProgramLoadScheduling(config, None, lambda: units)
    nodes = [_Node("gw0"), _Node("gw1")]
    ids = [f"t{i}" for i in range(len(units))]
    for node in nodes:
        scheduler.add_node(node)
        scheduler.add_node_collection(node, ids)
    return scheduler, nodes


def test_a_batch_never_ends_inside_a_program() -> None:
    # 32 tests, 2 workers: xdist's first batches are 4 tests, which would end inside p1 (tests 2-5)
    units = [None, None, "golden:p1", "golden:p1", "golden:p1", "golden:p1", None, "golden:p2"] * 4
    scheduler, nodes = _scheduler(units)
    scheduler.schedule()
    sent = [batch for node in nodes for batch in node.sent]
    assert [len(batch) for batch in sent] == [6, 4]  # the first batch ran on to the end of p1
    for batch in sent:
        last = batch[-1]
        assert last + 1 >= len(units) or units[last] is None or units[last + 1] != units[last], batch
    # every test is sent once, in order within a batch
    pending = list(scheduler.pending)
    assert sorted([i for batch in sent for i in batch] + pending) == list(range(len(units)))


def test_without_units_it_is_plain_load_scheduling() -> None:
    scheduler, nodes = _scheduler([None] * 40)
    scheduler.schedule()
    assert [len(batch) for node in nodes for batch in node.sent] == [5, 5]
