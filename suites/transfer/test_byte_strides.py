"""PJRT_Client_BufferFromHostBuffer with byte_strides: the buffer holds the logical array, whatever the host layout."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.testing import assert_bit_exact, optional_input, sample_array

STRIDE_DTYPES = [pytest.param(np.dtype(t), id=n) for t, n in
                 [(np.float32, "f32"), (np.int8, "s8"), (np.float64, "f64"), (np.complex64, "c64"), (np.uint16, "u16")]]
PERMUTATIONS = [pytest.param(p, id="perm" + "".join(map(str, p))) for p in
                [(1, 0), (0, 2, 1), (1, 0, 2), (2, 1, 0), (1, 2, 0), (2, 0, 1)]]
NEGATIVE_AXES = [pytest.param(axes, id=name) for axes, name in
                 [((0,), "axis0"), ((1,), "axis1"), ((0, 1), "both_axes")]]
FROM = "PJRT_Client_BufferFromHostBuffer(byte_strides={strides}) -> PJRT_Buffer_ToHostBuffer"


def _base(dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    return sample_array(dtype, shape, seed=11)


def _upload_strided(client: Any, view: np.ndarray, optional: bool) -> Any:
    """Upload `view` with its numpy byte strides. `optional` (negative or zero strides, which not every plugin
    takes): UNIMPLEMENTED is NOT_SUPPORTED, INVALID_ARGUMENT a WARNING (pjrt_cts.testing.optional_input)."""
    if not optional:
        return client.buffer_from_numpy(view, byte_strides=view.strides)
    with optional_input("PJRT_Client_BufferFromHostBuffer", f"byte_strides {list(view.strides)}"):
        return client.buffer_from_numpy(view, byte_strides=view.strides)


@pytest.mark.parametrize("dtype", STRIDE_DTYPES)
@pytest.mark.parametrize("permutation", PERMUTATIONS)
def test_transposed_byte_strides(client: Any, permutation: tuple[int, ...], dtype: np.dtype) -> None:
    base = _base(dtype, (2, 3, 4)[: len(permutation)] if len(permutation) == 3 else (3, 5))
    view = base.transpose(permutation)
    buffer = _upload_strided(client, view, optional=False)
    assert_bit_exact(buffer.to_numpy(), np.ascontiguousarray(view), FROM.format(strides=list(view.strides)))


@pytest.mark.parametrize("dtype", STRIDE_DTYPES)
def test_explicit_dense_byte_strides(client: Any, dtype: np.dtype) -> None:
    data = _base(dtype, (3, 4))
    buffer = client.buffer_from_numpy(data, byte_strides=data.strides)
    assert_bit_exact(buffer.to_numpy(), data, FROM.format(strides=list(data.strides)))


@pytest.mark.parametrize("dtype", STRIDE_DTYPES)
def test_padded_row_byte_strides(client: Any, dtype: np.dtype) -> None:
    view = _base(dtype, (4, 7))[:, :5]  # rows padded by 2 elements
    buffer = _upload_strided(client, view, optional=False)
    assert_bit_exact(buffer.to_numpy(), np.ascontiguousarray(view), FROM.format(strides=list(view.strides)))


@pytest.mark.parametrize("dtype", STRIDE_DTYPES)
def test_every_other_element_byte_strides(client: Any, dtype: np.dtype) -> None:
    view = _base(dtype, (6, 8))[::2, ::2]
    buffer = _upload_strided(client, view, optional=False)
    assert_bit_exact(buffer.to_numpy(), np.ascontiguousarray(view), FROM.format(strides=list(view.strides)))


@pytest.mark.parametrize("axes", NEGATIVE_AXES)
def test_negative_byte_strides(client: Any, axes: tuple[int, ...]) -> None:
    # The header allows negative strides; `data` then points at the first logical element.
    base = _base(np.dtype(np.float32), (3, 4))
    view = base[tuple(slice(None, None, -1) if axis in axes else slice(None) for axis in range(2))]
    buffer = _upload_strided(client, view, optional=True)
    assert_bit_exact(buffer.to_numpy(), np.ascontiguousarray(view), FROM.format(strides=list(view.strides)))


def test_zero_byte_strides_broadcast(client: Any) -> None:
    row = _base(np.dtype(np.float32), (4,))
    view = np.lib.stride_tricks.as_strided(row, shape=(3, 4), strides=(0, row.itemsize))
    buffer = _upload_strided(client, view, optional=True)
    assert_bit_exact(buffer.to_numpy(), np.ascontiguousarray(view), FROM.format(strides=list(view.strides)))
