"""PJRT_Buffer_CopyToDevice between every pair of addressable devices."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.testing import assert_bit_exact, refuse_or_succeed, requires, sample_array

DEVICE_PAIRS = [pytest.param(src, dst, id=f"{src}->{dst}", marks=requires(devices=max(src, dst) + 1))
                for src in range(4) for dst in range(4)]


@pytest.mark.parametrize(("source", "destination"), DEVICE_PAIRS)
def test_copy_to_device(client: Any, devices: list[Any], source: int, destination: int) -> None:
    src_device, dst_device = devices[source], devices[destination]
    data = sample_array(np.float32, (8, 5), seed=source * 4 + destination)
    original = client.buffer_from_numpy(data, src_device)
    what = f"PJRT_Buffer_CopyToDevice(device {src_device.id} -> device {dst_device.id})"

    def check(copy: Any) -> None:
        assert copy.device.handle == dst_device.handle, f"{what} should give a buffer on device {dst_device.id}, but PJRT_Buffer_Device says {copy.device.id}"
        assert_bit_exact(copy.to_numpy(), data, f"{what} -> PJRT_Buffer_ToHostBuffer")
        assert_bit_exact(original.to_numpy(), data, f"the source of {what}, read back afterwards")
        assert not original.is_deleted, f"{what} should leave the source buffer alive, but PJRT_Buffer_IsDeleted is true"

    # The header allows refusing a copy onto the buffer's own device.
    refuse_or_succeed(lambda: original.copy_to_device(dst_device), check=check, function=what,
                      codes=("INVALID_ARGUMENT",) if source == destination else ())
