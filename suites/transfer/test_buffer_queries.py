"""PJRT_Buffer_{Device,Memory,ReadyEvent} of buffers created on each addressable device."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.testing import device_index_params, sample_array

DEVICE_INDEXES = device_index_params()


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_buffer_reports_its_device(client: Any, devices: list[Any], index: int) -> None:
    device = devices[index]
    buffer = client.buffer_from_numpy(sample_array(np.float32, (3,)), device)
    assert buffer.device.handle == device.handle, (
        f"PJRT_Buffer_Device of a buffer created on device {device.id} should be that device, but is device {buffer.device.id}"
    )


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_buffer_is_in_default_memory_of_its_device(client: Any, devices: list[Any], index: int) -> None:
    device = devices[index]
    buffer = client.buffer_from_numpy(sample_array(np.float32, (3,)), device)
    default = device.default_memory
    assert buffer.memory.handle == default.handle, (
        f"PJRT_Buffer_Memory of a buffer created on device {device.id} without a memory should be its default memory "
        f"{default.kind!r} id {default.id}, but is {buffer.memory.kind!r} id {buffer.memory.id}"
    )


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_ready_event_completes(client: Any, devices: list[Any], index: int) -> None:
    device = devices[index]
    buffer = client.buffer_from_numpy(sample_array(np.float32, (128, 128)), device)
    event = buffer.ready_event()
    event.wait()
    assert event.is_ready(), "PJRT_Event_IsReady of PJRT_Buffer_ReadyEvent should be true after PJRT_Event_Await"
    error = event.error()
    assert error is None, f"PJRT_Buffer_ReadyEvent of a live buffer should complete OK, but carries {error.code}: {error.message}"
    event.close()


def test_ready_event_can_be_requested_twice(client: Any) -> None:
    buffer = client.buffer_from_numpy(sample_array(np.float32, (8,)))
    first, second = buffer.ready_event(), buffer.ready_event()
    for event in (first, second):
        event.wait()
        event.close()


def test_is_on_cpu_is_stable(client: Any) -> None:
    buffer = client.buffer_from_numpy(sample_array(np.float32, (8,)))
    answers = {buffer.is_on_cpu for _ in range(3)}
    assert len(answers) == 1, f"PJRT_Buffer_IsOnCpu should answer the same for one buffer, but answered {answers}"
