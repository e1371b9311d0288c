"""The spec reference's elementwise ops against the spec's own examples (literals from each op's section of
openxla/stablehlo docs/spec.md) and hand-computed edge cases. numpy-only: no JAX, no generator."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.golden.spec import registry
from pjrt_cts.golden.spec.numeric import UndefinedResult
from pjrt_cts.golden.spec.registry import TensorType

NAN, INF = float("nan"), float("inf")


def run(op: str, inputs: list, dtype: str, attributes: dict | None = None, out: str | None = None) -> np.ndarray:
    arrays = [np.asarray(x) for x in inputs]
    shape = max((a.shape for a in arrays), key=len)
    return registry.evaluate(op, arrays, attributes or {}, [TensorType(shape, out or dtype)])[0]


def same(actual: np.ndarray, expected: list, dtype: np.dtype | type) -> bool:
    """Equal values, the same sign of zero, NaN where NaN."""
    want = np.asarray(expected, dtype=dtype)
    if actual.dtype != want.dtype or actual.shape != want.shape:
        return False
    if want.dtype.kind == "c":
        return same(actual.real, want.real.tolist(), actual.real.dtype) and \
            same(actual.imag, want.imag.tolist(), actual.imag.dtype)
    if want.dtype.kind in "biu":
        return bool((actual == want).all())
    a, w = actual.astype(np.float64), want.astype(np.float64)
    return bool(((a == w) & (np.signbit(a) == np.signbit(w)) | (np.isnan(a) & np.isnan(w))).all())


def i32(*v: int) -> np.ndarray:
    return np.array(v, dtype=np.int32)


def f32(*v: float) -> np.ndarray:
    return np.array(v, dtype=np.float32)


def f64(*v: float) -> np.ndarray:
    return np.array(v, dtype=np.float64)


# --- the spec's examples ---------------------------------------------------------------------------------------------

def test_spec_examples_integer_ops() -> None:
    assert same(run("abs", [i32(-2, 0, 2)], "s32"), [2, 0, 2], np.int32)
    lhs, rhs = np.array([[1, 2], [7, 8]], np.int32), np.array([[5, 6], [3, 4]], np.int32)
    assert same(run("maximum", [lhs, rhs], "s32"), [[5, 6], [7, 8]], np.int32)
    assert same(run("minimum", [lhs, rhs], "s32"), [[1, 2], [3, 4]], np.int32)
    lhs, rhs = np.array([[1, 2], [3, 4]], np.int32), np.array([[5, 6], [7, 8]], np.int32)
    assert same(run("multiply", [lhs, rhs], "s32"), [[5, 12], [21, 32]], np.int32)
    assert same(run("negate", [i32(0, -2)], "s32"), [0, 2], np.int32)
    assert same(run("clamp", [i32(5, 10, 15), i32(3, 13, 23), i32(10, 15, 20)], "s32"), [5, 13, 20], np.int32)
    lhs, rhs = np.array([17, -17, 17, -17], np.int64), np.array([3, 3, -3, -3], np.int64)
    assert same(run("remainder", [lhs, rhs], "s64"), [2, -2, 2, -2], np.int64)


def test_spec_examples_float_ops() -> None:
    x = f32(-0.8166, -0.2530, 0.2530, 0.8166, 2.0)
    assert same(run("ceil", [x], "f32"), [-0.0, -0.0, 1.0, 1.0, 2.0], np.float32)
    assert same(run("floor", [x], "f32"), [-1.0, -1.0, 0.0, 0.0, 2.0], np.float32)
    x = f64(-2.5, 0.4, 0.5, 0.6, 2.5)
    assert same(run("round_nearest_afz", [x], "f64"), [-3.0, 0.0, 1.0, 1.0, 3.0], np.float64)
    assert same(run("round_nearest_even", [x], "f64"), [-2.0, 0.0, 0.0, 1.0, 2.0], np.float64)
    # the spec's example divides ±17.1 but prints ±5.66666651, the f32 quotient of ±17 / ±3
    assert same(run("divide", [f32(17.0, -17.0, 17.0, -17.0), f32(3.0, 3.0, -3.0, -3.0)], "f32"),
                [5.66666651, -5.66666651, -5.66666651, 5.66666651], np.float32)
    lhs, rhs = np.array([[6, 8], [10, 12]], np.float32), np.array([[5, 6], [7, 8]], np.float32)
    assert same(run("subtract", [lhs, rhs], "f32"), [[1, 2], [3, 4]], np.float32)
    y = run("is_finite", [f64(-INF, INF, NAN, -10.0, -0.0, 0.0, 10.0)], "f64", out="pred")
    assert same(y, [False, False, False, True, True, True, True], np.bool_)
    assert same(run("sign", [f64(NAN, -1.0, -0.0, 0.0, 1.0)], "f64"), [NAN, -1.0, -0.0, 0.0, 1.0], np.float64)


def test_spec_example_power() -> None:
    # the example declares f64 but prints f32 results (0.333333343, 10000^10 = inf): checked in f32
    out = run("power", [f32(-2.0, -0.0, -36.0, 5.0, 3.0, 10000.0), f32(2.0, 2.0, 1.1, 2.0, -1.0, 10.0)], "f32")
    assert same(out, [4.0, 0.0, NAN, 25.0, 0.333333343, INF], np.float32)


def test_spec_examples_complex_parts() -> None:
    z = np.array([1 + 2j, 3 + 4j], dtype=np.complex64)
    assert same(run("real", [z], "c64", out="f32"), [1.0, 3.0], np.float32)
    assert same(run("imag", [z], "c64", out="f32"), [2.0, 4.0], np.float32)
    assert same(run("complex", [f32(1.0, 3.0), f32(2.0, 4.0)], "f32", out="c64"), [1 + 2j, 3 + 4j], np.complex64)
    negated = run("negate", [np.array([2.5 + 0j], np.complex64)], "c64")
    assert np.signbit(negated.real[0]) and np.signbit(negated.imag[0]) and negated.real[0] == -2.5  # (-2.5, -0.0)


def test_spec_example_reduce_precision() -> None:
    bits = np.array([0xFF800000, 0x7F800000, 0x7FFFFFFF], dtype=np.uint32).view(np.float32)
    x = np.concatenate([bits, f32(0.0, 1000.0, 1000000.0)])
    out = run("reduce_precision", [x], "f32", {"exponent_bits": 5, "mantissa_bits": 2})
    assert same(out, [-INF, INF, NAN, 0.0, 1024.0, INF], np.float32)


# --- hand-computed edges ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("op, inputs", [
    ("abs", [np.array([-128], np.int8)]),
    ("negate", [np.array([-128], np.int8)]),
    ("negate", [np.array([128], np.uint8)]),
    ("divide", [i32(1), i32(0)]),
    ("divide", [i32(-2 ** 31), i32(-1)]),
    ("remainder", [i32(5), i32(0)]),
    ("remainder", [i32(-2 ** 31), i32(-1)]),
    ("subtract", [np.array([0], np.uint8), np.array([1], np.uint8)]),
    ("multiply", [np.array([16], np.int8), np.array([8], np.int8)]),
    ("power", [i32(2), i32(-1)]),
    ("power", [i32(2), i32(31)]),
    ("remainder", [f32(1.0), f32(INF)]),
    ("divide", [np.array([1 + 1j], np.complex64), np.array([0j], np.complex64)]),
    ("maximum", [np.array([complex(NAN, 0)], np.complex64), np.array([1j], np.complex64)]),
    ("maximum", [np.array([complex(0.0, 1)], np.complex64), np.array([complex(-0.0, 0)], np.complex64)]),
])
def test_no_spec_value(op: str, inputs: list) -> None:
    with pytest.raises(UndefinedResult):
        run(op, inputs, registry_name(inputs[0]))


def registry_name(array: np.ndarray) -> str:
    from pjrt_cts.golden import dtypes

    return dtypes.name_of(array.dtype)


def test_integer_division_truncates() -> None:
    assert same(run("divide", [i32(-7, 7, -7, 7), i32(2, -2, -2, 2)], "s32"), [-3, -3, 3, 3], np.int32)
    assert same(run("remainder", [i32(-7, 7, -7, 7), i32(2, -2, -2, 2)], "s32"), [-1, 1, -1, 1], np.int32)
    assert same(run("divide", [i32(-2 ** 31), i32(1)], "s32"), [-2 ** 31], np.int32)


def test_unsigned_negate_and_integer_power() -> None:
    assert same(run("negate", [np.array([0, 1, 127, 129, 255], np.uint8)], "u8"), [0, 255, 129, 127, 1], np.uint8)
    assert same(run("power", [i32(3, 0, 0, -1, -1, 1, -2), i32(4, 0, 64, 63, 64, 2 ** 30, 31)], "s32"),
                [81, 1, 0, -1, 1, 1, -2 ** 31], np.int32)


def test_float_maximum_minimum_nan_and_signed_zero() -> None:
    lhs, rhs = f32(-0.0, 0.0, 1.0, NAN, -INF), f32(0.0, -0.0, NAN, 1.0, -INF)
    assert same(run("maximum", [lhs, rhs], "f32"), [0.0, 0.0, NAN, NAN, -INF], np.float32)
    assert same(run("minimum", [lhs, rhs], "f32"), [-0.0, -0.0, NAN, NAN, -INF], np.float32)
    assert same(run("maximum", [np.array([True, False]), np.array([False, False])], "pred"), [True, False], np.bool_)
    assert same(run("minimum", [np.array([True, True]), np.array([False, True])], "pred"), [False, True], np.bool_)


def test_complex_lexicographic_order() -> None:
    lhs = np.array([1 + 5j, 2 + 0j, 2 - 1j, -INF + 0j], np.complex64)
    rhs = np.array([2 + 0j, 2 + 1j, 2 - 1j, 0 + 0j], np.complex64)
    assert same(run("maximum", [lhs, rhs], "c64"), [2 + 0j, 2 + 1j, 2 - 1j, 0j], np.complex64)
    assert same(run("minimum", [lhs, rhs], "c64"), [1 + 5j, 2 + 0j, 2 - 1j, complex(-INF, 0)], np.complex64)


def test_clamp_min_above_max_and_scalar_bounds() -> None:
    out = run("clamp", [f32(5.0, 5.0), f32(0.0, 10.0), f32(1.0, 1.0)], "f32")
    assert same(out, [1.0, 1.0], np.float32)  # minimum(maximum(x, 5), 1) = 1
    out = run("clamp", [np.float32(-1.0), f32(-2.0, NAN, -0.0, 3.0), np.float32(2.0)], "f32")
    assert same(out, [-1.0, NAN, -0.0, 2.0], np.float32)
    assert same(run("clamp", [np.array(True), np.array([False, True]), np.array(False)], "pred"), [False, False],
                np.bool_)


def test_rounding_edges() -> None:
    x = f64(-0.5, 0.5, 1.5, -1.5, 0.49999999999999994, -0.4, INF, -0.0, NAN)
    assert same(run("round_nearest_afz", [x], "f64"), [-1.0, 1.0, 2.0, -2.0, 0.0, -0.0, INF, -0.0, NAN], np.float64)
    assert same(run("round_nearest_even", [x], "f64"), [-0.0, 0.0, 2.0, -2.0, 0.0, -0.0, INF, -0.0, NAN], np.float64)
    sub = float(np.finfo(np.float32).smallest_subnormal)
    assert same(run("ceil", [f32(sub, -sub)], "f32"), [1.0, -0.0], np.float32)
    assert same(run("floor", [f32(sub, -sub)], "f32"), [0.0, -1.0], np.float32)


def test_float_remainder_is_fmod() -> None:
    out = run("remainder", [f32(-4.0, 5.5, -5.5, INF, 1.0, NAN), f32(2.0, 2.0, 2.0, 1.0, 0.0, 1.0)], "f32")
    assert same(out, [-0.0, 1.5, -1.5, NAN, NAN, NAN], np.float32)


def test_sign_and_abs() -> None:
    assert same(run("sign", [np.array([-128, 0, 5], np.int8)], "s8"), [-1, 0, 1], np.int8)
    z = np.array([3 + 4j, complex(NAN, 1), 0j], np.complex128)
    assert same(run("sign", [z], "c128"), [0.6 + 0.8j, complex(NAN, NAN), 0j], np.complex128)
    assert same(run("abs", [np.array([3 + 4j], np.complex64)], "c64", out="f32"), [5.0], np.float32)
    assert same(run("abs", [f32(-0.0, -INF)], "f32"), [0.0, INF], np.float32)


def test_negate_in_types_without_negative_zero() -> None:
    x = np.array([0.0, 1.0], dtype=ml_dtypes.float8_e4m3fnuz)
    out = run("negate", [x], "f8e4m3fnuz")
    assert not np.signbit(out.astype(np.float64)[0]) and out.astype(np.float64)[1] == -1.0


def test_narrow_float_results_round_once() -> None:
    x = np.array([1.0, 448.0], dtype=ml_dtypes.float8_e4m3fn)
    y = np.array([0.0625, 64.0], dtype=ml_dtypes.float8_e4m3fn)
    out = run("multiply", [x[:1], y[:1]], "f8e4m3fn")
    assert out.astype(np.float64)[0] == 0.0625
    with pytest.raises(UndefinedResult):  # 448 * 64 overflows a type without infinity
        run("multiply", [x[1:], y[1:]], "f8e4m3fn")


@pytest.mark.parametrize("e, m, x, want", [
    (8, 7, 1 + 2.0 ** -8, 1.0),  # bf16-like: a tie rounds to even
    (8, 7, 1 + 3 * 2.0 ** -8, 1 + 2.0 ** -6),
    (5, 10, 65504.0, 65504.0),  # f16's largest finite stays
    (5, 10, 65520.0, INF),  # rounds up to 2^16: overflow
    (5, 10, 2.0 ** -14, 2.0 ** -14),  # f16's smallest normal stays
    (5, 10, 2.0 ** -15, 0.0),  # below it: underflows to zero (no subnormals)
    (5, 10, -(2.0 ** -15), -0.0),
    (1, 0, 1.25, 0.0),  # one exponent bit: no normal numbers; 1.25 rounds to 1, which underflows
    (1, 0, 1.5, INF),  # 1.5 rounds (tie, even) to 2 first, which overflows
    (1, 0, 2.0, INF),
    (8, 0, 3.0, 4.0),  # no mantissa bits: 1.5 * 2 ties to 2 * 2
])
def test_reduce_precision_settings(e: int, m: int, x: float, want: float) -> None:
    out = run("reduce_precision", [f32(x)], "f32", {"exponent_bits": e, "mantissa_bits": m})
    assert same(out, [want], np.float32)


def test_reduce_precision_f64_and_subnormal_ambiguity() -> None:
    out = run("reduce_precision", [f64(2.0 ** -1022, 1.0, 1e300)], "f64", {"exponent_bits": 8, "mantissa_bits": 23})
    assert same(out, [0.0, 1.0, INF], np.float64)
    with pytest.raises(UndefinedResult):
        run("reduce_precision", [f32(3 * 2.0 ** -149)], "f32", {"exponent_bits": 8, "mantissa_bits": 1})
    assert math.isnan(float(run("reduce_precision", [f64(NAN)], "f64", {"exponent_bits": 1, "mantissa_bits": 0})[0]))
