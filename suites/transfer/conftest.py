"""Helpers of the transfer layer: deterministic host arrays per dtype, element-type parameters, bit-exact comparison."""
from __future__ import annotations

from typing import Any, Callable

import ml_dtypes
import numpy as np
import pytest



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
    """Upload/readback helpers bound to the session client (requirements are declared with `@requires`)."""

    def __init__(self, plugin: Any, client: Any, devices: list[Any]) -> None:
        self.plugin = plugin
        self.client = client
        self.devices = devices

    def memory_of_kind(self, device: Any, kind: str) -> Any:
        """The memory of `kind` of `device` (tests declare `requires(memory_kind=kind)` for device 0)."""
        for memory in device.memories:
            if memory.kind == kind:
                return memory
        raise AssertionError(f"PJRT_Device_AddressableMemories of device {device.id} lists no {kind!r} memory "
                             f"(it has {[m.kind for m in device.memories]}), though device {self.devices[0].id} does")


@pytest.fixture(scope="session")
def transfers(plugin: Any, client: Any, devices: list[Any]) -> Transfers:
    return Transfers(plugin, client, devices)


@pytest.fixture(scope="session")
def sample() -> Callable[..., np.ndarray]:
    return sample_array


@pytest.fixture(scope="session")
def bit_exact() -> Callable[[np.ndarray, np.ndarray, str], None]:
    return assert_bit_exact
