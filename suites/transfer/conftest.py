"""Helpers of the transfer layer: deterministic host arrays per dtype, gated uploads, bit-exact comparison."""
from __future__ import annotations

from typing import Any, Callable

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.abi.enums import BUFFER_TYPE_SINCE, BufferType
from pjrt_cts.model import NotSupported
from pjrt_cts.runtime import PjrtError
from pjrt_cts.runtime.dtypes import BUFFER_TYPE_TO_DTYPE

# Phrases XLA plugins use when they reject a dtype they do not implement with INVALID_ARGUMENT.
_UNSUPPORTED_PHRASES = ("not supported", "unsupported", "not implemented")


def host_dtype(buffer_type: BufferType) -> np.dtype:
    dtype = BUFFER_TYPE_TO_DTYPE.get(buffer_type)
    if dtype is None:
        raise NotSupported(f"the suite has no numpy/ml_dtypes host dtype for PJRT_Buffer_Type {buffer_type.name}")
    return dtype


def sample_array(dtype: np.dtype, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Deterministic values spanning the dtype's range (extremes, zero, signed zero, inf/nan where they exist)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return (np.arange(count) % 3 == 0).reshape(shape)
    if dtype.kind in "iu" or dtype in (np.dtype(ml_dtypes.int4), np.dtype(ml_dtypes.uint4), np.dtype(ml_dtypes.int2),
                                       np.dtype(ml_dtypes.uint2), np.dtype(ml_dtypes.int1), np.dtype(ml_dtypes.uint1)):
        info = ml_dtypes.iinfo(dtype) if dtype.kind not in "iu" else np.iinfo(dtype)
        specials = [info.min, info.max, 0, 1 if info.max >= 1 else 0]
        values = rng.integers(int(info.min), int(info.max), size=count, endpoint=True, dtype=np.int64 if info.max < 2**63 else np.uint64)
        values = values.astype(object)
        values[: min(count, len(specials))] = specials[: min(count, len(specials))]
        return np.array([int(v) for v in values], dtype=np.int64 if info.max < 2**63 else np.uint64).astype(dtype).reshape(shape)
    if dtype.kind == "c":
        part = np.float32 if dtype == np.complex64 else np.float64
        out = np.empty(count, dtype)
        out.real = sample_array(np.dtype(part), (count,), seed)
        out.imag = sample_array(np.dtype(part), (count,), seed + 1)
        return out.reshape(shape)
    info = ml_dtypes.finfo(dtype)
    specials = np.array([0.0, -0.0, 1.0, -1.0, 0.5, float(info.max), -float(info.max), float(info.tiny),
                         float(info.smallest_subnormal), np.inf, -np.inf, np.nan], dtype=np.float64)
    values = rng.standard_normal(count) * 4.0
    values[: min(count, len(specials))] = specials[: min(count, len(specials))]
    with np.errstate(all="ignore"):
        return values.astype(dtype).reshape(shape)


def first_mismatch(actual: np.ndarray, expected: np.ndarray) -> tuple[int, ...] | None:
    """Index of the first element whose bytes differ (None when bit-identical)."""
    a = np.ascontiguousarray(actual).reshape(-1).view(np.uint8)
    e = np.ascontiguousarray(expected).reshape(-1).view(np.uint8)
    if np.array_equal(a, e):
        return None
    first_byte = int(np.argmax(a != e))
    flat = first_byte // expected.dtype.itemsize
    return tuple(int(i) for i in np.unravel_index(flat, expected.shape)) if expected.shape else ()


def assert_bit_exact(actual: np.ndarray, expected: np.ndarray, what: str) -> None:
    """`what` names the PJRT functions involved; the message gives the first differing index and values."""
    assert actual.shape == expected.shape, f"{what} should give shape {expected.shape}, but gave {actual.shape}"
    assert actual.dtype == expected.dtype, f"{what} should give dtype {expected.dtype}, but gave {actual.dtype}"
    index = first_mismatch(actual, expected)
    if index is not None:
        a = np.ascontiguousarray(actual).reshape(-1).view(np.uint8)
        e = np.ascontiguousarray(expected).reshape(-1).view(np.uint8)
        raise AssertionError(
            f"{what} should be bit-exact, but element {index} is {actual[index]!r} instead of {expected[index]!r} "
            f"({int((a != e).sum())} differing bytes)"
        )


class Transfers:
    """Upload/readback helpers bound to the session client."""

    def __init__(self, plugin: Any, client: Any, devices: list[Any]) -> None:
        self.plugin = plugin
        self.client = client
        self.devices = devices

    def require_buffer_type(self, buffer_type: BufferType) -> np.dtype:
        """The host dtype for `buffer_type`; NOT_SUPPORTED when the plugin's API predates the type."""
        since = BUFFER_TYPE_SINCE.get(buffer_type)
        minor = self.plugin.api_version[1]
        if since is not None and minor < since:
            raise NotSupported(
                f"PJRT_Buffer_Type {buffer_type.name} was added in API 0.{since}; the plugin reports {self.plugin.version_string}"
            )
        return host_dtype(buffer_type)

    def upload_dtype(self, array: np.ndarray, **kwargs: Any) -> Any:
        """BufferFromHostBuffer where a dtype the plugin does not implement is NOT_SUPPORTED, not FAIL."""
        try:
            return self.client.buffer_from_numpy(array, **kwargs)
        except PjrtError as error:
            message = error.message.lower()
            if error.code == "UNIMPLEMENTED" or (
                error.code == "INVALID_ARGUMENT" and any(p in message for p in _UNSUPPORTED_PHRASES)
            ):
                raise NotSupported(f"{error.function} rejects {array.dtype}: {error.code}: {error.message}") from None
            raise

    def device_at(self, index: int) -> Any:
        if index >= len(self.devices):
            raise NotSupported(f"needs {index + 1} addressable devices, the plugin has {len(self.devices)}")
        return self.devices[index]

    def memory_of_kind(self, device: Any, kind: str) -> Any:
        for memory in device.memories:
            if memory.kind == kind:
                return memory
        raise NotSupported(f"device {device.id} has no {kind!r} memory (it has {[m.kind for m in device.memories]})")


@pytest.fixture(scope="session")
def transfers(plugin: Any, client: Any, devices: list[Any]) -> Transfers:
    return Transfers(plugin, client, devices)


@pytest.fixture(scope="session")
def sample() -> Callable[..., np.ndarray]:
    return sample_array


@pytest.fixture(scope="session")
def bit_exact() -> Callable[[np.ndarray, np.ndarray, str], None]:
    return assert_bit_exact
