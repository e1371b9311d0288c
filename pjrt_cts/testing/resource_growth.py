"""Resident-memory growth of this process over repeated create/destroy cycles (leak checks).

Resident set size is read from /proc/self/statm after a warm-up (allocator pools, caches and lazy initialisation
settle there); the caller bounds the growth over the measured cycles.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import os
from typing import Any, Callable

from pjrt_cts.testing.requirements import environment_lacks

WARM_UP_FRACTION = 0.1


def rss_mib() -> float:
    """This process's resident set in MiB; SKIP "test environment" where /proc/self/statm is missing."""
    if not os.path.exists("/proc/self/statm"):
        environment_lacks("RSS checks need /proc/self/statm (Linux)")
    with open("/proc/self/statm") as handle:
        resident_pages = int(handle.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def measure_growth(cycles: int, cycle: Callable[[], None]) -> tuple[float, float, float]:
    """(RSS after warm-up, RSS at the end, growth) in MiB over `cycles` calls of `cycle`."""
    warm_up = max(1, int(cycles * WARM_UP_FRACTION))
    for _ in range(warm_up):
        cycle()
    start = rss_mib()
    for _ in range(cycles):
        cycle()
    end = rss_mib()
    return start, end, end - start


def assert_growth_below(what: str, cycles: int, measured: tuple[float, float, float], bound_mib: float,
                        record_details: Callable[..., Any]) -> None:
    """Record the measurement in the test's details and fail when the growth reaches `bound_mib`."""
    __tracebackhide__ = True
    start, end, growth = measured
    record_details(cycles=cycles, rss_start_mib=round(start, 2), rss_end_mib=round(end, 2), growth_mib=round(growth, 2),
                   bound_mib=bound_mib, growth_per_cycle_bytes=round(growth * 2**20 / cycles, 1))
    assert growth < bound_mib, (
        f"resource contract: {cycles} {what} cycles grew RSS by {growth:.1f} MiB ({start:.1f} -> {end:.1f}), "
        f"bound {bound_mib:g} MiB ({growth * 2**20 / cycles:.0f} bytes per cycle)")
