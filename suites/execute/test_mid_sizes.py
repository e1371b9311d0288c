"""PJRT_LoadedExecutable_Execute of the core ops past one kernel tile: operands of 1 Ki to a few Mi elements.

Clause: each core op family in f32 -- dot_general (plain, ragged, batched, a long contracting dimension),
reduce (over one dimension and several), convolution, gather, scatter, transpose, sort and a prefix sum
(reduce_window) -- gives numpy's result at mid sizes, within the op class's tolerance (pjrt_cts.golden.tolerance).
The golden corpus is tiny-shaped, so a tiled kernel that is wrong only past its first tile passes every golden
case; these programs are big enough to need several tiles and small enough to run in seconds.

Inputs come from a seed (numpy PCG64) and the references from numpy in float64 at run time: nothing is stored.
Programs, data and the reasoning behind each tolerance: pjrt_cts.testing.mid_sizes. A mismatch names the largest
absolute and relative errors and the first differing index (pjrt_cts.golden.compare); outputs are read back into
poisoned host memory (pjrt_cts.runtime.readback).
"""
from __future__ import annotations

from pjrt_cts.testing import assert_matches_program, compiled_program, run
from pjrt_cts.testing.mid_sizes import mid_size_param


@mid_size_param()
def test_mid_size_matches_numpy(client, program):
    inputs = program.inputs()
    assert_matches_program(program, run(compiled_program(client, program), client, inputs), inputs,
                           f"PJRT_LoadedExecutable_Execute of {program.name}")
