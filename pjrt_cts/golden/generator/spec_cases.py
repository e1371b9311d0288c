"""Writing spec-reference cases (families/spec_*.py): program text, edge-value inputs, the case spec.

    spec_case("add", "s32", [x, y], [TensorType((n,), "s32")], rule="integer addition wraps modulo 2^32")

gives case `spec.add.s32`: `@main` applies `stablehlo.add` to its arguments (generic form, see
pjrt_cts.golden.spec.mlir); its expected outputs are `pjrt_cts.golden.spec.evaluate("add", ...)`, and the
generator compares XLA's and (if given) numpy's results with them (spec_build.py).
"""
from __future__ import annotations

import itertools
from typing import Any, Callable, Sequence

import ml_dtypes
import numpy as np

from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.spec import mlir
from pjrt_cts.golden.spec.registry import TensorType
from pjrt_cts.golden.spec.types import class_of, int_range, np_dtype
from pjrt_cts.golden.tolerance import Tolerance


def type_of(array: np.ndarray) -> TensorType:
    from pjrt_cts.golden import dtypes

    return TensorType(tuple(array.shape), dtypes.name_of(array.dtype))


def spec_case(op: str, suffix: str, inputs: Sequence[np.ndarray], results: Sequence[TensorType], *,
              attributes: dict[str, Any] | None = None, mlir_attributes: str = "", regions: Sequence[str] = (),
              program: str | None = None, rule: str | None = None, features: Sequence[str] = (),
              numpy_ref: Callable[[Sequence[np.ndarray]], Sequence[np.ndarray]] | None = None,
              numpy_ref_name: str | None = None, op_class: str = "exact", tolerance: Tolerance | None = None,
              selector_inputs: tuple[int, ...] = (), reduced_elements: int = 1, group: str | None = None,
              zero_inputs_ok: tuple[int, ...] = ()) -> CaseSpec:
    """A case `spec.<op>.<suffix>` (suffix: attribute settings then the element type, e.g. `LT_SIGNED.s32`).

    `attributes` (JSON values) are what the spec reference reads; `mlir_attributes` / `regions` the same
    settings as program text (or give the whole `program`). `rule`: the spec sentence the inputs probe,
    kept in the manifest and quoted when XLA disagrees. `op_class` overrides the op's tolerance class."""
    inputs = [np.asarray(x) for x in inputs]
    operand_types = [type_of(x) for x in inputs]
    text = program or mlir.single_op_module(op, operand_types, results, mlir_attributes, regions)
    return CaseSpec(
        id=f"spec.{op}.{suffix}", fn=None, inputs=list(inputs), op_class=op_class, numpy_ref=numpy_ref,
        numpy_ref_name=numpy_ref_name, features=list(features), tolerance=tolerance,
        selector_inputs=selector_inputs, group=group, zero_inputs_ok=zero_inputs_ok, program_text=text,
        spec={"op": op, "attributes": dict(attributes or {}), "results": [r.to_json() for r in results],
              "rule": rule, "reduced_elements": reduced_elements},
    )


def representable(values: Sequence[float], name: str) -> np.ndarray:
    """The values the type holds exactly (NaN kept if the type has one), deduplicated by bit pattern."""
    dtype = np_dtype(name)
    kept: list[np.ndarray] = []
    seen: set[bytes] = set()
    with np.errstate(all="ignore"):
        for value in values:
            converted = np.array([value], dtype=np.float64).astype(dtype)
            back = converted.astype(np.float64)[0]
            if not (back == value or (np.isnan(back) and np.isnan(value))):
                continue
            if np.isnan(value) and not np.isnan(back):
                continue
            key = converted.tobytes()
            if key not in seen:
                seen.add(key)
                kept.append(converted)
    return np.concatenate(kept)


def float_edges(name: str) -> np.ndarray:
    """±0, ±1, halves (rounding ties), the smallest subnormal and normal, the largest finite, ±inf, NaN —
    as many as the type can hold — then a few seeded ordinary values."""
    info = ml_dtypes.finfo(np_dtype(name))
    tiny, sub, big = float(info.tiny), float(info.smallest_subnormal), float(info.max)
    candidates = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.0, 3.0, sub, -sub, tiny, -tiny, big, -big,
                  float("inf"), float("-inf"), float("nan"), float(info.eps), 1.0 + float(info.eps)]
    rng = rng_for(f"spec.float_edges.{name}")
    ordinary = rng.standard_normal(6) * 4.0
    candidates += [float(np.array(v).astype(np_dtype(name)).astype(np.float64)) for v in ordinary]
    return representable(candidates, name)


def int_edges(name: str) -> np.ndarray:
    """min, min + 1, -2, -1, 0, 1, 2, max - 1, max (those in range) and seeded ordinary values."""
    lo, hi = int_range(name)
    values = sorted({v for v in (lo, lo + 1, -2, -1, 0, 1, 2, 3, hi - 1, hi) if lo <= v <= hi})
    rng = rng_for(f"spec.int_edges.{name}")
    values += [lo + int(v * (hi - lo)) for v in rng.random(3)]  # floats: u64's range exceeds int64
    return np.array(values, dtype=object).astype(np_dtype(name))


def complex_edges(name: str) -> np.ndarray:
    parts = [0.0, -0.0, 1.0, -1.5, 0.5, float("inf"), float("-inf"), float("nan")]
    values = [complex(re, im) for re in parts for im in parts if not (np.isnan(re) and np.isnan(im))]
    return np.array(values, dtype=np_dtype(name))


def edges(name: str) -> np.ndarray:
    """The edge values of element type `name` as a 1-D array of that type."""
    cls = class_of(name)
    if cls == "bool":
        return np.array([False, True])
    if cls in ("signed", "unsigned"):
        return int_edges(name)
    if cls == "complex":
        return complex_edges(name)
    return float_edges(name)


def pairs(name: str, other: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every (x, y) of edge values as two 1-D arrays (the cross product), for binary ops."""
    xs, ys = edges(name), edges(other or name)
    left, right = zip(*itertools.product(range(len(xs)), range(len(ys))))
    return xs[list(left)], ys[list(right)]
