"""convert between all supported element types, bitcast_convert, and the fp8/fp4 types."""
from __future__ import annotations

from typing import Iterator

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.inputs import nary_ref, random_array, unary_ref

from jax import lax  # noqa: E402 - imported after env has configured JAX

STANDARD = ("pred",) + dtypes.INTEGER_NAMES + ("f16", "bf16", "f32", "f64") + dtypes.COMPLEX_NAMES


def _range(name: str) -> tuple[float, float]:
    if name == "pred":
        return 0, 1
    if name.startswith("u"):
        return 0, 100
    return -100, 100


def _is_floaty(name: str) -> bool:
    return dtypes.is_floating(name) or dtypes.is_complex(name)


def convert_values(rng: np.random.Generator, src: str, dst: str, size: int = 12) -> np.ndarray:
    """Values exactly meaningful in both types (no out-of-range conversions, which the spec leaves open)."""
    src_dtype = dtypes.dtype_of(src)
    if src == "pred":
        values = random_array(rng, (size,), "pred")
        return values
    low = max(_range(src)[0], _range(dst)[0]) if dst != "pred" else _range(src)[0]
    high = min(_range(src)[1], _range(dst)[1]) if dst != "pred" else _range(src)[1]
    values = rng.integers(int(low), int(high), size=size, endpoint=True).astype(np.float64)
    if _is_floaty(src):
        # Fractions exercise float->int truncation toward zero and exact float->float transfer.
        values = values + rng.choice([0.0, 0.25, 0.5, 0.75], size=size) * np.sign(values + 0.5)
        values = np.clip(values, low, high)
    if dst == "pred":
        values[:3] = [0.0, 1.0, 3.0 if _range(src)[1] >= 3 else 1.0]
    if dtypes.is_complex(src):
        return (values + 1j * rng.integers(-4, 4, size=size)).astype(src_dtype)
    array = values.astype(src_dtype)
    if not np.any(array != 0):
        array[0] = src_dtype.type(1)
    return array


def _convert_ref(dst: str):
    dst_dtype = dtypes.dtype_of(dst)

    def ref(xs):
        x = xs[0]
        if np.iscomplexobj(x) and not dtypes.is_complex(dst):
            x = np.real(x)  # JAX converts complex to real through stablehlo.real
        if dst == "pred":
            return [x != 0]
        with np.errstate(all="ignore"):
            return [x.astype(dst_dtype)]
    return ref


def _convert_fn(dst_dtype: np.dtype):
    return lambda x: lax.convert_element_type(x, dst_dtype)


def _convert_cases() -> Iterator[CaseSpec]:
    for src in STANDARD:
        for dst in STANDARD:
            if src == dst:
                continue
            case_id = f"convert.{src}_to_{dst}.r1"
            x = convert_values(rng_for(case_id), src, dst)
            ops = ("stablehlo.convert",) if not (dtypes.is_complex(src) and not dtypes.is_complex(dst)) else ("stablehlo.real",)
            yield CaseSpec(case_id, _convert_fn(dtypes.dtype_of(dst)), [x], numpy_ref=_convert_ref(dst),
                           numpy_ref_name=f"numpy.astype({dst})", expect_ops=ops)
    # Round-to-nearest-even when narrowing floats.
    for src, dst in (("f32", "bf16"), ("f32", "f16"), ("f64", "f32"), ("f64", "f16"), ("f16", "bf16"), ("bf16", "f16")):
        case_id = f"convert.{src}_to_{dst}.rounding"
        rng = rng_for(case_id)
        x = (rng.standard_normal(32) * 10).astype(dtypes.dtype_of(src))
        yield CaseSpec(case_id, _convert_fn(dtypes.dtype_of(dst)), [x], numpy_ref=_convert_ref(dst),
                       numpy_ref_name=f"ml_dtypes.astype({dst})", expect_ops=("stablehlo.convert",))


BITCAST_GROUPS = (("s8", "u8"), ("s16", "u16", "f16", "bf16"), ("s32", "u32", "f32"), ("s64", "u64", "f64"))


def _bitcast_source(rng: np.random.Generator, name: str, shape: tuple[int, ...]) -> np.ndarray:
    if dtypes.is_floating(name):
        return random_array(rng, shape, name)
    return random_array(rng, shape, name, "full")


def _bitcast_cases() -> Iterator[CaseSpec]:
    for group in BITCAST_GROUPS:
        for src in group:
            for dst in group:
                if src == dst:
                    continue
                case_id = f"bitcast.{src}_to_{dst}.r2"
                x = _bitcast_source(rng_for(case_id), src, (3, 4))
                dst_dtype = dtypes.dtype_of(dst)
                yield CaseSpec(case_id, lambda v, d=dst_dtype: lax.bitcast_convert_type(v, d), [x],
                               numpy_ref=lambda xs, d=dst_dtype: [xs[0].view(d)], numpy_ref_name="numpy.view",
                               expect_ops=("stablehlo.bitcast_convert",))
    for src, dst in (("f32", "u8"), ("f64", "u32"), ("u32", "u16"), ("s64", "s8")):
        case_id = f"bitcast.{src}_to_{dst}.narrowing"
        x = _bitcast_source(rng_for(case_id), src, (3, 2))
        dst_dtype = dtypes.dtype_of(dst)
        ratio = dtypes.dtype_of(src).itemsize // dst_dtype.itemsize
        yield CaseSpec(case_id, lambda v, d=dst_dtype: lax.bitcast_convert_type(v, d), [x],
                       numpy_ref=lambda xs, d=dst_dtype, r=ratio: [xs[0].view(d).reshape(xs[0].shape + (r,))],
                       numpy_ref_name="numpy.view", expect_ops=("stablehlo.bitcast_convert",))
    for src, dst in (("u8", "f32"), ("u16", "u32"), ("s32", "f64")):
        case_id = f"bitcast.{src}_to_{dst}.widening"
        src_dtype, dst_dtype = dtypes.dtype_of(src), dtypes.dtype_of(dst)
        ratio = dst_dtype.itemsize // src_dtype.itemsize
        x = random_array(rng_for(case_id), (3, ratio), src, "small")
        yield CaseSpec(case_id, lambda v, d=dst_dtype: lax.bitcast_convert_type(v, d), [x],
                       numpy_ref=lambda xs, d=dst_dtype: [np.ascontiguousarray(xs[0]).view(d).reshape(xs[0].shape[:-1])],
                       numpy_ref_name="numpy.view", expect_ops=("stablehlo.bitcast_convert",))


# ---- fp8 / fp4 ---------------------------------------------------------------------------------------


def _fp8_cases() -> Iterator[CaseSpec]:
    for name in dtypes.FP8_NAMES:
        dtype = dtypes.dtype_of(name)
        for other in ("f32", "f16", "bf16", "f64"):
            case_id = f"fp8.convert.{name}_to_{other}.r1"
            x = random_array(rng_for(case_id), (12,), name)
            yield CaseSpec(case_id, _convert_fn(dtypes.dtype_of(other)), [x], numpy_ref=_convert_ref(other),
                           numpy_ref_name=f"ml_dtypes.astype({other})", expect_ops=("stablehlo.convert",))
        for other in ("f32", "bf16"):
            case_id = f"fp8.convert.{other}_to_{name}.r1"
            # Values of the fp8 type itself, so the conversion is exact (rounding modes of the
            # narrow types are covered below for f32 only).
            x = random_array(rng_for(case_id), (12,), name).astype(dtypes.dtype_of(other))
            yield CaseSpec(case_id, _convert_fn(dtype), [x], numpy_ref=_convert_ref(name),
                           numpy_ref_name=f"ml_dtypes.astype({name})", expect_ops=("stablehlo.convert",))
        if name not in ("f8e8m0fnu",):
            case_id = f"fp8.convert.f32_to_{name}.rounding"
            rng = rng_for(case_id)
            limit = float(dtypes.finfo(name).max) / 2
            x = np.clip(rng.standard_normal(16) * 3, -limit, limit).astype(np.float32)
            if name == "f4e2m1fn":
                x = np.abs(x)
            yield CaseSpec(case_id, _convert_fn(dtype), [x], numpy_ref=_convert_ref(name),
                           numpy_ref_name=f"ml_dtypes.astype({name})", expect_ops=("stablehlo.convert",))
        binary = {"add": (lax.add, np.add), "multiply": (lax.mul, np.multiply), "maximum": (lax.max, np.maximum),
                  "minimum": (lax.min, np.minimum)}
        if name not in ("f8e8m0fnu", "f4e2m1fn"):
            binary["subtract"] = (lax.sub, np.subtract)
        for op_name, (fn, ref) in binary.items():
            case_id = f"fp8.{op_name}.{name}.r1"
            rng = rng_for(case_id)
            kind = "small"
            a = random_array(rng, (12,), name, kind)
            b = random_array(rng, (12,), name, kind)
            yield CaseSpec(case_id, fn, [a, b], op_class="arith", numpy_ref=nary_ref(ref), numpy_ref_name=f"numpy.{op_name}",
                           expect_ops=(f"stablehlo.{op_name}",))
        unary = {"abs": (lax.abs, np.abs)}
        if name not in ("f8e8m0fnu",):
            unary["negate"] = (lax.neg, np.negative)
        for op_name, (fn, ref) in unary.items():
            case_id = f"fp8.{op_name}.{name}.r1"
            x = random_array(rng_for(case_id), (12,), name)
            yield CaseSpec(case_id, fn, [x], numpy_ref=unary_ref(ref), numpy_ref_name=f"numpy.{op_name}",
                           expect_ops=(f"stablehlo.{op_name}",))
        case_id = f"fp8.compare_lt.{name}.r1"
        rng = rng_for(case_id)
        a, b = random_array(rng, (12,), name), random_array(rng, (12,), name)
        yield CaseSpec(case_id, lax.lt, [a, b], numpy_ref=nary_ref(np.less), numpy_ref_name="numpy.less",
                       expect_ops=("stablehlo.compare",))
        movement = {
            "transpose": (lambda x: lax.transpose(x, (1, 0)), lambda x: x.T, "stablehlo.transpose"),
            "reshape": (lambda x: x.reshape(4, 3), lambda x: x.reshape(4, 3), "stablehlo.reshape"),
            "slice": (lambda x: x[1:, ::2], lambda x: x[1:, ::2], "stablehlo.slice"),
            "concatenate": (lambda x: lax.concatenate([x, x], 0), lambda x: np.concatenate([x, x], 0), "stablehlo.concatenate"),
            "reverse": (lambda x: lax.rev(x, (0,)), lambda x: x[::-1], "stablehlo.reverse"),
            "broadcast_in_dim": (lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)),
                                 lambda x: np.broadcast_to(x, (2, 3, 4)), "stablehlo.broadcast_in_dim"),
            "pad": (lambda x: lax.pad(x, np.array(1, x.dtype), [(1, 0, 0), (0, 1, 1)]), None, "stablehlo.pad"),
        }
        for op_name, (fn, ref, op) in movement.items():
            case_id = f"fp8.{op_name}.{name}.r2"
            x = random_array(rng_for(case_id), (3, 4), name)
            yield CaseSpec(case_id, fn, [x], numpy_ref=(lambda xs, r=ref: [r(xs[0])]) if ref else None,
                           numpy_ref_name=f"numpy.{op_name}" if ref else None, expect_ops=(op,))
        case_id = f"fp8.select.{name}.r1"
        rng = rng_for(case_id)
        p, a, b = random_array(rng, (12,), "pred"), random_array(rng, (12,), name), random_array(rng, (12,), name)
        yield CaseSpec(case_id, lax.select, [p, a, b], numpy_ref=nary_ref(np.where), numpy_ref_name="numpy.where",
                       expect_ops=("stablehlo.select",))


def cases() -> Iterator[CaseSpec]:
    yield from _convert_cases()
    yield from _bitcast_cases()
    yield from _fp8_cases()
