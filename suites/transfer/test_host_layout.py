"""PJRT_Buffer_ToHostBuffer with host_layout: the host copy is written in the requested minor-to-major order."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.runtime import MemoryLayout
from pjrt_cts.testing import assert_bit_exact, optional_input, sample_array

# minor_to_major per rank; (rank-1, ..., 0) is the default row-major layout.
HOST_LAYOUTS = [pytest.param(m2m, id="m2m" + "".join(map(str, m2m))) for m2m in
                [(1, 0), (0, 1), (2, 1, 0), (0, 1, 2), (1, 0, 2), (0, 2, 1), (2, 0, 1)]]


def _expected_physical(data: np.ndarray, minor_to_major: tuple[int, ...]) -> np.ndarray:
    """The host copy in `minor_to_major` order: the array transposed major-most dim first, densified.

    Indices in mismatch messages are therefore physical (major-to-minor) coordinates.
    """
    major_to_minor = tuple(reversed(minor_to_major))
    return np.ascontiguousarray(data.transpose(major_to_minor))


def _read_with_layout(buffer: Any, layout: MemoryLayout, dtype: np.dtype, count: int) -> np.ndarray:
    out = np.empty(count, dtype)
    event = buffer.to_host_into(out.ctypes.data, out.nbytes, layout)
    event.wait()
    event.close()
    return out


@pytest.mark.parametrize("minor_to_major", HOST_LAYOUTS)
def test_to_host_buffer_honours_host_layout(client: Any, minor_to_major: tuple[int, ...]) -> None:
    shape = (3, 5) if len(minor_to_major) == 2 else (2, 3, 4)
    data = sample_array(np.int32, shape, seed=2)
    buffer = client.buffer_from_numpy(data)
    expected = _expected_physical(data, minor_to_major)
    got = _read_with_layout(buffer, MemoryLayout.tiled(minor_to_major), data.dtype, data.size).reshape(expected.shape)
    assert_bit_exact(got, expected,
              f"PJRT_Buffer_ToHostBuffer(host_layout=minor_to_major {list(minor_to_major)}) of s32{list(shape)}")


@pytest.mark.parametrize("minor_to_major", HOST_LAYOUTS)
def test_size_query_with_host_layout(client: Any, minor_to_major: tuple[int, ...]) -> None:
    shape = (3, 5) if len(minor_to_major) == 2 else (2, 3, 4)
    data = sample_array(np.int32, shape)
    size = client.buffer_from_numpy(data).host_size(MemoryLayout.tiled(minor_to_major))
    assert size == data.nbytes, (
        f"PJRT_Buffer_ToHostBuffer(dst=NULL, host_layout=minor_to_major {list(minor_to_major)}) of s32{list(shape)} "
        f"should report {data.nbytes} bytes (dense), but reported {size}"
    )


def test_to_host_buffer_with_strides_host_layout(client: Any) -> None:
    data = sample_array(np.float32, (3, 4))
    buffer = client.buffer_from_numpy(data)
    column_major = (data.itemsize, data.itemsize * data.shape[0])
    with optional_input("PJRT_Buffer_ToHostBuffer", "a Strides host_layout"):  # the XLA plugins take Tiled only
        got = _read_with_layout(buffer, MemoryLayout.strides(column_major), data.dtype, data.size).reshape(4, 3)
    assert_bit_exact(got, _expected_physical(data, (0, 1)), f"PJRT_Buffer_ToHostBuffer(host_layout=byte_strides {list(column_major)})")
