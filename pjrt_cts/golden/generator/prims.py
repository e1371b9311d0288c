"""Emitting StableHLO ops that no `jax.numpy`/`lax` function produces, from inside a JAX program.

`emit(lower, out_shapes, *args)` binds one primitive whose lowering rule calls `lower(*ir_values)`
with the jaxlib MLIR builders; the program is still built, lowered and run by JAX.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX

from jax._src import core  # noqa: E402 - imported after env has configured JAX
from jax._src import dispatch  # noqa: E402 - imported after env has configured JAX
from jax._src.interpreters import mlir  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir import ir  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir.dialects import hlo  # noqa: E402 - imported after env has configured JAX

_emit_p = core.Primitive("pjrt_cts_emit")
_emit_p.multiple_results = True
_emit_p.def_impl(lambda *args, **params: dispatch.apply_primitive(_emit_p, *args, **params))
_emit_p.def_abstract_eval(lambda *avals, lower, out_avals: list(out_avals))


def _lowering(ctx: mlir.LoweringRuleContext, *args: ir.Value, lower: Callable, out_avals: tuple) -> Sequence[ir.Value]:
    results = lower(*args)
    if isinstance(results, ir.Value):
        results = [results]
    elif hasattr(results, "results"):
        results = list(results.results)
    return list(results)


mlir.register_lowering(_emit_p, _lowering)


def emit(lower: Callable[..., Any], out_shapes: Sequence[tuple[tuple[int, ...], Any]], *args: Any) -> list[Any]:
    """Bind the emitting primitive: `out_shapes` is [(shape, numpy dtype)] of the results."""
    out_avals = tuple(core.ShapedArray(tuple(shape), np.dtype(dtype)) for shape, dtype in out_shapes)
    return _emit_p.bind(*args, lower=lower, out_avals=out_avals)


def tensor_type(shape: Sequence[int], dtype: Any) -> ir.Type:
    return ir.RankedTensorType.get(list(shape), mlir.dtype_to_ir_type(np.dtype(dtype)))


def scalar_type(dtype: Any) -> ir.Type:
    return tensor_type((), dtype)


def i64_tensor(values: Sequence[int]) -> ir.Value:
    return hlo.constant(ir.DenseElementsAttr.get(np.asarray(values, dtype=np.int64)))


def i32_tensor(values: Sequence[int]) -> ir.Value:
    return hlo.constant(ir.DenseElementsAttr.get(np.asarray(values, dtype=np.int32)))


def replica_groups(groups: Sequence[Sequence[int]]) -> ir.Attribute:
    return ir.DenseIntElementsAttr.get(np.asarray(groups, dtype=np.int64))


def add_region(region: ir.Region, dtype: Any, combine: Callable[[ir.Value, ir.Value], ir.Value] = hlo.add) -> None:
    """Fill a reduction region with (a, b) -> combine(a, b) on scalars of `dtype`."""
    scalar = scalar_type(dtype)
    block = region.blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.return_([combine(block.arguments[0], block.arguments[1])])
