"""Resource use: create/destroy cycles must not grow the process (no leaks per object).

Resident set size is read from /proc/self/statm after a warm-up (allocator pools, caches and lazy
initialisation settle there); growth over the measured cycles must stay under the stated bound.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

from pjrt_cts.testing import environment_lacks, requires, unsupported_if_unimplemented

RSS_GROWTH_BOUND_MIB = 64.0  # buffers and deserialized executables
COMPILE_GROWTH_BOUND_MIB = 32.0  # fewer cycles: ~650 KiB per compile at most
BUFFER_CYCLES = 10_000
# Executable lifetimes go through DeserializeAndLoad (~1-2 ms each on XLA CPU, vs ~30-80 ms per compile):
# 10,000 would take 10-50 s on 2 busy cores, so 2,000 here plus 50 real compiles below.
EXECUTABLE_CYCLES = 2_000
COMPILE_CYCLES = 50
WARM_UP_FRACTION = 0.1

PROGRAM = """module @rss_probe {
  func.func public @main(%arg0: tensor<16xf32>) -> tensor<16xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<16xf32>
    return %0 : tensor<16xf32>
  }
}
"""


def rss_mib() -> float:
    if not os.path.exists("/proc/self/statm"):
        environment_lacks("RSS checks need /proc/self/statm (Linux)")
    with open("/proc/self/statm") as handle:
        resident_pages = int(handle.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def measure_growth(cycles: int, cycle: Any) -> tuple[float, float, float]:
    """(RSS after warm-up, RSS at the end, growth) in MiB over `cycles` calls of `cycle`."""
    warm_up = max(1, int(cycles * WARM_UP_FRACTION))
    for _ in range(warm_up):
        cycle()
    start = rss_mib()
    for _ in range(cycles):
        cycle()
    end = rss_mib()
    return start, end, end - start


def _check(what: str, cycles: int, start: float, end: float, growth: float, record: Any,
           bound: float = RSS_GROWTH_BOUND_MIB) -> None:
    record.details(cycles=cycles, rss_start_mib=round(start, 2), rss_end_mib=round(end, 2),
                   growth_mib=round(growth, 2), bound_mib=bound, growth_per_cycle_bytes=round(growth * 2**20 / cycles, 1))
    assert growth < bound, (
        f"resource contract: {cycles} {what} cycles grew RSS by {growth:.1f} MiB ({start:.1f} -> {end:.1f}), "
        f"bound {bound:.0f} MiB ({growth * 2**20 / cycles:.0f} bytes per cycle)")


@pytest.mark.timeout(300)
@pytest.mark.nondeterministic("resident-memory growth measured on a live process")
def test_buffer_create_destroy_cycles_do_not_leak(client: Any, device: Any, record: Any) -> None:
    """10,000 x PJRT_Client_BufferFromHostBuffer + PJRT_Buffer_Destroy (64-byte f32 buffers)."""
    data = np.arange(16, dtype=np.float32)

    def cycle() -> None:
        client.buffer_from_numpy(data, device).close()

    _check("buffer create/destroy", BUFFER_CYCLES, *measure_growth(BUFFER_CYCLES, cycle), record)


@pytest.mark.timeout(300)
@pytest.mark.nondeterministic("resident-memory growth measured on a live process")
@requires("Executable_Serialize", "Executable_DeserializeAndLoad")
def test_executable_create_destroy_cycles_do_not_leak(client: Any, record: Any) -> None:
    """2,000 x PJRT_Executable_DeserializeAndLoad + PJRT_LoadedExecutable_Destroy of a tiny program
    (deserialization creates a full loaded executable without paying a compile each time; 10,000 would
    cost 10-20 s on 2 cores)."""
    with client.compile(PROGRAM) as executable, unsupported_if_unimplemented("PJRT_Executable_Serialize"):
        serialized = executable.serialize()

    def cycle() -> None:
        client.deserialize_executable(serialized).close()

    with unsupported_if_unimplemented("PJRT_Executable_DeserializeAndLoad"):
        cycle()
    _check("executable deserialize/destroy", EXECUTABLE_CYCLES, *measure_growth(EXECUTABLE_CYCLES, cycle), record)


@pytest.mark.timeout(300)
@pytest.mark.nondeterministic("resident-memory growth measured on a live process")
def test_compile_destroy_cycles_do_not_leak(client: Any, record: Any) -> None:
    """50 x PJRT_Client_Compile + PJRT_LoadedExecutable_Destroy, bound 32 MiB (compiles take ~30-80 ms:
    10,000 would be many minutes; the deserialize test covers many more executable lifetimes)."""

    def cycle() -> None:
        client.compile(PROGRAM).close()

    _check("compile/destroy", COMPILE_CYCLES, *measure_growth(COMPILE_CYCLES, cycle), record,
           bound=COMPILE_GROWTH_BOUND_MIB)
