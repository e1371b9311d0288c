"""Data movement across element types: broadcast/reshape/transpose/slice/dynamic_slice/
dynamic_update_slice/pad/concatenate/reverse/iota, plus zero-size and rank-0 tensors."""
from __future__ import annotations

from typing import Iterator

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.inputs import random_array

from jax import lax  # noqa: E402 - imported after env has configured JAX

STANDARD = ("pred",) + dtypes.INTEGER_NAMES + ("f16", "bf16", "f32", "f64") + dtypes.COMPLEX_NAMES


def _np_pad(x: np.ndarray, value, config) -> np.ndarray:
    """lax.pad semantics (low, high, interior; negative low/high crop) in numpy."""
    out = x
    for axis, (low, high, interior) in enumerate(config):
        if interior:
            n = out.shape[axis]
            shape = list(out.shape)
            shape[axis] = n + (n - 1) * interior if n else 0
            spread = np.full(shape, value, dtype=x.dtype)
            index = [slice(None)] * out.ndim
            index[axis] = slice(None, None, interior + 1)
            spread[tuple(index)] = out
            out = spread
        pads = [(0, 0)] * out.ndim
        pads[axis] = (max(low, 0), max(high, 0))
        out = np.pad(out, pads, constant_values=value)
        start = -low if low < 0 else 0
        stop = out.shape[axis] + high if high < 0 else out.shape[axis]
        index = [slice(None)] * out.ndim
        index[axis] = slice(start, stop)
        out = out[tuple(index)]
    return out


def _np_dynamic_slice(x: np.ndarray, starts, sizes) -> np.ndarray:
    clamped = [int(min(max(int(s), 0), dim - size)) for s, dim, size in zip(starts, x.shape, sizes)]
    return x[tuple(slice(c, c + size) for c, size in zip(clamped, sizes))]


def _np_dynamic_update_slice(x: np.ndarray, update: np.ndarray, starts) -> np.ndarray:
    out = x.copy()
    clamped = [int(min(max(int(s), 0), dim - size)) for s, dim, size in zip(starts, x.shape, update.shape)]
    out[tuple(slice(c, c + size) for c, size in zip(clamped, update.shape))] = update
    return out


def _movement(dtype: str) -> Iterator[CaseSpec]:
    def spec(op_name: str, fn, inputs, ref, op: str, features=()) -> CaseSpec:
        return CaseSpec(f"movement.{op_name}.{dtype}", fn, inputs, numpy_ref=ref, numpy_ref_name=f"numpy.{op_name}",
                        expect_ops=(op,), features=list(features))

    rng = rng_for(f"movement.{dtype}")
    x = random_array(rng, (3, 4), dtype)
    y = random_array(rng, (2, 4), dtype)
    pad_value = np.asarray(random_array(rng, (1,), dtype)[0])
    yield spec("broadcast_in_dim", lambda v: lax.broadcast_in_dim(v, (2, 3, 4), (1, 2)), [x],
               lambda xs: [np.broadcast_to(xs[0], (2, 3, 4))], "stablehlo.broadcast_in_dim")
    yield spec("broadcast_in_dim_expand", lambda v: lax.broadcast_in_dim(v[:, :1], (3, 4), (0, 1)), [x],
               lambda xs: [np.broadcast_to(xs[0][:, :1], (3, 4))], "stablehlo.broadcast_in_dim")
    yield spec("reshape", lambda v: v.reshape(2, 6), [x], lambda xs: [xs[0].reshape(2, 6)], "stablehlo.reshape")
    yield spec("transpose", lambda v: lax.transpose(v, (1, 0)), [x], lambda xs: [xs[0].T], "stablehlo.transpose")
    z = random_array(rng, (2, 3, 4), dtype)
    yield spec("transpose_r3", lambda v: lax.transpose(v, (2, 0, 1)), [z], lambda xs: [xs[0].transpose(2, 0, 1)],
               "stablehlo.transpose")
    yield spec("slice", lambda v: lax.slice(v, (1, 0), (3, 4), (1, 2)), [x], lambda xs: [xs[0][1:3, 0:4:2]],
               "stablehlo.slice")
    start = np.array([1, 2], dtype=np.int32)
    yield spec("dynamic_slice", lambda v, i, j: lax.dynamic_slice(v, (i, j), (2, 2)), [x, start[:1].reshape(()), start[1:].reshape(())],
               lambda xs: [_np_dynamic_slice(xs[0], (xs[1], xs[2]), (2, 2))], "stablehlo.dynamic_slice", ["rank0"])
    far = np.array(7, dtype=np.int32)
    yield spec("dynamic_slice_clamped", lambda v, i: lax.dynamic_slice(v, (i, i), (2, 3)), [x, far],
               lambda xs: [_np_dynamic_slice(xs[0], (xs[1], xs[1]), (2, 3))], "stablehlo.dynamic_slice")
    update = random_array(rng, (2, 2), dtype)
    yield spec("dynamic_update_slice", lambda v, u, i, j: lax.dynamic_update_slice(v, u, (i, j)),
               [x, update, start[:1].reshape(()), start[1:].reshape(())],
               lambda xs: [_np_dynamic_update_slice(xs[0], xs[1], (xs[2], xs[3]))], "stablehlo.dynamic_update_slice")
    negative = np.array(9, dtype=np.int32)  # JAX wraps negative starts itself; past-the-end clamps in StableHLO
    yield spec("dynamic_update_slice_clamped", lambda v, u, i: lax.dynamic_update_slice(v, u, (i, i)),
               [x, update, negative], lambda xs: [_np_dynamic_update_slice(xs[0], xs[1], (xs[2], xs[2]))],
               "stablehlo.dynamic_update_slice")
    config = [(1, 2, 0), (-1, 1, 1)]
    yield spec("pad", lambda v, p: lax.pad(v, p, config), [x, pad_value],
               lambda xs: [_np_pad(xs[0], xs[1], config)], "stablehlo.pad")
    yield spec("concatenate", lambda a, b: lax.concatenate([a, b, a], 0), [x, y],
               lambda xs: [np.concatenate([xs[0], xs[1], xs[0]], 0)], "stablehlo.concatenate")
    yield spec("reverse", lambda v: lax.rev(v, (0, 1)), [x], lambda xs: [xs[0][::-1, ::-1]], "stablehlo.reverse")
    if dtype != "pred":
        np_dtype = dtypes.dtype_of(dtype)
        yield spec("iota", lambda: lax.broadcasted_iota(np_dtype, (3, 5), 1), [],
                   lambda xs: [np.broadcast_to(np.arange(5).astype(np_dtype), (3, 5))], "stablehlo.iota")
    # Zero-size and rank-0 tensors.
    empty = random_array(rng, (3, 0), dtype)
    yield spec("concatenate_zero_size", lambda a, b: lax.concatenate([a, b], 1), [empty, x],
               lambda xs: [np.concatenate([xs[0], xs[1]], 1)], "stablehlo.concatenate")
    yield spec("transpose_zero_size", lambda a: lax.transpose(a, (1, 0)), [empty], lambda xs: [xs[0].T],
               "stablehlo.transpose")
    scalar = np.asarray(random_array(rng, (1,), dtype)[0])
    yield spec("broadcast_rank0", lambda s: lax.broadcast_in_dim(s, (2, 3), ()), [scalar],
               lambda xs: [np.broadcast_to(xs[0], (2, 3))], "stablehlo.broadcast_in_dim")
    yield spec("reshape_to_rank0", lambda v: v[:1, :1].reshape(()), [x], lambda xs: [xs[0][:1, :1].reshape(())],
               "stablehlo.reshape")


def cases() -> Iterator[CaseSpec]:
    for dtype in STANDARD:
        yield from _movement(dtype)
