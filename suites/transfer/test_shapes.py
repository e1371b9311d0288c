"""Round trips and shape queries over ranks 0..6, zero-size dimensions and one >= 256 MiB array."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.testing import assert_bit_exact, sample_array

RANK_SHAPES = [pytest.param(shape, id=f"rank{len(shape)}") for shape in
               [(), (5,), (3, 4), (2, 3, 4), (2, 1, 3, 2), (1, 2, 3, 2, 2), (2, 1, 2, 1, 3, 2)]]
ZERO_SIZE_SHAPES = [pytest.param(shape, id="x".join(map(str, shape))) for shape in
                    [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0), (1, 0, 1, 0)]]
LARGE_BYTES = 256 * 1024 * 1024
ROUND_TRIP = "PJRT_Client_BufferFromHostBuffer -> PJRT_Buffer_ToHostBuffer"


@pytest.mark.parametrize("shape", RANK_SHAPES)
def test_round_trip_by_rank(client: Any, shape: tuple[int, ...]) -> None:
    data = sample_array(np.float32, shape, seed=len(shape))
    assert_bit_exact(client.buffer_from_numpy(data).to_numpy(), data, f"{ROUND_TRIP} of f32{list(shape)}")


@pytest.mark.parametrize("shape", RANK_SHAPES)
def test_dimensions_match_host_shape(client: Any, shape: tuple[int, ...]) -> None:
    buffer = client.buffer_from_numpy(sample_array(np.int32, shape))
    assert buffer.dims == shape, f"PJRT_Buffer_Dimensions of a buffer created as {list(shape)} should be {list(shape)}, but is {list(buffer.dims)}"


@pytest.mark.parametrize("shape", RANK_SHAPES)
def test_unpadded_dimensions_match_dimensions(client: Any, shape: tuple[int, ...]) -> None:
    buffer = client.buffer_from_numpy(sample_array(np.int32, shape))
    unpadded = buffer.unpadded_dims
    assert unpadded == shape, (
        f"PJRT_Buffer_UnpaddedDimensions of a static {list(shape)} buffer should be {list(shape)}, but is {list(unpadded)}"
    )


@pytest.mark.parametrize("shape", RANK_SHAPES)
def test_static_buffer_has_no_dynamic_dimensions(client: Any, shape: tuple[int, ...]) -> None:
    buffer = client.buffer_from_numpy(sample_array(np.int32, shape))
    dynamic = buffer.dynamic_dim_indices
    assert dynamic == (), f"PJRT_Buffer_DynamicDimensionIndices of a static {list(shape)} buffer should be empty, but is {list(dynamic)}"


@pytest.mark.parametrize("shape", ZERO_SIZE_SHAPES)
def test_zero_size_round_trip(client: Any, shape: tuple[int, ...]) -> None:
    data = np.zeros(shape, np.float32)
    buffer = client.buffer_from_numpy(data)
    assert buffer.dims == shape, f"PJRT_Buffer_Dimensions of a zero-size {list(shape)} buffer should be {list(shape)}, but is {list(buffer.dims)}"
    size = buffer.host_size()
    assert size == 0, f"PJRT_Buffer_ToHostBuffer(dst=NULL) of zero-size f32{list(shape)} should report 0 bytes, but reported {size}"
    back = buffer.to_numpy()
    assert back.shape == shape, f"{ROUND_TRIP} of zero-size f32{list(shape)} should give that shape, but gave {back.shape}"


@pytest.mark.feature("large")
@pytest.mark.parametrize("dtype", [pytest.param(np.uint8, id="u8_256mib")])
def test_large_round_trip(client: Any, dtype: type) -> None:
    count = LARGE_BYTES // np.dtype(dtype).itemsize
    rows = 4096
    data: np.ndarray = np.empty((rows, count // rows), dtype)
    data[...] = (np.arange(count // rows, dtype=np.uint32) * 97 % 251).astype(dtype)  # period 251 along a row
    data += (np.arange(rows, dtype=np.uint32) % 241).astype(dtype)[:, None]  # and a different offset per row
    buffer = client.buffer_from_numpy(data)
    assert buffer.on_device_size >= data.nbytes, (
        f"PJRT_Buffer_OnDeviceSizeInBytes of a {data.nbytes}-byte array should be >= that, but is {buffer.on_device_size}"
    )
    back = buffer.to_numpy()
    buffer.close()
    assert_bit_exact(back, data, f"{ROUND_TRIP} of a 256 MiB {np.dtype(dtype).name}{list(data.shape)} array")
