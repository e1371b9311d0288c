"""PJRT_Buffer_CopyToDevice between every pair of addressable devices."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing import requires

DEVICE_PAIRS = [pytest.param(src, dst, id=f"{src}->{dst}", marks=requires(devices=max(src, dst) + 1))
                for src in range(4) for dst in range(4)]


@pytest.mark.parametrize(("source", "destination"), DEVICE_PAIRS)
def test_copy_to_device(client: Any, devices: list[Any], sample: Callable[..., np.ndarray], bit_exact: Callable[..., None],
                        source: int, destination: int) -> None:
    src_device, dst_device = devices[source], devices[destination]
    data = sample(np.float32, (8, 5), seed=source * 4 + destination)
    original = client.buffer_from_numpy(data, src_device)
    what = f"PJRT_Buffer_CopyToDevice(device {src_device.id} -> device {dst_device.id})"
    try:
        copy = original.copy_to_device(dst_device)
    except PjrtError as error:
        if source == destination and error.code == "INVALID_ARGUMENT":
            return  # the header allows refusing a copy onto the buffer's own device
        raise
    assert copy.device.handle == dst_device.handle, f"{what} should give a buffer on device {dst_device.id}, but PJRT_Buffer_Device says {copy.device.id}"
    bit_exact(copy.to_numpy(), data, f"{what} -> PJRT_Buffer_ToHostBuffer")
    bit_exact(original.to_numpy(), data, f"the source of {what}, read back afterwards")
    assert not original.is_deleted, f"{what} should leave the source buffer alive, but PJRT_Buffer_IsDeleted is true"
