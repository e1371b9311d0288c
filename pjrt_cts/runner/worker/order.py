"""The order a worker hands its collected tests to xdist in: long tests spread over the first half, each golden
program's tests kept together (the controller's scheduler, controller/scheduling.py, hands a program to one worker)."""
from __future__ import annotations

from typing import Sequence

import pytest

from pjrt_cts.judgment.outcomes import test_id_from_nodeid
from pjrt_cts.runner.files import shard

# Markers of tests that are long on some plugin: a declared timeout (fuzz batches, the known-hang input, multi-node
# runs, resource cycles), or processes of its own that load the plugin (`own_process`: the robustness layer's risky
# calls, a deserialize in a new process), which take seconds where creating a client does (~2 s per CUDA client with
# 16 workers on one GPU). Isolated tests keep their place: spread too, they cost the default plugin's 2-core run
# ~1.5 idle core-seconds (docs/bench.md).
LONG_TEST_MARKERS = ("timeout", "own_process")


def is_long(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(name) is not None for name in LONG_TEST_MARKERS)


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


def program_units(nodeids: list[str]) -> list[str | None]:
    """Per collected item, the golden program it compiles (None for other tests): the scheduler hands a program's
    tests to one worker (pjrt_cts.runner.controller.scheduling), so that the program is compiled once."""
    test_ids = [test_id_from_nodeid(nodeid) for nodeid in nodeids]
    if not any(test_id.startswith(shard.GOLDEN_PREFIXES) for test_id in test_ids):
        return [None] * len(nodeids)  # an isolated child or a selection without golden tests: no manifest read
    from pjrt_cts.testing.corpus import program_unit_of

    units = program_unit_of()
    keys = [shard.group_key(test_id, units) for test_id in test_ids]
    return [key if key.startswith("golden:") else None for key in keys]
