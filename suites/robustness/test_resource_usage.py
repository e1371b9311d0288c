"""Resource use: create/destroy cycles must not grow the process (no leaks per object).

Resident set size is read from /proc/self/statm after a warm-up (allocator pools, caches and lazy
initialisation settle there: pjrt_cts.testing.resource_growth); growth over the measured cycles must stay under
the stated bound.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.testing import assert_growth_below, measure_growth, requires, unsupported_if_unimplemented

RSS_GROWTH_BOUND_MIB = 64.0  # buffers and deserialized executables
COMPILE_GROWTH_BOUND_MIB = 32.0  # fewer cycles: ~650 KiB per compile at most
BUFFER_CYCLES = 10_000
# Executable lifetimes go through DeserializeAndLoad (~1-2 ms each on XLA CPU, vs ~30-80 ms per compile):
# 10,000 would take 10-50 s on 2 busy cores, so 2,000 here plus 50 real compiles below.
EXECUTABLE_CYCLES = 2_000
COMPILE_CYCLES = 50

PROGRAM = """module @rss_probe {
  func.func public @main(%arg0: tensor<16xf32>) -> tensor<16xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<16xf32>
    return %0 : tensor<16xf32>
  }
}
"""


@pytest.mark.timeout(300)
@pytest.mark.nondeterministic("resident-memory growth measured on a live process")
def test_buffer_create_destroy_cycles_do_not_leak(client: Any, device: Any, record: Any) -> None:
    """10,000 x PJRT_Client_BufferFromHostBuffer + PJRT_Buffer_Destroy (64-byte f32 buffers)."""
    data = np.arange(16, dtype=np.float32)

    def cycle() -> None:
        client.buffer_from_numpy(data, device).close()

    assert_growth_below("buffer create/destroy", BUFFER_CYCLES, measure_growth(BUFFER_CYCLES, cycle),
                        RSS_GROWTH_BOUND_MIB, record.details)


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
    assert_growth_below("executable deserialize/destroy", EXECUTABLE_CYCLES, measure_growth(EXECUTABLE_CYCLES, cycle),
                        RSS_GROWTH_BOUND_MIB, record.details)


@pytest.mark.timeout(300)
@pytest.mark.nondeterministic("resident-memory growth measured on a live process")
def test_compile_destroy_cycles_do_not_leak(client: Any, record: Any) -> None:
    """50 x PJRT_Client_Compile + PJRT_LoadedExecutable_Destroy, bound 32 MiB (compiles take ~30-80 ms:
    10,000 would be many minutes; the deserialize test covers many more executable lifetimes)."""

    def cycle() -> None:
        client.compile(PROGRAM).close()

    assert_growth_below("compile/destroy", COMPILE_CYCLES, measure_growth(COMPILE_CYCLES, cycle),
                        COMPILE_GROWTH_BOUND_MIB, record.details)
