"""Attribute spaces of reduce, reduce_window, select_and_scatter and sort (issue 15).

- reduce: every subset of dimensions of a rank-3 operand, bodies add/mul/min/max/and/or/xor, identity and
  non-identity init values, empty reduced dimensions (result = init), NaN/inf, variadic reduces
  (argmax/argmin as (value, index) pairs with ties broken on the lower index, independent pairs).
- reduce_window: window dimensions, strides, base and window dilations, padding (incl. asymmetric), bodies
  add/max/min/mul, init values, variadic operands; rank 1-4 (pairwise covering design in f32).
- select_and_scatter: windows, strides, padding, select GE/LE, scatter add/max, init values (stablehlo
  select_and_scatter built directly, since JAX's CPU lowering of the max-pool gradient expands padding).
- sort: every dimension of a rank-3 operand, stability with many ties (payload operands show the order of
  equal keys), num_keys > 1, custom comparators (descending, by a second operand, TOTALORDER NaN / -0 / +0
  ordering, |x|) lowered through a local primitive whose comparator region we write.

numpy references are explicit loops (float64 for arithmetic bodies) / np.lexsort (stable).

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import itertools
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.families.reduce import _total_order_key
from pjrt_cts.golden.generator.inputs import random_array, special_values, wide

from jax import lax  # noqa: E402 - imported after env has configured JAX
from jax._src import core as jax_core  # noqa: E402 - imported after env has configured JAX
from jax._src.interpreters import mlir  # noqa: E402 - imported after env has configured JAX
from jax._src.lax import lax as lax_internal  # noqa: E402 - imported after env has configured JAX
from jax._src.lax.windowed_reductions import _select_and_scatter  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir import ir  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir.dialects import hlo  # noqa: E402 - imported after env has configured JAX

FLOATS = ("f32", "f64", "bf16", "f16")


def _np(name: str) -> np.dtype:
    return dtypes.dtype_of(name)


def _is_float(name: str) -> bool:
    return name in FLOATS


def _dims_token(dims: Sequence[int]) -> str:
    return "".join(map(str, dims)) if dims else "none"


def _shape_token(shape: Sequence[int]) -> str:
    return "x".join(map(str, shape))


def _pad_token(padding: Sequence[tuple[int, int]]) -> str:
    return "_".join(f"{lo}{hi}" for lo, hi in padding)


# --------------------------------------------------------------------------------------------------------------
# Bodies: lax computation, numpy scalar/array fold (on wide values), identity init, a non-identity init.

def _identity(body: str, name: str) -> Any:
    dtype = _np(name)
    if name == "pred":
        return {"and": True, "or": False, "xor": False}[body]
    if body == "add" or body in ("or", "xor"):
        return 0
    if body == "mul":
        return 1
    if body == "and":
        return -1 if name.startswith("s") else np.iinfo(dtype).max
    if _is_float(name):
        return np.inf if body == "min" else -np.inf
    info = np.iinfo(dtype)
    return info.max if body == "min" else info.min


def _other_init(body: str, name: str) -> Any:
    """An init value that is not the body's identity (it shows up in every result)."""
    if name == "pred":
        return {"and": False, "or": True, "xor": True}[body]
    if body == "add":
        return 3
    if body == "mul":
        return 2
    if body == "min":
        return 0.5 if _is_float(name) else 5
    if body == "max":
        return -0.5 if _is_float(name) else (-5 if name.startswith("s") else 7)
    if body == "and":
        return 0x5B
    if body == "or":
        return 0x21
    return 0x33  # xor


LAX_BODIES: dict[str, Callable] = {"add": lax.add, "mul": lax.mul, "min": lax.min, "max": lax.max,
                                   "and": lax.bitwise_and, "or": lax.bitwise_or, "xor": lax.bitwise_xor}


def _np_body(body: str, name: str) -> Callable[[Any, Any], Any]:
    if name == "pred":
        return {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[body]
    return {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum,
            "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[body]


def _scalar(value: Any, name: str) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.array(value).astype(_np(name))


def _wide_scalar(value: Any, name: str) -> np.ndarray:
    return wide(_scalar(value, name))


def _op_class(body: str) -> str:
    return "reduction" if body in ("add", "mul") else "exact"


def _operand(rng: np.random.Generator, shape: Sequence[int], name: str, body: str) -> np.ndarray:
    """Inputs suited to a body: near 1 for float products, small for integer products, full range for bits."""
    if body == "mul" and _is_float(name):
        return (rng.uniform(0.6, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)).astype(_np(name))
    if body == "mul":
        return random_array(rng, shape, name, "small")
    if body in ("and", "or", "xor") and name != "pred":
        return random_array(rng, shape, name, "full")
    if body in ("min", "max") and _is_float(name):
        # No zeros: max(-0, +0) is not fixed by the spec, and min/max results are compared exactly.
        return random_array(rng, shape, name, "nonzero")
    return random_array(rng, shape, name, "small" if name != "f64" else "normal")


# --------------------------------------------------------------------------------------------------------------
# reduce

def _fold(values: np.ndarray, init: np.ndarray, fn: Callable) -> np.ndarray:
    """Fold the last axis of `values` into `init` (broadcast to values.shape[:-1]) with `fn`, one step at a time."""
    acc = np.broadcast_to(init, values.shape[:-1]).copy()
    with np.errstate(all="ignore"):
        for k in range(values.shape[-1]):
            acc = fn(acc, values[..., k])
    return acc


def _reduce_ref(dims: Sequence[int], body: str, init: Any, name: str):
    def ref(xs):
        x = wide(xs[0])
        rest = [a for a in range(x.ndim) if a not in dims]
        moved = np.transpose(x, rest + list(dims))
        flat = moved.reshape(moved.shape[:len(rest)] + (-1,))
        return [_fold(flat, _wide_scalar(init, name), _np_body(body, name)).astype(_np(name))]
    return ref


def _reduce_case(case_id: str, x: np.ndarray, dims: Sequence[int], body: str, init: Any, name: str, group: str,
                 features: Sequence[str] = ()) -> CaseSpec:
    init_arr = _scalar(init, name)
    return CaseSpec(case_id, lambda v, i=init_arr, d=tuple(dims), b=LAX_BODIES[body]: lax.reduce(v, i, b, d), [x],
                    op_class=_op_class(body), numpy_ref=_reduce_ref(tuple(dims), body, init, name),
                    numpy_ref_name=f"numpy.fold_{body}", expect_ops=("stablehlo.reduce",), group=group,
                    features=list(features),
                    attributes={"dimensions": list(dims), "body": body, "init_value": _json_scalar(init_arr),
                                "operand_shape": list(x.shape)})


def _json_scalar(value: np.ndarray) -> Any:
    v = value.item() if hasattr(value, "item") else value
    if isinstance(v, float):
        return v if np.isfinite(v) else str(v)
    return v if isinstance(v, (bool, int)) else float(v)


ALL_DIM_SUBSETS = [s for r in range(4) for s in itertools.combinations(range(3), r)]  # () ... (0, 1, 2)
SOME_DIM_SUBSETS = [(0,), (1, 2), (0, 2), (0, 1, 2)]


def _reduce_dims_cases() -> Iterator[CaseSpec]:
    shape = (2, 3, 4)
    # f32: every body x every subset of dimensions (incl. none) x identity / non-identity init.
    for body in ("add", "mul", "min", "max"):
        for dims in ALL_DIM_SUBSETS:
            for init_kind in ("id", "init"):
                if not dims and init_kind == "init":
                    # Left out of the XLA-derived corpus: for a reduce over no dimensions XLA returns the operand
                    # without applying the init value, where StableHLO's semantics give body(init, x) (seen with
                    # add/mul/min/max, jax 0.10.2 CPU). A spec-derived oracle must judge it, not XLA's output.
                    continue
                init = _identity(body, "f32") if init_kind == "id" else _other_init(body, "f32")
                token = "id" if init_kind == "id" else f"init{_init_token(init)}"
                case_id = f"reduce.dims{_dims_token(dims)}_{body}_{token}.f32"
                x = _operand(rng_for(case_id), shape, "f32", body)
                yield _reduce_case(case_id, x, dims, body, init, "f32", f"reduce.dims_{body}.f32")
    # Other floats: every non-empty subset, init alternating identity / non-identity.
    for name in ("f64", "bf16", "f16"):
        for body in ("add", "mul", "min", "max"):
            for n, dims in enumerate(ALL_DIM_SUBSETS[1:]):
                init_kind = "id" if (n + len(body)) % 2 == 0 else "init"
                init = _identity(body, name) if init_kind == "id" else _other_init(body, name)
                token = "id" if init_kind == "id" else f"init{_init_token(init)}"
                case_id = f"reduce.dims{_dims_token(dims)}_{body}_{token}.{name}"
                x = _operand(rng_for(case_id), shape, name, body)
                yield _reduce_case(case_id, x, dims, body, init, name, f"reduce.dims_{'arith' if body in ('add', 'mul') else 'minmax'}.{name}")
    # Integers: all seven bodies, four subsets, identity and non-identity inits alternating.
    for name in ("s32", "u32", "s8", "u8"):
        for body in ("add", "mul", "min", "max", "and", "or", "xor"):
            for n, dims in enumerate(SOME_DIM_SUBSETS):
                init_kind = "id" if (n + len(body)) % 2 == 0 else "init"
                init = _identity(body, name) if init_kind == "id" else _other_init(body, name)
                token = "id" if init_kind == "id" else f"init{_init_token(init)}"
                case_id = f"reduce.dims{_dims_token(dims)}_{body}_{token}.{name}"
                x = _operand(rng_for(case_id), shape, name, body)
                if body in ("add", "mul") and n % 2 == 1:
                    x = random_array(rng_for(case_id + "wrap"), shape, name, "full")  # wraps around
                yield _reduce_case(case_id, x, dims, body, init, name,
                                   f"reduce.dims_{'arith' if body in ('add', 'mul', 'min', 'max') else 'bits'}.{name}")
    # pred: and / or / xor.
    for body in ("and", "or", "xor"):
        for n, dims in enumerate(SOME_DIM_SUBSETS):
            for init_kind in ("id", "init"):
                init = _identity(body, "pred") if init_kind == "id" else _other_init(body, "pred")
                case_id = f"reduce.dims{_dims_token(dims)}_{body}_{init_kind}{int(bool(init))}.pred"
                x = random_array(rng_for(case_id), shape, "pred")
                yield _reduce_case(case_id, x, dims, body, init, "pred", "reduce.dims_bits.pred")


def _init_token(init: Any) -> str:
    if isinstance(init, (bool, np.bool_)):
        return str(int(init))
    text = f"{init:g}" if isinstance(init, float) else str(int(init))
    return text.replace("-", "m").replace(".", "p").replace("inf", "inf")


def _reduce_empty_cases() -> Iterator[CaseSpec]:
    """A reduced dimension of size 0: every result element is the init value."""
    for name in ("f32", "s32", "f16", "u8", "pred"):
        bodies = ("add", "mul", "min", "max") if name != "pred" else ("and", "or")
        for body in bodies:
            for shape, dims in (((2, 0, 3), (1,)), ((0, 3, 2), (0, 2)), ((2, 3, 0), (0, 1, 2))):
                if name != "f32" and dims != (1,):
                    continue
                init = _other_init(body, name)
                case_id = f"reduce.empty_{_shape_token(shape)}_dims{_dims_token(dims)}_{body}_init{_init_token(init)}.{name}"
                x = np.zeros(shape, _np(name))
                yield _reduce_case(case_id, x, dims, body, init, name, f"reduce.empty.{name}")


def _reduce_special_cases() -> Iterator[CaseSpec]:
    """NaN / +-inf propagation through each float body (no zeros mixed with min/max: the sign is not fixed)."""
    for name in FLOATS:
        specials = special_values(name)
        specials = specials[specials != 0]
        for body in ("add", "mul", "min", "max"):
            for dims in ((1,), (0, 2)):
                case_id = f"reduce.special_dims{_dims_token(dims)}_{body}_id.{name}"
                rng = rng_for(case_id)
                x = _operand(rng, (3, 4, 2), name, body).astype(np.float64)
                # Sprinkle specials (NaN, +-inf, tiny, huge) over some rows only, so others stay finite.
                for index in rng.choice(x.size, size=5, replace=False):
                    x.flat[index] = rng.choice(specials)
                x[0, :, 0] = [np.inf, -np.inf, 1.0, 2.0]  # inf - inf = NaN in sums; +-inf in min/max
                x = x.astype(_np(name))
                yield _reduce_case(case_id, x, dims, body, _identity(body, name), name, f"reduce.special.{name}",
                                   features=["special_values", "nan_propagation"])


# Variadic reduce ------------------------------------------------------------------------------------------------

def _argbody(kind: str):
    """(value, index) pairs: the larger (argmax) / smaller (argmin) value, ties to the lower index."""
    def body(a, b):
        av, ai = a
        bv, bi = b
        better = lax.gt(av, bv) if kind == "argmax" else lax.lt(av, bv)
        tie = lax.bitwise_and(lax.eq(av, bv), lax.lt(ai, bi))
        pick = lax.bitwise_or(better, tie)
        return lax.select(pick, av, bv), lax.select(pick, ai, bi)
    return body


def _argref(dims: Sequence[int], kind: str, name: str):
    def ref(xs):
        x, idx = wide(xs[0]), xs[1]
        rest = [a for a in range(x.ndim) if a not in dims]
        xv = np.transpose(x, rest + list(dims)).reshape(tuple(x.shape[a] for a in rest) + (-1,))
        iv = np.transpose(idx, rest + list(dims)).reshape(xv.shape)
        best_v = np.empty(xv.shape[:-1], xv.dtype)
        best_i = np.empty(xv.shape[:-1], iv.dtype)
        for pos in np.ndindex(*xv.shape[:-1]):
            values, indices = xv[pos], iv[pos]
            target = values.max() if kind == "argmax" else values.min()
            candidates = indices[values == target]
            best_v[pos], best_i[pos] = target, candidates.min()
        return [best_v.astype(_np(name)), best_i]
    return ref


def _variadic_cases() -> Iterator[CaseSpec]:
    shape = (3, 2, 4)
    plans = [("f32", dims) for dims in ALL_DIM_SUBSETS[1:]] + [
        (name, dims) for name in ("f64", "bf16", "f16", "s32", "s8", "u8", "u32") for dims in ((2,), (0, 1))]
    for name, dims in plans:
        for kind in ("argmax", "argmin"):
            case_id = f"reduce.variadic_{kind}_dims{_dims_token(dims)}_lowidx.{name}"
            rng = rng_for(case_id)
            # Few distinct values: many ties, decided by the lower index.
            x = rng.integers(0 if name[0] == "u" else -2, 3, size=shape).astype(_np(name))
            if not np.any(x):
                x.flat[0] = 1
            idx = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
            if name in ("f32", "s32"):
                idx = rng.permutation(idx.size).astype(np.int32).reshape(shape)  # "lower index" = lower value
            if _is_float(name):
                init_v = np.array(-np.inf if kind == "argmax" else np.inf, _np(name))
            else:
                info = np.iinfo(_np(name))
                init_v = np.array(info.min if kind == "argmax" else info.max, _np(name))
            init_i = np.array(np.iinfo(np.int32).max, np.int32)
            fn = (lambda v, i, d=dims, k=kind, iv=init_v, ii=init_i:
                  lax.reduce((v, i), (iv, ii), _argbody(k), d))
            yield CaseSpec(case_id, fn, [x, idx], numpy_ref=_argref(dims, kind, name),
                           numpy_ref_name=f"numpy.{kind}_lower_index", expect_ops=("stablehlo.reduce",),
                           group=f"reduce.variadic_arg.{name}", features=["variadic"],
                           attributes={"dimensions": list(dims), "body": f"{kind}_pair", "num_operands": 2,
                                       "init_value": [_json_scalar(init_v), int(init_i)]})
    # Independent pairs: (sum of a, max of b) with different element types, and (min, max) of one array.
    # Not two floats of different widths: XLA's HLO verifier rejects such a variadic reduce ("Seen floating point
    # types of different precisions"), which StableHLO allows.
    for name_a, name_b in (("f32", "s32"), ("f32", "f32"), ("s32", "u8"), ("f64", "s64"), ("bf16", "s8")):
        for dims in ((0,), (1, 2), (0, 1, 2)) if name_a == "f32" else ((1,), (0, 2)):
            case_id = f"reduce.variadic_sum_{name_a}_max_{name_b}_dims{_dims_token(dims)}_init3.{name_a}"
            rng = rng_for(case_id)
            a = random_array(rng, shape, name_a, "small")
            b = _operand(rng, shape, name_b, "max")
            init_a, init_b = _scalar(3, name_a), _scalar(_identity("max", name_b), name_b)

            def pair_body(p, q):
                return lax.add(p[0], q[0]), lax.max(p[1], q[1])

            fn = lambda u, w, d=dims, ia=init_a, ib=init_b: lax.reduce((u, w), (ia, ib), pair_body, d)

            def ref(xs, d=dims, na=name_a, nb=name_b):
                return [_reduce_ref(d, "add", 3, na)([xs[0]])[0], _reduce_ref(d, "max", _identity("max", nb), nb)([xs[1]])[0]]

            yield CaseSpec(case_id, fn, [a, b], op_class="reduction", numpy_ref=ref,
                           numpy_ref_name="numpy.fold_add_max", expect_ops=("stablehlo.reduce",),
                           group=f"reduce.variadic_pair.{name_a}", features=["variadic"],
                           attributes={"dimensions": list(dims), "body": "add_max", "num_operands": 2,
                                       "init_value": [3, _json_scalar(init_b)]})
    for name in ("f32", "s32", "u8"):
        for dims in ((0,), (2,), (0, 2)):
            case_id = f"reduce.variadic_minmax_3op_dims{_dims_token(dims)}.{name}"
            rng = rng_for(case_id)
            x = _operand(rng, shape, name, "max")
            c = np.ones(shape, np.int32)
            inits = (_scalar(_identity("min", name), name), _scalar(_identity("max", name), name), np.array(0, np.int32))

            def three_body(p, q):
                return lax.min(p[0], q[0]), lax.max(p[1], q[1]), lax.add(p[2], q[2])

            fn = lambda v, w, k, d=dims, i=inits: lax.reduce((v, w, k), i, three_body, d)

            def ref3(xs, d=dims, nm=name):
                return [_reduce_ref(d, "min", _identity("min", nm), nm)([xs[0]])[0],
                        _reduce_ref(d, "max", _identity("max", nm), nm)([xs[1]])[0],
                        _reduce_ref(d, "add", 0, "s32")([xs[2]])[0]]

            yield CaseSpec(case_id, fn, [x, x.copy(), c], numpy_ref=ref3, numpy_ref_name="numpy.fold_min_max_count",
                           expect_ops=("stablehlo.reduce",), group="reduce.variadic_3op.mixed", features=["variadic"],
                           attributes={"dimensions": list(dims), "body": "min_max_count", "num_operands": 3})


# --------------------------------------------------------------------------------------------------------------
# reduce_window

def _window_ref(operands: Sequence[np.ndarray], inits: Sequence[Any], body: Callable, window, strides, padding,
                base_dilation, window_dilation, names: Sequence[str]) -> list[np.ndarray]:
    """StableHLO semantics: pad (edges and base-dilation holes) with the init values, then fold each window."""
    rank = operands[0].ndim
    padded = []
    for x, init, name in zip(operands, inits, names):
        x = wide(x)
        shape = [padding[a][0] + padding[a][1] + (x.shape[a] - 1) * base_dilation[a] + 1 if x.shape[a] else
                 padding[a][0] + padding[a][1] for a in range(rank)]
        p = np.full(shape, _wide_scalar(init, name), dtype=x.dtype)
        p[tuple(slice(padding[a][0], padding[a][0] + (x.shape[a] - 1) * base_dilation[a] + 1, base_dilation[a])
                for a in range(rank))] = x
        padded.append(p)
    dilated = [(window[a] - 1) * window_dilation[a] + 1 for a in range(rank)]
    out_shape = [max(0, (padded[0].shape[a] - dilated[a]) // strides[a] + 1) for a in range(rank)]
    outs = [np.empty(out_shape, p.dtype) for p in padded]
    for pos in np.ndindex(*out_shape):
        acc = tuple(_wide_scalar(i, n) for i, n in zip(inits, names))
        for offset in np.ndindex(*window):
            where = tuple(pos[a] * strides[a] + offset[a] * window_dilation[a] for a in range(rank))
            with np.errstate(all="ignore"):
                acc = body(acc, tuple(p[where] for p in padded))
        for o, v in zip(outs, acc):
            o[pos] = v
    return [o.astype(_np(n)) for o, n in zip(outs, names)]


def _fits(shape, window, strides, padding, base_dilation, window_dilation) -> bool:
    for a in range(len(shape)):
        size = padding[a][0] + padding[a][1] + (shape[a] - 1) * base_dilation[a] + 1
        if size < (window[a] - 1) * window_dilation[a] + 1:
            return False
    return True


def _pairwise(levels: Sequence[Sequence[Any]], valid: Callable[[tuple], bool]) -> list[tuple]:
    """A deterministic greedy covering design: every pair of levels of two factors appears in some config."""
    uncovered = {(i, a, j, b) for i, j in itertools.combinations(range(len(levels)), 2)
                 for a in range(len(levels[i])) for b in range(len(levels[j]))}
    candidates = [c for c in itertools.product(*[range(len(l)) for l in levels])
                  if valid(tuple(levels[k][c[k]] for k in range(len(levels))))]
    chosen = []
    while uncovered:
        def gain(c):
            return sum((i, c[i], j, c[j]) in uncovered for i, j in itertools.combinations(range(len(levels)), 2))
        best = max(candidates, key=gain)
        if gain(best) == 0:
            break  # the rest cannot be covered by a valid config
        chosen.append(best)
        uncovered -= {(i, best[i], j, best[j]) for i, j in itertools.combinations(range(len(levels)), 2)}
    return [tuple(levels[k][c[k]] for k in range(len(levels))) for c in chosen]


def _rw_id(body: str, window, strides, padding, base_dilation, window_dilation, init_token: str, name: str,
           prefix: str = "") -> str:
    parts = [f"{prefix}{body}", f"w{_shape_token(window)}", f"s{_shape_token(strides)}", f"p{_pad_token(padding)}",
             f"bd{_shape_token(base_dilation)}", f"wd{_shape_token(window_dilation)}", init_token]
    return f"reduce_window.{'_'.join(parts)}.{name}"


def _reduce_window_case(case_id: str, x: np.ndarray, body: str, init: Any, window, strides, padding, base_dilation,
                        window_dilation, name: str, group: str) -> CaseSpec:
    init_arr = _scalar(init, name)
    np_body = _np_body(body, name)

    def fn(v, i=init_arr, b=LAX_BODIES[body]):
        return lax.reduce_window(v, i, b, window, strides, padding, base_dilation, window_dilation)

    def ref(xs):
        return _window_ref([xs[0]], [init], lambda acc, new: (np_body(acc[0], new[0]),), window, strides, padding,
                           base_dilation, window_dilation, [name])

    return CaseSpec(case_id, fn, [x], op_class=_op_class(body), numpy_ref=ref, numpy_ref_name=f"numpy.window_fold_{body}",
                    expect_ops=("stablehlo.reduce_window",), group=group,
                    attributes={"window_dimensions": list(window), "window_strides": list(strides),
                                "padding": [list(p) for p in padding], "base_dilations": list(base_dilation),
                                "window_dilations": list(window_dilation), "body": body,
                                "init_value": _json_scalar(init_arr)})


RW2_LEVELS = (
    [(1, 1), (2, 2), (3, 2), (1, 3), (4, 1)],  # window
    [(1, 1), (2, 2), (3, 1), (1, 2)],  # strides
    [((0, 0), (0, 0)), ((1, 1), (1, 1)), ((0, 2), (1, 0)), ((2, 0), (0, 1))],  # padding
    [(1, 1), (2, 1), (1, 3), (2, 2)],  # base dilation
    [(1, 1), (2, 1), (1, 2), (2, 2)],  # window dilation
)


def _reduce_window_cases() -> Iterator[CaseSpec]:
    shape2 = (4, 5)
    configs2 = _pairwise(RW2_LEVELS, lambda c: _fits(shape2, *c))
    # f32, rank 2: the covering design for each body, identity init.
    for body in ("add", "max", "min", "mul"):
        for n, (window, strides, padding, bd, wd) in enumerate(configs2):
            case_id = _rw_id(body, window, strides, padding, bd, wd, "id", "f32")
            x = _operand(rng_for(case_id), shape2, "f32", body)
            yield _reduce_window_case(case_id, x, body, _identity(body, "f32"), window, strides, padding, bd, wd, "f32",
                                      f"reduce_window.r2_{body}_{n // 16}.f32")
    # Non-identity inits: add/mul without padding or base dilation (XLA skips padding, see the findings);
    # max/min with padding and dilations (idempotent: identical either way).
    for body in ("add", "mul", "max", "min"):
        chosen = [c for c in configs2 if body in ("max", "min") or (c[2] == ((0, 0), (0, 0)) and c[3] == (1, 1))]
        for window, strides, padding, bd, wd in chosen[:6]:
            init = _other_init(body, "f32")
            case_id = _rw_id(body, window, strides, padding, bd, wd, f"init{_init_token(init)}", "f32")
            x = _operand(rng_for(case_id), shape2, "f32", body)
            yield _reduce_window_case(case_id, x, body, init, window, strides, padding, bd, wd, "f32",
                                      "reduce_window.r2_init.f32")
    # Ranks 1, 3, 4.
    rank_plans = {
        1: ((7,), [((3,), (1,), ((0, 0),), (1,), (1,)), ((2,), (2,), ((1, 0),), (1,), (1,)),
                   ((3,), (2,), ((2, 1),), (2,), (1,)), ((2,), (1,), ((0, 3),), (1,), (3,)),
                   ((7,), (1,), ((0, 0),), (1,), (1,)), ((1,), (3,), ((0, 0),), (1,), (1,)),
                   ((4,), (3,), ((1, 2),), (2,), (2,))]),
        3: ((3, 4, 5), [((2, 2, 2), (1, 1, 1), ((0, 0),) * 3, (1, 1, 1), (1, 1, 1)),
                        ((1, 3, 2), (1, 2, 2), ((0, 0), (1, 1), (0, 1)), (1, 1, 1), (1, 1, 1)),
                        ((3, 1, 2), (2, 1, 3), ((1, 0), (0, 0), (2, 2)), (1, 2, 1), (1, 1, 2)),
                        ((2, 2, 1), (1, 3, 1), ((0, 1), (2, 0), (0, 0)), (2, 1, 1), (1, 2, 1)),
                        ((1, 1, 5), (1, 1, 1), ((0, 0),) * 3, (1, 1, 1), (1, 1, 1)),
                        ((2, 3, 3), (2, 2, 2), ((1, 1),) * 3, (2, 2, 2), (2, 1, 2))]),
        4: ((2, 4, 4, 3), [((1, 2, 2, 1), (1, 2, 2, 1), ((0, 0),) * 4, (1,) * 4, (1,) * 4),  # NHWC pooling
                           ((1, 3, 3, 1), (1, 1, 1, 1), ((0, 0), (1, 1), (1, 1), (0, 0)), (1,) * 4, (1,) * 4),
                           ((1, 1, 2, 2), (1, 1, 2, 2), ((0, 0),) * 4, (1,) * 4, (1,) * 4),  # NCHW pooling
                           ((2, 2, 1, 2), (1, 2, 1, 1), ((0, 0), (0, 1), (1, 0), (0, 1)), (1, 1, 2, 1), (1, 2, 1, 1)),
                           ((1, 2, 2, 2), (1, 3, 2, 1), ((0, 0), (2, 0), (0, 2), (1, 0)), (1, 2, 1, 1), (1, 1, 2, 1)),
                           ((2, 1, 1, 3), (2, 1, 1, 1), ((1, 0),) * 4, (1,) * 4, (1, 1, 1, 1))]),
    }
    for rank, (shape, plans) in rank_plans.items():
        for body in ("add", "max"):
            for window, strides, padding, bd, wd in plans:
                case_id = _rw_id(body, window, strides, padding, bd, wd, "id", "f32", prefix=f"r{rank}")
                x = _operand(rng_for(case_id), shape, "f32", body)
                yield _reduce_window_case(case_id, x, body, _identity(body, "f32"), window, strides, padding, bd, wd,
                                          "f32", f"reduce_window.r{rank}.f32")
    # Other element types: a spread of the rank-2 design, two bodies each.
    other = {"f64": ("add", "min"), "bf16": ("add", "max"), "f16": ("mul", "max"), "s32": ("add", "max"),
             "s8": ("min", "add"), "u8": ("max", "add"), "u32": ("mul", "min")}
    for name, bodies in other.items():
        for body in bodies:
            for n, (window, strides, padding, bd, wd) in enumerate(configs2):
                if n % 3 != (len(name) + len(body)) % 3:
                    continue
                init_kind = "id" if n % 2 == 0 or (body in ("add", "mul") and (padding != ((0, 0), (0, 0)) or bd != (1, 1))) else "init"
                init = _identity(body, name) if init_kind == "id" else _other_init(body, name)
                token = "id" if init_kind == "id" else f"init{_init_token(init)}"
                case_id = _rw_id(body, window, strides, padding, bd, wd, token, name)
                x = _operand(rng_for(case_id), shape2, name, body)
                yield _reduce_window_case(case_id, x, body, init, window, strides, padding, bd, wd, name,
                                          f"reduce_window.r2_{body}.{name}")
    # pred with and/or.
    for body in ("and", "or"):
        for window, strides, padding, bd, wd in configs2[:4]:
            case_id = _rw_id(body, window, strides, padding, bd, wd, "id", "pred")
            x = random_array(rng_for(case_id), shape2, "pred")
            yield _reduce_window_case(case_id, x, body, _identity(body, "pred"), window, strides, padding, bd, wd,
                                      "pred", "reduce_window.r2_bits.pred")
    yield from _reduce_window_variadic_cases(configs2)


def _reduce_window_variadic_cases(configs2) -> Iterator[CaseSpec]:
    """Two operands in one reduce_window: argmax pooling (value, index) and an independent (sum, max) pair."""
    shape = (4, 5)
    for name in ("f32", "s32", "bf16"):
        for window, strides, padding, bd, wd in configs2[:8 if name == "f32" else 3]:
            case_id = _rw_id("argmax", window, strides, padding, bd, wd, "id", name, prefix="variadic_")
            rng = rng_for(case_id)
            x = rng.integers(-2, 3, size=shape).astype(_np(name))  # ties: lower index wins
            idx = np.arange(x.size, dtype=np.int32).reshape(shape)
            init_v = _scalar(-np.inf if _is_float(name) else np.iinfo(_np(name)).min, name)
            init_i = np.array(np.iinfo(np.int32).max, np.int32)

            def fn(v, i, w=window, s=strides, p=padding, b=bd, d=wd, iv=init_v, ii=init_i):
                return lax.reduce_window((v, i), (iv, ii), _argbody("argmax"), w, s, p, b, d)

            def np_arg(acc, new):
                av, ai = acc
                bv, bi = new
                pick = (av > bv) or (av == bv and ai < bi)
                return (av, ai) if pick else (bv, bi)

            def ref(xs, w=window, s=strides, p=padding, b=bd, d=wd, iv=init_v, ii=init_i, nm=name):
                return _window_ref(xs, [iv, ii], np_arg, w, s, p, b, d, [nm, "s32"])

            yield CaseSpec(case_id, fn, [x, idx], numpy_ref=ref, numpy_ref_name="numpy.window_argmax_lower_index",
                           expect_ops=("stablehlo.reduce_window",), group=f"reduce_window.variadic.{name}",
                           features=["variadic"],
                           attributes={"window_dimensions": list(window), "window_strides": list(strides),
                                       "padding": [list(q) for q in padding], "base_dilations": list(bd),
                                       "window_dilations": list(wd), "body": "argmax_pair", "num_operands": 2})
    for window, strides, padding, bd, wd in configs2[:6]:
        case_id = _rw_id("sum_max", window, strides, padding, bd, wd, "id", "f32", prefix="variadic_")
        rng = rng_for(case_id)
        a = random_array(rng, shape, "f32")
        b = random_array(rng, shape, "s32")
        inits = (np.float32(0), np.array(np.iinfo(np.int32).min, np.int32))

        def fn2(u, v, w=window, s=strides, p=padding, bb=bd, d=wd, i=inits):
            return lax.reduce_window((u, v), i, lambda x, y: (lax.add(x[0], y[0]), lax.max(x[1], y[1])), w, s, p, bb, d)

        def ref2(xs, w=window, s=strides, p=padding, bb=bd, d=wd, i=inits):
            return _window_ref(xs, list(i), lambda acc, new: (acc[0] + new[0], max(acc[1], new[1])), w, s, p, bb, d,
                               ["f32", "s32"])

        yield CaseSpec(case_id, fn2, [a, b], op_class="reduction", numpy_ref=ref2, numpy_ref_name="numpy.window_sum_max",
                       expect_ops=("stablehlo.reduce_window",), group="reduce_window.variadic_pair.f32",
                       features=["variadic"],
                       attributes={"window_dimensions": list(window), "window_strides": list(strides),
                                   "padding": [list(q) for q in padding], "base_dilations": list(bd),
                                   "window_dilations": list(wd), "body": "add_max", "num_operands": 2})


# --------------------------------------------------------------------------------------------------------------
# select_and_scatter

def _sas_ref(operand: np.ndarray, source: np.ndarray, select: str, scatter: str, init: Any, window, strides,
             padding, name: str) -> np.ndarray:
    """XLA/StableHLO semantics: in each window (padding positions are never selected) the element chosen by
    `select` (kept while select(current, candidate) holds, windows scanned in row-major order) receives the source
    value, combined into init with `scatter`."""
    rank = operand.ndim
    x = wide(operand)
    src = wide(source)
    keep = {"ge": np.greater_equal, "le": np.less_equal}[select]
    out = np.full(operand.shape, _wide_scalar(init, name), dtype=src.dtype)
    combine = _np_body(scatter, name)
    for pos in np.ndindex(*source.shape):
        chosen = None
        for offset in np.ndindex(*window):
            where = tuple(pos[a] * strides[a] + offset[a] - padding[a][0] for a in range(rank))
            if any(w < 0 or w >= operand.shape[a] for a, w in enumerate(where)):
                continue
            if chosen is None or not keep(x[chosen], x[where]):
                chosen = where
        assert chosen is not None, "window entirely in padding"
        out[chosen] = combine(out[chosen], src[pos])
    return out.astype(_np(name))


def _sas_valid(shape, window, strides, padding) -> bool:
    rank = len(shape)
    padded = [shape[a] + padding[a][0] + padding[a][1] for a in range(rank)]
    if any(padded[a] < window[a] for a in range(rank)):
        return False
    out = [(padded[a] - window[a]) // strides[a] + 1 for a in range(rank)]
    # Every window must hold an operand element.
    for a in range(rank):
        for p in range(out[a]):
            lo = p * strides[a] - padding[a][0]
            if lo + window[a] <= 0 or lo >= shape[a]:
                return False
    return True


def _sas_case(case_id: str, shape, window, strides, padding, select: str, scatter: str, init: Any, name: str,
              group: str) -> CaseSpec:
    rng = rng_for(case_id)
    size = int(np.prod(shape))
    # Distinct operand values: which element a window selects is then fixed by the spec (no ties).
    if name == "u8":
        operand = rng.permutation(size).astype(np.uint8)
    elif name in ("s8", "s32"):
        operand = (rng.permutation(size) - size // 2).astype(_np(name))
    else:
        operand = ((rng.permutation(size) - size // 2) * 0.25).astype(_np(name))
    operand = operand.reshape(shape)
    out_shape = tuple((shape[a] + padding[a][0] + padding[a][1] - window[a]) // strides[a] + 1 for a in range(len(shape)))
    source = random_array(rng, out_shape, name, "small" if scatter == "add" and name not in ("u8", "s8") else "positive")
    init_arr = _scalar(init, name)
    select_fn = {"ge": lax.ge, "le": lax.le}[select]
    fn = (lambda o, s, sf=select_fn, sc=LAX_BODIES[scatter], i=init_arr:
          _select_and_scatter(o, sf, window, strides, padding, s, i, sc))
    return CaseSpec(case_id, fn, [operand, source], op_class=_op_class(scatter),
                    numpy_ref=lambda xs: [_sas_ref(xs[0], xs[1], select, scatter, init, window, strides, padding, name)],
                    numpy_ref_name=f"numpy.select_{select}_scatter_{scatter}", expect_ops=("stablehlo.select_and_scatter",),
                    selector_inputs=(0,), group=group,
                    attributes={"window_dimensions": list(window), "window_strides": list(strides),
                                "padding": [list(p) for p in padding], "select": select, "scatter": scatter,
                                "init_value": _json_scalar(init_arr)})


SAS_LEVELS = (
    [(2, 2), (3, 3), (2, 3), (1, 2), (3, 1)],  # window
    [(1, 1), (2, 2), (1, 2), (3, 2)],  # strides
    [((0, 0), (0, 0)), ((1, 1), (1, 1)), ((0, 1), (1, 0)), ((1, 0), (0, 2))],  # padding
    ["ge", "le"],  # select
    ["add", "max"],  # scatter
    ["id", "init"],  # init value
)


def _sas_id(window, strides, padding, select, scatter, init_token, name, prefix="") -> str:
    return (f"select_and_scatter.{prefix}{select}_{scatter}_w{_shape_token(window)}_s{_shape_token(strides)}"
            f"_p{_pad_token(padding)}_{init_token}.{name}")


def _select_and_scatter_cases() -> Iterator[CaseSpec]:
    shape = (5, 6)
    configs = _pairwise(SAS_LEVELS, lambda c: _sas_valid(shape, c[0], c[1], c[2]))
    for name in ("f32", "f64", "bf16", "f16", "s32", "s8", "u8"):
        for n, (window, strides, padding, select, scatter, init_kind) in enumerate(configs):
            if name != "f32" and n % 4 != len(name) % 4:
                continue
            init = (0 if scatter == "add" else _identity("max", name)) if init_kind == "id" else (
                1.5 if _is_float(name) else 2)
            token = "id" if init_kind == "id" else f"init{_init_token(init)}"
            case_id = _sas_id(window, strides, padding, select, scatter, token, name)
            yield _sas_case(case_id, shape, window, strides, padding, select, scatter, init, name,
                            f"select_and_scatter.r2.{name}")
    plans = {
        1: ((7,), [((2,), (2,), ((0, 1),)), ((3,), (1,), ((1, 1),)), ((3,), (2,), ((2, 0),)), ((1,), (1,), ((0, 0),))]),
        3: ((3, 4, 4), [((2, 2, 2), (1, 2, 2), ((0, 1), (0, 0), (0, 0))), ((1, 3, 2), (1, 1, 2), ((0, 0), (1, 1), (0, 0))),
                        ((3, 2, 3), (2, 2, 1), ((1, 1), (0, 0), (1, 0)))]),
        4: ((2, 4, 4, 2), [((1, 2, 2, 1), (1, 2, 2, 1), ((0, 0),) * 4),  # NHWC max-pool gradient
                           ((1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0))),
                           ((1, 1, 2, 2), (1, 1, 2, 1), ((0, 0), (0, 0), (0, 1), (0, 0)))]),
    }
    for rank, (shp, items) in plans.items():
        for window, strides, padding in items:
            assert _sas_valid(shp, window, strides, padding), (window, strides, padding)
            for select in ("ge", "le"):
                case_id = _sas_id(window, strides, padding, select, "add", "id", "f32", prefix=f"r{rank}_")
                yield _sas_case(case_id, shp, window, strides, padding, select, "add", 0, "f32",
                                f"select_and_scatter.r{rank}.f32")
    # The max-pool gradient as JAX emits it (jax.grad of reduce_window max).
    for window, strides, padding in (((2, 2), (2, 2), ((0, 0), (0, 0))), ((3, 3), (1, 1), ((1, 1), (1, 1))),
                                     ((2, 3), (1, 2), ((0, 1), (1, 0)))):
        for name in ("f32", "bf16"):
            case_id = _sas_id(window, strides, padding, "ge", "add", "id", name, prefix="maxpool_grad_")
            rng = rng_for(case_id)
            x = ((rng.permutation(30) - 15) * 0.5).astype(_np(name)).reshape(shape)
            out_shape = tuple((shape[a] + sum(padding[a]) - window[a]) // strides[a] + 1 for a in range(2))
            g = random_array(rng, out_shape, name, "small")

            def fn(v, c, w=window, s=strides, p=padding, nm=name):
                pool = lambda u: lax.reduce_window(u, _scalar(-np.inf, nm), lax.max, w, s, p)
                return jax.vjp(pool, v)[1](c)[0]

            yield CaseSpec(case_id, fn, [x, g], op_class="reduction",
                           numpy_ref=lambda xs, w=window, s=strides, p=padding, nm=name: [
                               _sas_ref(xs[0], xs[1], "ge", "add", 0, w, s, p, nm)],
                           numpy_ref_name="numpy.max_pool_gradient", expect_ops=("stablehlo.select_and_scatter",),
                           selector_inputs=(0,), group=f"select_and_scatter.maxpool_grad.{name}",
                           attributes={"window_dimensions": list(window), "window_strides": list(strides),
                                       "padding": [list(q) for q in padding], "select": "ge", "scatter": "add",
                                       "init_value": 0, "via": "jax.vjp(reduce_window max)"})


# --------------------------------------------------------------------------------------------------------------
# sort

def _jax_key(x: np.ndarray) -> np.ndarray:
    """JAX's default comparator: -0.0 == 0.0, every NaN equal and after +inf; integers as they are."""
    if x.dtype.kind in "iub":
        return x.astype(np.int64)
    x = x.astype(np.float64)
    return _total_order_key(np.where(np.isnan(x), np.nan, x))


def _totalorder_key(x: np.ndarray) -> np.ndarray:
    """compare TOTALORDER: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN (sign bit of NaN kept)."""
    if x.dtype.kind in "iub":
        return x.astype(np.int64)
    bits = x.astype(np.float64).view(np.int64)
    return np.where(bits < 0, bits ^ np.int64(0x7FFFFFFFFFFFFFFF), bits)


def _sort_ref(dimension: int, keys: Callable[[Sequence[np.ndarray]], list[np.ndarray]]):
    """Stable lexicographic sort along `dimension`; `keys` gives the key arrays, primary first."""
    def ref(xs):
        key_arrays = keys(xs)
        moved = [np.moveaxis(np.asarray(x), dimension, -1) for x in xs]
        moved_keys = [np.moveaxis(k, dimension, -1) for k in key_arrays]
        outs = [np.empty_like(m) for m in moved]
        for pos in np.ndindex(*moved[0].shape[:-1]):
            perm = np.lexsort([k[pos] for k in moved_keys[::-1]])
            for o, m in zip(outs, moved):
                o[pos] = m[pos][perm]
        return [np.moveaxis(o, -1, dimension) for o in outs]
    return ref


def _sort_attrs(dimension: int, is_stable: bool, num_keys: int | None, comparator: str, n: int) -> dict:
    attrs = {"dimension": dimension, "is_stable": is_stable, "comparator": comparator, "num_operands": n}
    if num_keys is not None:
        attrs["num_keys"] = num_keys
    return attrs


def _sort_default_cases() -> Iterator[CaseSpec]:
    shape = (3, 4, 5)
    for name in ("f32", "f64", "bf16", "f16", "s32", "s8", "u8", "u32", "pred"):
        for dimension in range(3):
            for stable in (True, False):
                case_id = f"sort.dim{dimension}_{'stable' if stable else 'unstable'}_keyonly.{name}"
                x = random_array(rng_for(case_id), shape, name, "small")
                if _is_float(name):
                    x = np.round(x.astype(np.float64) * 2).astype(_np(name))  # ties (equal keys)
                yield CaseSpec(case_id, lambda v, d=dimension, s=stable: lax.sort(v, dimension=d, is_stable=s), [x],
                               numpy_ref=_sort_ref(dimension, lambda xs: [_jax_key(xs[0])]),
                               numpy_ref_name="numpy.lexsort", expect_ops=("stablehlo.sort",),
                               group=f"sort.dims.{name}", attributes=_sort_attrs(dimension, stable, 1, "lt_default", 1))
    # Stability: few distinct keys, a payload (iota) shows the order of equal keys; num_keys 1..3.
    for name in ("f32", "s32", "bf16", "u8"):
        for dimension in range(3):
            for num_keys in (1, 2, 3):
                if name != "f32" and num_keys == 3:
                    continue
                case_id = f"sort.dim{dimension}_stable_nkeys{num_keys}_3op.{name}"
                rng = rng_for(case_id)
                k0 = rng.integers(0, 3, size=shape).astype(_np(name))
                k1 = rng.integers(-1, 2, size=shape).astype(np.int32)
                k2 = random_array(rng, shape, "f32", "small")
                if not np.any(k0):
                    k0.flat[0] = 1
                ops = [k0, k1, k2]
                payload = np.arange(np.prod(shape), dtype=np.int32).reshape(shape) + 1
                yield CaseSpec(case_id,
                               lambda a, b, c, p, d=dimension, nk=num_keys: lax.sort((a, b, c, p), dimension=d,
                                                                                     is_stable=True, num_keys=nk),
                               ops + [payload],
                               numpy_ref=_sort_ref(dimension, lambda xs, nk=num_keys: [_jax_key(x) for x in xs[:nk]]),
                               numpy_ref_name="numpy.lexsort", expect_ops=("stablehlo.sort",),
                               group=f"sort.stable_nkeys.{name}", features=["multi_operand"],
                               attributes=_sort_attrs(dimension, True, num_keys, "lt_default_lexicographic", 4))
    # Special values with JAX's comparator: NaN last (any sign), -0.0 == +0.0 keep their order (stable).
    for name in FLOATS:
        for dimension in (0, 1):
            case_id = f"sort.dim{dimension}_stable_specials_payload.{name}"
            rng = rng_for(case_id)
            values = np.concatenate([special_values(name), [-np.nan, 0.0, -0.0, np.inf]])
            x = rng.permutation(np.resize(values, 24)).astype(_np(name)).reshape((4, 6) if dimension else (6, 4))
            x = _with_negative_nan(x, rng)
            payload = np.arange(24, dtype=np.int32).reshape(x.shape)
            yield CaseSpec(case_id, lambda v, p, d=dimension: lax.sort((v, p), dimension=d, is_stable=True, num_keys=1),
                           [x, payload], numpy_ref=_sort_ref(dimension, lambda xs: [_jax_key(xs[0])]),
                           numpy_ref_name="numpy.lexsort(jax total order)", expect_ops=("stablehlo.sort",),
                           group=f"sort.specials.{name}", features=["special_values"],
                           attributes=_sort_attrs(dimension, True, 1, "lt_default", 2))


def _with_negative_nan(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Flip the sign bit of some NaNs (numpy's -np.nan does not reliably set it)."""
    flat = x.reshape(-1).copy()
    nan_positions = np.flatnonzero(np.isnan(flat.astype(np.float64)))
    bits = flat.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[flat.dtype.itemsize])
    sign = bits.dtype.type(1) << bits.dtype.type(8 * flat.dtype.itemsize - 1)
    for k, position in enumerate(nan_positions):
        if k % 2 == 0:
            bits[position] |= sign
    return flat.reshape(x.shape)


# A sort whose comparator region we write: stablehlo.sort's comparator is otherwise always JAX's default.
_custom_sort_p = jax_core.Primitive("cts_sort_custom_comparator")
_custom_sort_p.multiple_results = True
_custom_sort_p.def_abstract_eval(lambda *ops, **_: [jax_core.ShapedArray(o.shape, o.dtype) for o in ops])


def _custom_sort_lower(ctx, *operands, comparator, dimension, is_stable):
    out_types = [mlir.aval_to_ir_type(ctx.module_context, a) for a in ctx.avals_out]
    sort = hlo.SortOp(out_types, list(operands), dimension=mlir.i64_attr(dimension),
                      is_stable=ir.BoolAttr.get(is_stable))
    scalar_avals = [jax_core.ShapedArray((), a.dtype) for a in ctx.avals_in]
    pair_avals = [a for a in scalar_avals for _ in range(2)]
    block = sort.comparator.blocks.append(*[mlir.aval_to_ir_type(ctx.module_context, a) for a in pair_avals])
    with ir.InsertionPoint(block):
        lower = mlir.lower_fun(comparator, multiple_results=False)
        sub = ctx.replace(primitive=None, avals_in=pair_avals, avals_out=[jax_core.ShapedArray((), np.bool_)])
        out = lower(sub, *block.arguments)
        flat, _ = mlir.ir_tree_registry.flatten(out)
        hlo.return_(flat)
    return sort.results


mlir.register_lowering(_custom_sort_p, _custom_sort_lower)


def _lt_total(a, b):
    return lax_internal.lt_to_p.bind(a, b)  # compare LT, TOTALORDER


def _eq_total(a, b):
    return lax_internal.eq_to_p.bind(a, b)  # compare EQ, TOTALORDER


# name -> (comparator on (a0, b0, a1, b1, ...), key arrays for numpy (primary first), float NaN allowed, ties ok)
def _cmp_lt_total(a0, b0, *rest):
    return _lt_total(a0, b0)


def _cmp_gt_total(a0, b0, *rest):
    return _lt_total(b0, a0)


def _cmp_lt_float(a0, b0, *rest):
    return lax.lt(a0, b0)


def _cmp_gt_float(a0, b0, *rest):
    return lax.gt(a0, b0)


def _cmp_by_second(a0, b0, a1, b1, *rest):
    return lax.lt(a1, b1)


def _cmp_desc_then_asc(a0, b0, a1, b1, *rest):
    return lax.bitwise_or(lax.gt(a0, b0), lax.bitwise_and(lax.eq(a0, b0), lax.lt(a1, b1)))


def _cmp_abs(a0, b0, *rest):
    return lax.lt(lax.abs(a0), lax.abs(b0))


def _desc(k: np.ndarray) -> np.ndarray:
    return ~k  # order-reversing on int64 keys without overflow


def _float_key(x: np.ndarray) -> np.ndarray:
    """Plain IEEE ordering (inputs hold no NaN): -0.0 == +0.0."""
    return _jax_key(x)


COMPARATORS = {
    # token: (comparator, keys(xs), allows NaN)
    "lttotal": (_cmp_lt_total, lambda xs: [_totalorder_key(xs[0])], True),
    "gttotal": (_cmp_gt_total, lambda xs: [_desc(_totalorder_key(xs[0]))], True),
    "ltfloat": (_cmp_lt_float, lambda xs: [_float_key(xs[0])], False),
    "gtfloat": (_cmp_gt_float, lambda xs: [_desc(_float_key(xs[0]))], False),
    "bysecond": (_cmp_by_second, lambda xs: [_jax_key(xs[1])], False),
    "desc0asc1": (_cmp_desc_then_asc, lambda xs: [_desc(_float_key(xs[0])), _jax_key(xs[1])], False),
    "absval": (_cmp_abs, lambda xs: [_float_key(np.abs(wide(xs[0])))], False),
}


def _sort_custom_cases() -> Iterator[CaseSpec]:
    plans = {"f32": list(COMPARATORS), "f64": ["lttotal", "gtfloat", "desc0asc1"],
             "bf16": ["gttotal", "ltfloat", "bysecond"], "f16": ["lttotal", "absval"],
             "s32": ["ltfloat", "gtfloat", "bysecond", "desc0asc1", "absval"], "u8": ["gtfloat", "desc0asc1"],
             "s8": ["absval", "gtfloat"]}
    for name, tokens in plans.items():
        for token in tokens:
            comparator, keys, allows_nan = COMPARATORS[token]
            if not _is_float(name) and token.endswith("total"):
                continue
            label = token.replace("float", "") if not _is_float(name) else token
            for dimension in (0, 1):
                case_id = f"sort.dim{dimension}_stable_cmp_{label}.{name}"
                rng = rng_for(case_id)
                shape = (6, 4) if dimension == 0 else (3, 6)
                x = random_array(rng, shape, name, "small")
                if _is_float(name):
                    x = np.round(x.astype(np.float64) * 2).astype(_np(name))  # ties
                    if allows_nan:
                        values = np.concatenate([special_values(name), [-0.0, 0.0, np.nan, -np.nan]])
                        x.flat[: min(x.size, 10)] = rng.choice(values, size=min(x.size, 10))
                        x = _with_negative_nan(x, rng)
                    else:
                        x.flat[:2] = [-0.0, 0.0]  # equal under FLOAT compare: stable order decides
                second = rng.integers(-2, 3, size=shape).astype(np.int32)
                payload = np.arange(x.size, dtype=np.int32).reshape(shape)
                fn = (lambda a, b, c, cmp=comparator, d=dimension:
                      _custom_sort_p.bind(a, b, c, comparator=cmp, dimension=d, is_stable=True))
                yield CaseSpec(case_id, fn, [x, second, payload], numpy_ref=_sort_ref(dimension, keys),
                               numpy_ref_name="numpy.lexsort(custom comparator)", expect_ops=("stablehlo.sort",),
                               group=f"sort.custom_cmp.{name}", features=["multi_operand"] + (
                                   ["special_values"] if allows_nan and _is_float(name) else []),
                               attributes=_sort_attrs(dimension, True, None, label, 3))


def _defined(specs: Iterator[CaseSpec]) -> Iterator[CaseSpec]:
    """Only reductions whose result StableHLO defines: the order of a reduce and how often it applies the init
    value are implementation-defined, so a non-empty reduce with an init value that is not the body's identity
    has one defined result only for idempotent bodies (min, max, and, or). XLA:GPU applies the init once per
    partial reduction along the minor dimension (seen: dims (2,) and (0, 2) of a 2x3x4 operand give init added
    twice): add/mul/xor with another init are left out."""
    for spec in specs:
        stem = spec.id.split(".")[1]
        if any(f"_{body}_init" in stem for body in ("add", "mul", "xor")) or (
                stem.startswith("variadic_sum_") and "_init" in stem):
            continue
        # A product of values near the narrow type's largest finite value overflows or not depending on the
        # (implementation-defined) order and accumulation width: XLA:GPU gave -inf, then the finite value.
        if stem.startswith("special_") and "_mul_" in stem and spec.id.endswith((".bf16", ".f16")):
            continue
        yield spec


def cases() -> Iterator[CaseSpec]:
    yield from _defined(_reduce_dims_cases())
    yield from _reduce_empty_cases()
    yield from _defined(_reduce_special_cases())
    yield from _defined(_variadic_cases())
    yield from _reduce_window_cases()
    yield from _select_and_scatter_cases()
    yield from _sort_default_cases()
    yield from _sort_custom_cases()
