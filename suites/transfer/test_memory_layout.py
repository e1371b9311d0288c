"""PJRT_Buffer_GetMemoryLayout (deprecated since 0.54 in favour of the LAYOUTS extension; still in the table).

Contract (pjrt_c_api.h: "Returns the memory layout of the data in this buffer"; the layout data is owned by the
buffer and lives as long as it): a buffer created with a device layout reports that layout; one created without
reports a layout of its rank (a permutation of its dimensions); the answer is the same on every call.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.runtime import MemoryLayout, MemoryLayoutType
from pjrt_cts.testing import requires, sample_array, unsupported_if_unimplemented

GET_LAYOUT = "PJRT_Buffer_GetMemoryLayout"

pytestmark = requires("Buffer_GetMemoryLayout")

DEVICE_LAYOUTS = {"row_major_2d": ((3, 4), (1, 0)), "column_major_2d": ((3, 4), (0, 1)),
                  "permuted_3d": ((2, 3, 4), (1, 2, 0)), "vector": ((5,), (0,))}


def layout_of(buffer: Any) -> Any:
    with unsupported_if_unimplemented(GET_LAYOUT):
        return buffer.memory_layout


@pytest.mark.parametrize("case", sorted(DEVICE_LAYOUTS))
def test_layout_is_the_device_layout_the_buffer_was_created_with(client: Any, case: str) -> None:
    shape, minor_to_major = DEVICE_LAYOUTS[case]
    buffer = client.buffer_from_numpy(sample_array(np.float32, shape, seed=81),
                                      device_layout=MemoryLayout.tiled(minor_to_major))
    reported = layout_of(buffer)
    assert (reported.type, reported.minor_to_major, reported.tile_dims) == (MemoryLayoutType.TILED, minor_to_major, ()), (
        f"{GET_LAYOUT} of a buffer created (BufferFromHostBuffer) with device layout minor_to_major "
        f"{list(minor_to_major)} should report it, but reports {reported}")


@pytest.mark.parametrize("shape", [pytest.param(shape, id="x".join(map(str, shape)) or "scalar")
                                   for shape in [(), (7,), (3, 4), (2, 3, 4), (2, 1, 3, 2)]])
def test_layout_without_a_device_layout_is_a_permutation_of_the_dimensions(client: Any, shape: tuple[int, ...]) -> None:
    reported = layout_of(client.buffer_from_numpy(sample_array(np.float32, shape, seed=82)))
    if reported.type == MemoryLayoutType.STRIDES:
        assert len(reported.byte_strides) == len(shape), (
            f"{GET_LAYOUT} of a rank-{len(shape)} buffer reports {len(reported.byte_strides)} byte strides")
        return
    assert reported.type == MemoryLayoutType.TILED, f"{GET_LAYOUT} reports layout type {reported.type!r}"
    assert sorted(reported.minor_to_major) == list(range(len(shape))), (
        f"{GET_LAYOUT} of a rank-{len(shape)} buffer reports minor_to_major {list(reported.minor_to_major)}, not a "
        f"permutation of its {len(shape)} dimensions")


def test_layout_is_the_same_on_every_call(client: Any) -> None:
    buffer = client.buffer_from_numpy(sample_array(np.float32, (3, 4), seed=83), device_layout=MemoryLayout.tiled([0, 1]))
    answers = {layout_of(buffer) for _ in range(3)}
    assert len(answers) == 1, f"{GET_LAYOUT} of one buffer answered differently: {answers}"
