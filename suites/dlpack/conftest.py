"""DLPack layer helpers: aligned host arrays, readers of exported memory, framework consumers, on_delete recorders."""
from __future__ import annotations

import ctypes
import os
import threading
import time
from typing import Any

import numpy as np
import pytest

from pjrt_cts import dlpack
from pjrt_cts.testing import environment_lacks, not_applicable

# XLA CPU plugins refuse views of memory not aligned to 64 bytes; stay well above that.
VIEW_ALIGNMENT = 256


def aligned_array(values: np.ndarray, alignment: int = VIEW_ALIGNMENT) -> np.ndarray:
    """A C-contiguous copy of `values` whose data pointer is a multiple of `alignment` (keeps its backing alive)."""
    values = np.ascontiguousarray(values)
    raw = np.zeros(values.nbytes + alignment, dtype=np.uint8)
    offset = (-raw.ctypes.data) % alignment
    out = raw[offset: offset + values.nbytes].view(values.dtype).reshape(values.shape)
    out[...] = values
    return out


def read_host_memory(pointer: int, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    raw = bytes((ctypes.c_char * (count * dtype.itemsize)).from_address(pointer)) if count else b""
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def consume_with_framework(producer: Any) -> np.ndarray:
    """Read a DLPack producer with a real consumer: numpy for kDLCPU, cupy or torch for CUDA/ROCm memory."""
    device_type, _ = producer.__dlpack_device__()
    if device_type in (dlpack.DLDeviceType.CPU, dlpack.DLDeviceType.CUDA_HOST):
        array = np.from_dlpack(producer)
        return array.copy()
    if device_type in (dlpack.DLDeviceType.CUDA, dlpack.DLDeviceType.ROCM):
        try:
            import cupy

            return cupy.asnumpy(cupy.from_dlpack(producer))
        except ImportError:
            pass
        try:
            import torch

            return torch.from_dlpack(producer).cpu().numpy()
        except ImportError:
            pass
        try:
            # JAX with its GPU plugin creates its own client in this process: never let it preallocate.
            os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
            import jax
            import jax.dlpack
        except ImportError:
            pass
        else:
            try:
                jax.devices("gpu")
            except RuntimeError as error:
                environment_lacks(f"no cupy or torch, and jax has no GPU backend to read device memory: {error}")
            return np.asarray(jax.dlpack.from_dlpack(producer))
        environment_lacks("reading device memory through DLPack needs cupy, torch or jax with GPU support; none is installed")
    environment_lacks(f"no DLPack consumer available for device type {device_type}")
    raise AssertionError("unreachable")


def dl_device_of_device(client: Any, device: Any) -> tuple[int, int]:
    """The DLPack (device_type, device_id) of a PJRT device's default memory, from a probe buffer."""
    probe = client.buffer_from_numpy(np.zeros(1, np.float32), device)
    try:
        return dlpack.dl_device_of(probe)
    except ValueError as error:
        not_applicable(f"the plugin's memory has no DLPack device type: {error}")
        raise
    finally:
        probe.close()


def framework_producer(values: np.ndarray, dl_device: tuple[int, int]) -> Any:
    """A tensor holding `values` in a real DLPack producer: numpy on the host, cupy or torch on a CUDA/ROCm device."""
    device_type, device_id = dl_device
    if device_type == dlpack.DLDeviceType.CPU:
        return aligned_array(values)
    if device_type in (dlpack.DLDeviceType.CUDA, dlpack.DLDeviceType.ROCM):
        try:
            import cupy

            with cupy.cuda.Device(device_id) as gpu:
                array = cupy.asarray(values)
                gpu.synchronize()  # the plugin reads it on its own stream
                return array
        except ImportError:
            pass
        try:
            import torch

            tensor = torch.from_numpy(np.ascontiguousarray(values)).to(f"cuda:{device_id}")
            torch.cuda.synchronize(device_id)  # the plugin reads it on its own stream
            return tensor
        except ImportError:
            pass
        environment_lacks("a DLPack producer of device memory needs cupy or torch with GPU support; neither is installed")
    environment_lacks(f"no DLPack producer available for device type {device_type}")
    raise AssertionError("unreachable")


def read_exported(buffer: Any, pointer: int) -> np.ndarray:
    """The bytes behind an exported pointer of `buffer`, read without PJRT (host memory directly, else a framework)."""
    if buffer.is_on_cpu:
        return read_host_memory(pointer, buffer.dims, buffer.dtype)
    device = dlpack.dl_device_of(buffer)
    return consume_with_framework(dlpack.PointerExporter(pointer, buffer.dims, buffer.dtype, device))


class OnDeleteRecorder:
    """Counts on_delete_callback calls (any thread) and waits for them with a bound."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls: list[tuple[int, int]] = []

    def __call__(self, pointer: int, user_arg: int) -> None:
        with self._lock:
            self.calls.append((pointer, user_arg))

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.calls)

    def wait_for(self, count: int, timeout: float = 5.0) -> int:
        deadline = time.monotonic() + timeout
        while self.count < count and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.05)  # a little longer: catch a second, late call
        return self.count


@pytest.fixture
def on_delete_recorder() -> OnDeleteRecorder:
    return OnDeleteRecorder()


@pytest.fixture
def host_memory_device(client: Any, device: Any) -> Any:
    """The first device, if its default memory is host memory (views of numpy arrays need that)."""
    probe = client.buffer_from_numpy(np.zeros(1, np.float32), device)
    try:
        if not probe.is_on_cpu:
            not_applicable("device memory is not host memory: views of numpy arrays do not apply "
                           "(see the device-allocation view tests)")
    finally:
        probe.close()
    return device


@pytest.fixture
def helpers() -> Any:
    """The layer's helper functions, for test modules (conftest modules are not importable by name)."""

    class Helpers:
        aligned_array = staticmethod(aligned_array)
        read_host_memory = staticmethod(read_host_memory)
        read_exported = staticmethod(read_exported)
        consume_with_framework = staticmethod(consume_with_framework)
        dl_device_of_device = staticmethod(dl_device_of_device)
        framework_producer = staticmethod(framework_producer)

    return Helpers
