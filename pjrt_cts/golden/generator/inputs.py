"""Seeded input builders (never all zeros) and numpy helpers shared by the case families."""
from __future__ import annotations

from typing import Callable, Sequence

import ml_dtypes
import numpy as np

from pjrt_cts.golden import dtypes

SHAPES: dict[str, tuple[int, ...]] = {"r1": (7,), "r2": (3, 5)}


def random_array(rng: np.random.Generator, shape: Sequence[int], name: str, kind: str = "normal") -> np.ndarray:
    """Values of element type `name`; kind: normal | positive | unit | nonzero | full | small."""
    shape = tuple(shape)
    dtype = dtypes.dtype_of(name)
    if name == "pred":
        values = rng.random(shape) < 0.5
        if values.size and not values.any():
            values.flat[0] = True
        return values
    if name in dtypes.INTEGER_NAMES or name in ("s4", "u4"):
        if kind == "full":
            info = np.iinfo(dtype)
            return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        signed = name.startswith("s")
        low, high = (-100, 100) if signed else (0, 200)
        if kind == "positive" or kind == "nonzero":
            low = 1
        if kind == "small":
            low, high = (-8, 8) if signed else (0, 8)
        values = rng.integers(low, high, size=shape, endpoint=True).astype(dtype)
        if kind == "nonzero":
            values[values == 0] = 1
        return _not_all_zero(values)
    if dtypes.is_complex(name):
        real = rng.standard_normal(shape)
        imag = rng.standard_normal(shape)
        if kind == "positive":
            real = np.abs(real) + 0.5
        return (real + 1j * imag).astype(dtype)
    # floating
    if name == "f8e8m0fnu":  # exponent-only: positive powers of two
        return (2.0 ** rng.integers(-4, 5, size=shape)).astype(dtype)
    if name == "f4e2m1fn":
        grid = np.array([0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])
        values = rng.choice(grid, size=shape) * (1 if kind == "positive" else rng.choice([-1.0, 1.0], size=shape))
        return values.astype(dtype)
    if kind == "positive":
        values = np.abs(rng.standard_normal(shape)) * 2 + 0.25
    elif kind == "unit":
        values = rng.uniform(-0.9, 0.9, size=shape)
    elif kind == "small":
        values = rng.uniform(-2.0, 2.0, size=shape)
    else:
        values = rng.standard_normal(shape) * 2
    if name in dtypes.FP8_NAMES:
        limit = float(dtypes.finfo(name).max) / 4
        values = np.clip(values, -limit, limit)
        if name.endswith("fnuz") or "b11" in name:
            values = np.clip(values, -limit, limit)
    array = values.astype(dtype)
    if kind in ("positive", "nonzero"):
        array[array.astype(np.float64) == 0] = dtype.type(1)
    return _not_all_zero(array)


def _not_all_zero(array: np.ndarray) -> np.ndarray:
    if array.size and not np.any(array.astype(np.float64) != 0):
        array.flat[0] = array.dtype.type(1)
    return array


def wide(array: np.ndarray) -> np.ndarray:
    """The array in a higher-precision numpy type for reference computations."""
    kind = array.dtype.kind
    if kind == "c":
        return array.astype(np.complex128)
    if kind in "iub":
        return array
    return array.astype(np.float64)


def unary_ref(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]]:
    def ref(xs: Sequence[np.ndarray]) -> list[np.ndarray]:
        with np.errstate(all="ignore"):
            return [np.asarray(fn(wide(xs[0])))]
    return ref


def nary_ref(fn: Callable[..., np.ndarray]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]]:
    def ref(xs: Sequence[np.ndarray]) -> list[np.ndarray]:
        with np.errstate(all="ignore"):
            return [np.asarray(fn(*[wide(x) for x in xs]))]
    return ref


def special_values(name: str) -> np.ndarray:
    """NaN, +-inf, +-0.0, +-1, tiny and huge values of a float type (as float64 to cast)."""
    info = ml_dtypes.finfo(dtypes.dtype_of(name))
    return np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, float(info.tiny), -float(info.tiny),
                     float(info.max), -float(info.max), 0.5, -2.5, 3.0])
