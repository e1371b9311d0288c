"""Every PJRT_Buffer_Type the plugin supports survives BufferFromHostBuffer -> ToHostBuffer bit-exactly.

Sub-byte types (S4, U4, S2, U2, S1, U1, F4E2M1FN) are exchanged with the host one element per
byte, as ml_dtypes stores them; the plugin may pack them on the device.
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.runtime import BufferType
from pjrt_cts.runtime.dtypes import BUFFER_TYPE_TO_DTYPE, SHORT_NAMES
from pjrt_cts.testing import assert_bit_exact, requires, sample_array

# Every array element type of the 0.114 header (INVALID and TOKEN carry no host data); each requires the plugin
# to accept it (a probe upload: UNIMPLEMENTED, or any error where the plugin's API predates the type).
DATA_TYPES = [pytest.param(t, id=SHORT_NAMES[t], marks=requires(element_type=t))
              for t in BufferType if t not in (BufferType.INVALID, BufferType.TOKEN)]
ROUND_TRIP = "PJRT_Client_BufferFromHostBuffer -> PJRT_Buffer_ToHostBuffer"


def _bits(dtype: np.dtype) -> int:
    if dtype == np.bool_:
        return 8
    if dtype.kind in "iuc" or dtype.kind == "f":
        return dtype.itemsize * 8
    try:
        return int(ml_dtypes.iinfo(dtype).bits)
    except (ValueError, TypeError):
        return int(ml_dtypes.finfo(dtype).bits)


@pytest.mark.parametrize("buffer_type", DATA_TYPES)
def test_round_trip_is_bit_exact(client: Any, buffer_type: BufferType) -> None:
    dtype = np.dtype(BUFFER_TYPE_TO_DTYPE[buffer_type])
    data = sample_array(dtype, (4, 8))
    buffer = client.buffer_from_numpy(data)
    assert_bit_exact(buffer.to_numpy(), data, f"{ROUND_TRIP} of {buffer_type.name}[4,8]")


@pytest.mark.parametrize("buffer_type", DATA_TYPES)
def test_scalar_round_trip_is_bit_exact(client: Any, buffer_type: BufferType) -> None:
    dtype = np.dtype(BUFFER_TYPE_TO_DTYPE[buffer_type])
    data = sample_array(dtype, (), seed=3) if dtype != np.bool_ else np.array(True)
    buffer = client.buffer_from_numpy(data)
    assert_bit_exact(buffer.to_numpy(), data, f"{ROUND_TRIP} of {buffer_type.name}[] (rank 0)")


@pytest.mark.parametrize("buffer_type", DATA_TYPES)
def test_odd_length_round_trip_is_bit_exact(client: Any, buffer_type: BufferType) -> None:
    # 7 and 3x5 elements: sub-byte packing must not drop or smear the last, unpaired element.
    dtype = np.dtype(BUFFER_TYPE_TO_DTYPE[buffer_type])
    for shape in ((7,), (3, 5)):
        data = sample_array(dtype, shape, seed=len(shape))
        buffer = client.buffer_from_numpy(data)
        assert_bit_exact(buffer.to_numpy(), data, f"{ROUND_TRIP} of {buffer_type.name}{list(shape)}")


@pytest.mark.parametrize("buffer_type", DATA_TYPES)
def test_buffer_reports_element_type(client: Any, buffer_type: BufferType) -> None:
    dtype = np.dtype(BUFFER_TYPE_TO_DTYPE[buffer_type])
    buffer = client.buffer_from_numpy(sample_array(dtype, (2, 3)))
    reported = buffer.element_type
    assert reported == buffer_type, (
        f"PJRT_Buffer_ElementType of a {buffer_type.name} buffer should be {int(buffer_type)} ({buffer_type.name}), "
        f"but is {int(reported)} ({getattr(reported, 'name', 'not a PJRT_Buffer_Type')})"
    )


@pytest.mark.parametrize("buffer_type", DATA_TYPES)
def test_to_host_size_query_matches_host_array(client: Any, buffer_type: BufferType) -> None:
    dtype = np.dtype(BUFFER_TYPE_TO_DTYPE[buffer_type])
    data = sample_array(dtype, (3, 5))
    buffer = client.buffer_from_numpy(data)
    size = buffer.host_size()
    assert size == data.nbytes, (
        f"PJRT_Buffer_ToHostBuffer(dst=NULL) of {buffer_type.name}[3,5] should report {data.nbytes} bytes "
        f"(dense, one element per {dtype.itemsize} byte(s)), but reported {size}"
    )


@pytest.mark.parametrize("buffer_type", DATA_TYPES)
def test_on_device_size_holds_the_data(client: Any, buffer_type: BufferType) -> None:
    dtype = np.dtype(BUFFER_TYPE_TO_DTYPE[buffer_type])
    data = sample_array(dtype, (3, 5))
    buffer = client.buffer_from_numpy(data)
    minimum = -(-data.size * _bits(dtype) // 8)
    size = buffer.on_device_size
    assert size >= minimum, (
        f"PJRT_Buffer_OnDeviceSizeInBytes of {buffer_type.name}[3,5] should be >= {minimum} bytes "
        f"({data.size} x {_bits(dtype)} bits), but is {size}"
    )
