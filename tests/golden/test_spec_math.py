"""The spec reference's math functions (pjrt_cts.golden.spec.ops.math) against the spec's own examples and
IEEE-754's special values, written by hand."""
from __future__ import annotations

import math

import numpy as np
import pytest

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.spec import registry
from pjrt_cts.golden.spec.numeric import UndefinedResult
from pjrt_cts.golden.spec.registry import TensorType

INF, NAN, PI = math.inf, math.nan, math.pi


def run(op: str, name: str, *operands: object) -> np.ndarray:
    """The spec reference's result of `op` on operands of element type `name`."""
    arrays = [np.asarray(o, dtype=dtypes.dtype_of(name)) for o in operands]
    (out,) = registry.evaluate(op, arrays, {}, [TensorType(arrays[0].shape, name)])
    return out


# (op, element type, operands, result) from the Examples of each op's section of the spec
SPEC_EXAMPLES = [
    ("atan2", "f32", ([0.0, 1.0, -1.0], [0.0, 0.0, 0.0]), [0.0, 1.57079637, -1.57079637]),
    ("cbrt", "f32", ([0.0, 1.0, 8.0, 27.0],), [0.0, 1.0, 2.0, 3.0]),
    ("cosine", "f32", ([[0.0, 1.57079632], [3.14159265, 4.71238898]],), [[1.0, 0.0], [-1.0, 0.0]]),
    ("exponential", "f64", ([[0.0, 1.0], [2.0, 3.0]],),
     [[1.0, 2.7182818284590451], [7.3890560989306504, 20.085536923187668]]),
    ("exponential_minus_one", "f32", ([0.0, 1.0],), [0.0, 1.71828187]),
    ("log", "f64", ([[1.0, 2.0], [3.0, 4.0]],),
     [[0.0, 0.69314718055994529], [1.0986122886681098, 1.3862943611198906]]),
    ("log_plus_one", "f32", ([-2.0, -0.0, -0.999, 7.0, 6.38905621, 15.0],),
     [NAN, 0.0, -6.90776825, 2.07944155, 2.0, 2.77258873]),
    ("logistic", "f64", ([[0.0, 1.0], [2.0, 3.0]],), [[0.5, 0.73105858], [0.88079708, 0.95257413]]),
    ("rsqrt", "f32", ([[1.0, 4.0], [9.0, 25.0]],), [[1.0, 0.5], [0.33333343, 0.2]]),
    ("sine", "f32", ([[0.0, 1.57079632], [3.14159265, 4.71238898]],), [[0.0, 1.0], [0.0, -1.0]]),
    ("sqrt", "f32", ([[0.0, 1.0], [4.0, 9.0]],), [[0.0, 1.0], [2.0, 3.0]]),
    ("tanh", "f32", ([-1.0, 0.0, 1.0],), [-0.76159416, 0.0, 0.76159416]),
]


@pytest.mark.parametrize("op,name,operands,expected", SPEC_EXAMPLES, ids=[e[0] for e in SPEC_EXAMPLES])
def test_spec_examples(op: str, name: str, operands: tuple, expected: list) -> None:
    got = run(op, name, *operands).astype(np.float64)
    # the examples print 8-9 significant digits (rsqrt's 0.33333343 is 3 ulp from 1/3); zeros of sin/cos at
    # the f32 values nearest pi/2, pi, 3pi/2 are ~1e-7
    np.testing.assert_allclose(got, np.asarray(expected, dtype=np.float64), rtol=1e-6, atol=1e-6)


def test_sqrt_is_exact_and_keeps_the_sign_of_zero() -> None:
    out = run("sqrt", "f32", [4.0, 2.0, -0.0, 0.0, -1.0, INF, -INF, NAN])
    assert out[0] == 2.0 and out[1] == np.float32(math.sqrt(2.0))
    assert out[2] == 0 and np.signbit(out[2]) and not np.signbit(out[3])
    assert np.isnan(out[4]) and out[5] == INF and np.isnan(out[6]) and np.isnan(out[7])
    assert float(run("sqrt", "bf16", [2.0])[0]) == 1.4140625  # 1.41421356... rounded to 8 bits


@pytest.mark.parametrize("op,x,expected", [
    ("log", 0.0, -INF), ("log", -0.0, -INF), ("log", -1.0, NAN), ("log", 1.0, 0.0), ("log", INF, INF),
    ("exponential", -INF, 0.0), ("exponential", INF, INF), ("exponential", 1000.0, INF),
    ("exponential_minus_one", -INF, -1.0), ("exponential_minus_one", -0.0, -0.0),
    ("log_plus_one", -1.0, -INF), ("log_plus_one", -2.0, NAN), ("log_plus_one", -0.0, -0.0),
    ("rsqrt", 0.0, INF), ("rsqrt", -0.0, -INF), ("rsqrt", INF, 0.0), ("rsqrt", -4.0, NAN),
    ("cbrt", -8.0, -2.0), ("cbrt", -0.0, -0.0), ("cbrt", -INF, -INF),
    ("tanh", INF, 1.0), ("tanh", -INF, -1.0), ("tanh", -0.0, -0.0),
    ("sine", INF, NAN), ("sine", -0.0, -0.0), ("cosine", -INF, NAN), ("cosine", -0.0, 1.0),
    ("tan", INF, NAN), ("tan", -0.0, -0.0),
    ("logistic", INF, 1.0), ("logistic", -INF, 0.0), ("logistic", NAN, NAN),
])
def test_ieee_special_values(op: str, x: float, expected: float) -> None:
    got = float(run(op, "f32", [x])[0])
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == expected and math.copysign(1, got) == math.copysign(1, expected)


@pytest.mark.parametrize("y,x,expected", [
    (0.0, -0.0, PI), (-0.0, -0.0, -PI), (0.0, 0.0, 0.0), (-0.0, 0.0, -0.0), (0.0, -1.0, PI), (-0.0, -1.0, -PI),
    (1.0, 0.0, PI / 2), (-1.0, -0.0, -PI / 2), (INF, -INF, 3 * PI / 4), (-INF, INF, -PI / 4),
    (1.0, -INF, PI), (-1.0, INF, -0.0), (INF, 1.0, PI / 2),
])
def test_atan2_signed_zero_and_infinity_table(y: float, x: float, expected: float) -> None:
    got = float(run("atan2", "f64", [y], [x])[0])
    assert got == pytest.approx(expected, rel=1e-15) and math.copysign(1, got) == math.copysign(1, expected)


def test_narrow_results_are_rounded_once() -> None:
    assert float(run("exponential", "bf16", [1.0])[0]) == 2.71875
    assert float(run("exponential", "f4e2m1fn", [1.0])[0]) == 3.0  # e is nearer 3 than 2
    assert float(run("tanh", "f8e4m3fn", [20.0])[0]) == 1.0


@pytest.mark.parametrize("op,name,operands", [
    ("exponential", "f8e4m3fn", ([448.0],)),  # overflows a type without infinity
    ("log", "f8e4m3fn", ([0.0],)),  # -inf: no infinity
    ("log", "f4e2m1fn", ([-1.0],)),  # NaN: no NaN
    ("logistic", "f8e4m3fn", ([-448.0],)),  # exp(448), the intermediate, overflows
    ("exponential", "c64", ([complex(INF, 0.0)],)),  # no complex special-value convention in the spec
    ("log", "c64", ([0j],)),  # a pole
    ("sqrt", "c64", ([complex(-1.0, -0.0)],)),  # which side of the cut: a signed-zero convention
    ("cbrt", "c128", ([complex(-8.0, 0.0)],)),  # real or principal cube root
    ("atan2", "c64", ([0j], [0j])),
])
def test_undefined_results_are_refused(op: str, name: str, operands: tuple) -> None:
    with pytest.raises(UndefinedResult):
        run(op, name, *operands)


def test_logistic_defined_where_exp_fits() -> None:
    # 1 / (1 + e^6) = 0.00247 rounds to the subnormal 2^-9 (spacing 2^-9 below 2^-6)
    assert float(run("logistic", "f8e4m3fn", [-6.0])[0]) == 2.0**-9
    assert float(run("logistic", "f16", [-20.0])[0]) == pytest.approx(1 / (1 + math.exp(20)), abs=6e-8)


def test_complex_principal_values() -> None:
    assert run("sqrt", "c128", [complex(-1.0, 0.0)])[0] == 1j
    assert run("log", "c128", [-1 + 0j])[0] == pytest.approx(complex(0.0, PI))
    assert run("cbrt", "c128", [8j])[0] == pytest.approx(complex(math.sqrt(3), 1.0))
    assert run("exponential", "c64", [complex(0.0, PI)])[0] == pytest.approx(-1 + 0j, abs=1e-7)
    assert run("tanh", "c128", [1 + 1j])[0] == pytest.approx(np.tanh(1 + 1j))
    # atan2 of real values given as complex is the real atan2
    assert run("atan2", "c128", [1 + 0j], [-1 + 0j])[0] == pytest.approx(complex(3 * PI / 4, 0.0))


def test_results_have_the_declared_type() -> None:
    for name in ("f4e2m1fn", "f8e5m2", "bf16", "f16", "f64", "c64"):
        assert run("sine", name, [1.0]).dtype == dtypes.dtype_of(name)


def test_every_op_is_registered_with_float_and_complex() -> None:
    ops = registry.load_all()
    for op in ("sqrt", "rsqrt", "cbrt", "exponential", "exponential_minus_one", "log", "log_plus_one", "logistic",
               "sine", "cosine", "tan", "tanh", "atan2"):
        assert ops[op].classes == frozenset({"float", "complex"})
        assert ops[op].exact == (op == "sqrt")
