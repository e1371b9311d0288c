"""PJRT_Buffer_Bitcast (0.98+): the same on-device bytes as a buffer of another element type, shape and layout.

Contract (pjrt_c_api.h: "Bitcasts the buffer to a new type, dimensions, and layout"; a NULL `device_layout` means
"a default layout (not the source buffer's layout)"; the C++ PjRtBuffer::Bitcast it wraps: a metadata-only
operation of the same on-device size, the source is donated to the result). The result reads the source's bytes
under its new type and shape; whether the source survives is observable and must be told truthfully by
PJRT_Buffer_IsDeleted; a new shape of another byte size and a deleted source are errors.
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.runtime import BufferType, MemoryLayout, PjrtError, buffer_type_of
from pjrt_cts.testing import assert_bit_exact, expect_rejection, requires, sample_array, unsupported_if_unimplemented

BITCAST = "PJRT_Buffer_Bitcast"

pytestmark = requires("Buffer_Bitcast")

# (source dtype, source shape, new dtype, new shape): same byte count, the bytes reinterpreted.
REINTERPRETATIONS = {
    "f32_to_s32": (np.float32, (2, 3), np.int32, (2, 3)),
    "f32_to_u8": (np.float32, (2, 3), np.uint8, (2, 3, 4)),
    "f32_2x3_to_6": (np.float32, (2, 3), np.float32, (6,)),
    "s16_to_bf16": (np.int16, (8,), ml_dtypes.bfloat16, (2, 4)),
    "u8_to_f64": (np.uint8, (16,), np.float64, (2,)),
}


def bitcast(buffer: Any, element_type: Any, dims: tuple[int, ...], layout: Any = None) -> Any:
    with unsupported_if_unimplemented(BITCAST):
        return buffer.bitcast(element_type, dims, layout)


def source_bytes_as(data: np.ndarray, dtype: Any, shape: tuple[int, ...]) -> np.ndarray:
    """The bytes of a dense `data` seen as `shape` of `dtype` (little-endian, as the buffer holds them)."""
    return np.frombuffer(data.tobytes(), dtype=np.dtype(dtype)).reshape(shape)


@pytest.mark.parametrize("case", sorted(REINTERPRETATIONS))
def test_bitcast_result_reads_the_same_bytes(client: Any, case: str) -> None:
    source_dtype, source_shape, new_dtype, new_shape = REINTERPRETATIONS[case]
    data = sample_array(np.dtype(source_dtype), source_shape, seed=51)
    new_type = buffer_type_of(np.dtype(new_dtype))
    result = bitcast(client.buffer_from_numpy(data), new_type, new_shape)
    assert (result.element_type, result.dims) == (new_type, new_shape), (
        f"{BITCAST} to {new_type.name}{list(new_shape)} gave a buffer of {result.element_type!r}{list(result.dims)}")
    assert_bit_exact(result.to_numpy(), source_bytes_as(data, new_dtype, new_shape),
                     f"{BITCAST} of {np.dtype(source_dtype).name}{list(source_shape)} to {new_type.name}{list(new_shape)}, "
                     "read back, against the source's bytes reinterpreted,")


def test_source_deletion_is_reported_truthfully(client: Any) -> None:
    """The C++ contract donates the source; either way PJRT_Buffer_IsDeleted must tell what happened to it."""
    data = sample_array(np.float32, (2, 3), seed=52)
    source = client.buffer_from_numpy(data)
    result = bitcast(source, BufferType.S32, (2, 3))
    if source.is_deleted:
        try:
            source.to_numpy()
        except PjrtError:
            pass
        else:
            raise AssertionError(f"PJRT_Buffer_IsDeleted of the source of {BITCAST} is true, yet ToHostBuffer of it "
                                 "still succeeds")
    else:
        assert_bit_exact(source.to_numpy(), data, f"the source of {BITCAST}, not deleted (PJRT_Buffer_IsDeleted false),")
    assert_bit_exact(result.to_numpy(), source_bytes_as(data, np.int32, (2, 3)),
                     f"the result of {BITCAST} after its source was checked")


@requires("Buffer_GetMemoryLayout")
def test_layout_of_the_result_is_the_one_asked_or_the_default(client: Any) -> None:
    """NULL device_layout gives the default layout, "not the source buffer's"; an explicit one is taken as is."""
    data = sample_array(np.float32, (2, 3), seed=53)
    column_major = client.buffer_from_numpy(data, device_layout=MemoryLayout.tiled([0, 1]))
    default_layout = client.buffer_from_numpy(data).memory_layout.minor_to_major
    defaulted = bitcast(column_major, BufferType.F32, (2, 3))
    assert defaulted.memory_layout.minor_to_major == default_layout, (
        f"{BITCAST} with device_layout NULL of a column-major buffer should give the default layout "
        f"{list(default_layout)}, not the source's, but gave {list(defaulted.memory_layout.minor_to_major)} "
        "(PJRT_Buffer_GetMemoryLayout)")
    asked = bitcast(client.buffer_from_numpy(data), BufferType.F32, (2, 3), MemoryLayout.tiled([0, 1]))
    assert asked.memory_layout.minor_to_major == (0, 1), (
        f"{BITCAST} with device_layout minor_to_major [0, 1] gave a buffer of layout "
        f"{list(asked.memory_layout.minor_to_major)} (PJRT_Buffer_GetMemoryLayout)")


@pytest.mark.parametrize(("dims", "element_type"), [
    pytest.param((4, 2), BufferType.S32, id="more_bytes"), pytest.param((5,), BufferType.F32, id="fewer_bytes"),
    pytest.param((6,), BufferType.F16, id="narrower_type")])
def test_bitcast_to_another_byte_size_is_an_error(client: Any, dims: tuple[int, ...], element_type: BufferType) -> None:
    data = sample_array(np.float32, (2, 3), seed=54)
    with unsupported_if_unimplemented(BITCAST):
        client.buffer_from_numpy(data).bitcast(BufferType.S32, (6,)).close()  # the feature works at all
    expect_rejection(lambda: client.buffer_from_numpy(data).bitcast(element_type, dims),
                     control=lambda: client.buffer_from_numpy(data).bitcast(BufferType.S32, (2, 3)),
                     function=BITCAST, what=f"f32[2,3] (24 bytes) to {element_type.name}{list(dims)}")


def test_bitcast_of_a_deleted_buffer_is_an_error(client: Any) -> None:
    data = sample_array(np.float32, (4,), seed=55)
    deleted = client.buffer_from_numpy(data)
    deleted.delete()
    expect_rejection(lambda: bitcast(deleted, BufferType.S32, (4,)),
                     control=lambda: bitcast(client.buffer_from_numpy(data), BufferType.S32, (4,)),
                     codes=("INVALID_ARGUMENT", "FAILED_PRECONDITION"), function=BITCAST, what="a deleted buffer")
