"""PJRT_Buffer_CopyRawToHost (0.57+): raw on-device bytes at an offset."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.testing import assert_bit_exact, expect_rejection, requires, sample_array, unsupported_if_unimplemented

COPY_RAW = "PJRT_Buffer_CopyRawToHost"

RANGES = [pytest.param(offset, size, id=f"offset{offset}-size{size}") for offset, size in [(0, 4), (8, 16), (60, 4), (4, 60)]]
OUT_OF_RANGE = [pytest.param(offset, size, id=name) for name, offset, size in
                [("past_end", 60, 8), ("offset_at_end", 64, 4), ("negative_offset", -4, 4), ("too_long", 0, 128)]]


pytestmark = requires("Buffer_CopyRawToHost")


@pytest.fixture
def raw_source(client: Any) -> tuple[Any, np.ndarray]:
    data = sample_array(np.float32, (16,), seed=9)
    return client.buffer_from_numpy(data), data


def test_copy_raw_of_whole_buffer(raw_source: tuple[Any, np.ndarray]) -> None:
    buffer, data = raw_source
    size = buffer.on_device_size
    with unsupported_if_unimplemented(COPY_RAW):
        raw = buffer.copy_raw_to_host(0, size)
    assert len(raw) == size
    if size == data.nbytes:  # a dense 1-D f32 buffer: its raw bytes are the host bytes
        assert_bit_exact(np.frombuffer(raw, data.dtype).reshape(data.shape), data,
                         f"PJRT_Buffer_CopyRawToHost(0, {size}) of a dense f32[16] buffer, read as its host array,")


@pytest.mark.parametrize(("offset", "size"), RANGES)
def test_copy_raw_sub_range_matches_whole(raw_source: tuple[Any, np.ndarray], offset: int, size: int) -> None:
    buffer, _ = raw_source
    with unsupported_if_unimplemented(COPY_RAW):
        whole = buffer.copy_raw_to_host(0, buffer.on_device_size)
    part = buffer.copy_raw_to_host(offset, size)
    assert part == whole[offset:offset + size], (
        f"PJRT_Buffer_CopyRawToHost(offset={offset}, size={size}) should equal bytes {offset}..{offset + size} of the "
        f"whole raw copy, but got {part.hex()} instead of {whole[offset:offset + size].hex()}"
    )


@pytest.mark.parametrize(("offset", "size"), OUT_OF_RANGE)
def test_copy_raw_out_of_range_is_an_error(raw_source: tuple[Any, np.ndarray], offset: int, size: int) -> None:
    buffer, _ = raw_source
    with unsupported_if_unimplemented(COPY_RAW):
        buffer.copy_raw_to_host(0, 4)  # the feature works at all: only then does a rejection mean something
    expect_rejection(lambda: buffer.copy_raw_to_host(offset, size), control=lambda: buffer.copy_raw_to_host(0, 4),
                     codes=("INVALID_ARGUMENT", "OUT_OF_RANGE"), function=COPY_RAW,
                     what=f"offset={offset}, size={size} of a {buffer.on_device_size}-byte buffer")
