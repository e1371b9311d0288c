"""The single compare function: tolerance kinds, NaN / -0.0 / inf handling and its report."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.golden import EXACT, Tolerance, compare, load_manifest, tolerance_for
from pjrt_cts.golden.compare import matches

ULP2 = Tolerance("ulp", ulps=2, op_class="arith")
REL = Tolerance("rel", rtol=1e-3, atol=1e-6, op_class="transcendental")


def test_identical_arrays_match_under_every_kind() -> None:
    x = np.array([1.5, -2.0, 3.25], np.float32)
    for tolerance in (EXACT, ULP2, REL):
        assert compare(x.copy(), x, tolerance) is None


def test_nan_matches_nan_only() -> None:
    nan = np.array([np.nan, 1.0], np.float32)
    assert compare(nan.copy(), nan, EXACT) is None
    assert compare(nan.copy(), nan, REL) is None
    mismatch = compare(np.array([1.0, 1.0], np.float32), nan, REL)
    assert mismatch is not None and mismatch.first_mismatch_index == (0,)
    mismatch = compare(nan, np.array([2.0, 1.0], np.float32), ULP2)
    assert mismatch is not None and mismatch.max_abs_err == np.inf


def test_nan_payloads_are_not_compared() -> None:
    quiet = np.array([np.nan], np.float32)
    other = np.array([0x7FC00001], np.uint32).view(np.float32)
    assert compare(other, quiet, EXACT) is None


def test_signed_zero_is_exact_but_equal_numerically() -> None:
    plus, minus = np.array([0.0], np.float64), np.array([-0.0], np.float64)
    mismatch = compare(plus, minus, EXACT)
    assert mismatch is not None and mismatch.num_mismatches == 1
    assert compare(plus, minus, ULP2) is None
    assert compare(plus, minus, REL) is None


def test_infinities_must_match_exactly() -> None:
    inf = np.array([np.inf, -np.inf], np.float32)
    assert compare(inf.copy(), inf, REL) is None
    assert compare(inf[::-1].copy(), inf, REL) is not None
    big = np.array([3.4e38, -np.inf], np.float32)
    mismatch = compare(big, inf, Tolerance("rel", rtol=1.0, atol=1.0))
    assert mismatch is not None and mismatch.first_mismatch_index == (0,)


def test_ulp_bound_is_measured_in_the_element_type() -> None:
    one = np.array([1.0], np.float32)
    two_ulps = np.nextafter(np.nextafter(one, np.float32(2)), np.float32(2))
    three_ulps = np.nextafter(two_ulps, np.float32(2))
    assert compare(two_ulps, one, ULP2) is None
    assert compare(three_ulps, one, ULP2) is not None
    bf16 = ml_dtypes.bfloat16
    base = np.array([1.0], bf16)
    next_up = (np.array([1.0], np.float32) + np.float32(2.0**-7)).astype(bf16)  # one bf16 ulp above 1
    assert compare(next_up, base, Tolerance("ulp", ulps=1)) is None
    assert compare(next_up, base, EXACT) is not None


def test_subnormal_results_may_flush_to_zero() -> None:
    tiny = np.finfo(np.float32).tiny
    expected = np.array([tiny / 4], np.float32)
    assert compare(np.array([0.0], np.float32), expected, ULP2) is None
    assert compare(np.array([0.0], np.float32), expected, EXACT) is not None


def test_relative_and_absolute_parts() -> None:
    expected = np.array([1000.0, 0.0], np.float64)
    assert compare(np.array([1000.9, 5e-7]), expected, REL) is None
    mismatch = compare(np.array([1001.5, 0.0]), expected, REL)
    assert mismatch is not None
    assert mismatch.max_abs_err == pytest.approx(1.5)
    assert mismatch.max_rel_err == pytest.approx(1.5e-3)


def test_integers_and_booleans_compare_exactly() -> None:
    expected = np.array([[1, 2], [3, -4]], np.int8)
    actual = expected.copy()
    actual[1, 0] = 4
    mismatch = compare(actual, expected, REL)  # a float tolerance never loosens integers
    assert mismatch is not None
    assert mismatch.first_mismatch_index == (1, 0)
    assert mismatch.max_abs_err == 1.0
    assert compare(np.array([True, False]), np.array([True, True]), EXACT).first_mismatch_index == (1,)


def test_complex_values_are_checked_per_component() -> None:
    expected = np.array([1 + 1j, 2 - 2j], np.complex64)
    assert compare(expected + np.complex64(1e-5j), expected, Tolerance("rel", rtol=1e-4, atol=1e-4)) is None
    mismatch = compare(np.array([1 + 1j, 2 + 2j], np.complex64), expected, REL)
    assert mismatch is not None and mismatch.first_mismatch_index == (1,)


def test_shape_and_dtype_mismatches_are_reported() -> None:
    x = np.zeros((2, 3), np.float32)
    assert "shape mismatch" in compare(np.zeros((3, 2), np.float32), x, EXACT).message
    assert "dtype mismatch" in compare(np.zeros((2, 3), np.float64), x, EXACT).message
    rank0 = np.array(1.0, np.float32)
    assert compare(np.array([1.0], np.float32), rank0, EXACT) is not None


def test_zero_size_arrays_match() -> None:
    assert compare(np.zeros((3, 0), np.int32), np.zeros((3, 0), np.int32), EXACT) is None


def test_message_names_errors_index_and_dtype() -> None:
    expected = np.arange(6, dtype=np.float32).reshape(2, 3)
    actual = expected.copy()
    actual[1, 2] += 0.5
    mismatch = compare(actual, expected, ULP2)
    text = str(mismatch)
    assert "max abs err 0.5" in text
    assert "max rel err 0.1" in text
    assert "[1, 2]" in text
    assert "f32" in text
    assert mismatch.details() == {"max_abs_err": 0.5, "max_rel_err": pytest.approx(0.1), "first_mismatch_index": [1, 2],
                                  "dtype": "f32", "num_mismatches": 1}


def test_fp8_values_compare_in_their_own_format() -> None:
    e4m3 = ml_dtypes.float8_e4m3fn
    expected = np.array([1.0, 2.0, -0.5], e4m3)
    assert compare(expected.copy(), expected, EXACT) is None
    actual = np.array([1.125, 2.0, -0.5], e4m3)  # one e4m3 ulp above 1.0
    assert compare(actual, expected, Tolerance("ulp", ulps=1)) is None
    assert compare(actual, expected, EXACT).dtype == "f8e4m3fn"


def test_tolerance_rules() -> None:
    assert tolerance_for("s32", "transcendental") == Tolerance("exact")
    assert tolerance_for("f32", "exact").kind == "exact"
    assert tolerance_for("f32", "arith").kind == "ulp"
    f32 = tolerance_for("f32", "transcendental")
    reduction = tolerance_for("f32", "reduction", scale=1.0)
    assert f32.kind == "rel" and reduction.rtol < f32.rtol
    assert tolerance_for("f64", "transcendental").rtol < f32.rtol
    assert tolerance_for("c64", "fft", scale=1.0).rtol == tolerance_for("f32", "fft", scale=1.0).rtol
    with pytest.raises(ValueError):
        tolerance_for("f32", "no-such-class")
    with pytest.raises(ValueError):
        tolerance_for("f32", "matmul")  # a scaled atol needs its scale
    assert Tolerance.from_json(f32.to_json()) == f32
    assert Tolerance.from_json(reduction.to_json()) == reduction


def test_absolute_and_relative_parts_are_separate() -> None:
    f32 = np.finfo(np.float32)
    transcendental = tolerance_for("f32", "transcendental")
    # Elementwise functions: atol only at the flush-to-zero scale, so tiny results are checked relatively.
    assert transcendental.atol == float(f32.tiny) and transcendental.rtol == 8 * float(f32.eps)
    assert transcendental.atol_basis == "smallest_normal"
    # Sums: atol scales with sum|terms| (cancellation), rtol stays a few eps.
    small, large = tolerance_for("f32", "matmul", scale=2.0), tolerance_for("f32", "matmul", scale=200.0)
    assert large.atol == pytest.approx(100 * small.atol) and large.rtol == small.rtol
    assert small.atol == pytest.approx(8 * float(f32.eps) * 2.0) and small.atol_basis == "sum_abs_terms"
    # A result of sum|terms| = 200 that cancelled to ~1e-3 may be off by ~200 * a few eps, not 1e-3 * eps.
    expected = np.array([1e-3], np.float32)
    assert compare(expected + np.float32(4 * 200 * f32.eps), expected, large) is None
    assert compare(expected + np.float32(4 * 200 * f32.eps), expected, small) is not None
    # Low-precision types: their own rounding dominates; two roundings in the type, relative to sum|terms|.
    bf16 = tolerance_for("bf16", "matmul", scale=10.0)
    assert bf16.rtol == 2 * 2.0**-7 and bf16.atol == pytest.approx(2 * 2.0**-7 * 10.0)
    # Reductions in a low-precision type may round at every step: (n - 1) eps, relative and times sum|terms|.
    summed = tolerance_for("bf16", "reduction", reduced_elements=15, scale=10.0)
    assert summed.rtol == 14 * 2.0**-7 and summed.atol == pytest.approx(14 * 2.0**-7 * 10.0)
    # A case may state that the op computes at another type's precision (XLA's f64 batch norm: f32).
    assert tolerance_for("f64", "normalization", scale=1.0, precision_of="f32").rtol == 16 * 2.0**-23


def test_complex_relative_part_is_measured_against_the_modulus() -> None:
    tolerance = tolerance_for("c64", "transcendental")
    expected = np.array([1.0 + 1e-6j], np.complex64)
    # An error of a few eps of |z| in the tiny imaginary part is fine; relative to 1e-6 it would not be.
    assert compare(expected + np.complex64(4e-7j), expected, tolerance) is None
    assert compare(expected + np.complex64(1e-5j), expected, tolerance) is not None
    # A tiny complex result is still checked relatively (its modulus is tiny too).
    tiny = np.array([1e-20 + 1e-20j], np.complex64)
    assert compare(np.array([0j], np.complex64), tiny, tolerance) is not None


def _naive(name: str, x: np.ndarray) -> np.ndarray:
    """log(1 + x) / exp(x) - 1 evaluated in the element type, as a careless implementation would."""
    one = x.dtype.type(1)
    with np.errstate(all="ignore"):
        return (np.log(one + x) if name == "log_plus_one" else np.exp(x) - one).astype(x.dtype)


@pytest.mark.parametrize("dtype", ["f16", "bf16", "f32", "f64"])
@pytest.mark.parametrize("name", ["log_plus_one", "exponential_minus_one"])
def test_naive_log1p_and_expm1_fail_the_tiny_input_cases(name: str, dtype: str) -> None:
    case = load_manifest().by_id()[f"special.{name}_tiny.{dtype}"]
    (x,), (expected,) = case.inputs(), case.expected()
    magnitudes = np.abs(x.astype(np.float64))
    assert magnitudes.min() < float(ml_dtypes.finfo(x.dtype).tiny) and magnitudes.max() <= 0.11  # down to subnormals
    assert compare(expected.copy(), expected, case.tolerance) is None
    reference = (np.log1p if name == "log_plus_one" else np.expm1)(x.astype(np.float64)).astype(x.dtype)
    assert compare(reference, expected, case.tolerance) is None
    naive = _naive(name, x)
    mismatch = compare(naive, expected, case.tolerance)
    assert mismatch is not None, f"naive {name} passes {case.id}"
    # The old rule (atol = rtol = 8 eps, an absolute check for results << 1) let it through.
    eps = float(ml_dtypes.finfo(x.dtype).eps)
    old = Tolerance("rel", rtol=case.tolerance.rtol, atol=case.tolerance.rtol if eps < 2.0**-10 else 2 * eps)
    assert compare(naive, expected, old) is None


def test_naive_log1p_in_f32_of_bf16_inputs_fails_too() -> None:
    case = load_manifest().by_id()["special.log_plus_one_tiny.bf16"]
    (x,), (expected,) = case.inputs(), case.expected()
    upcast = np.log(np.float32(1) + x.astype(np.float32)).astype(x.dtype)
    assert compare(upcast, expected, case.tolerance) is not None


# -- issue 53: the evidence of every differing element, which the diagnosis's rules read ---------------------------
def test_the_evidence_names_every_differing_elements_kinds() -> None:
    from pjrt_cts.golden.compare import merged_evidence

    flushed = compare(np.array([0.0, 1.0, -0.0], np.float32), np.array([1e-40, 1.0, -1e-41], np.float32), EXACT)
    assert flushed is not None and flushed.evidence is not None
    assert flushed.evidence["kinds"] == ["-0:subnormal", "0:subnormal"] and not flushed.evidence["uniform"]
    zeros = compare(np.zeros(3, np.float32), np.array([2.0, 3.0, 4.0], np.float32), EXACT)
    assert zeros is not None and zeros.evidence is not None
    assert zeros.evidence["kinds"] == ["0:finite"] and zeros.evidence["uniform"] and zeros.evidence["scale"] == 0.0
    reordered = compare(np.array([3, 1, 2], np.int8), np.array([1, 2, 3], np.int8), EXACT)
    assert reordered is not None and reordered.evidence is not None and reordered.evidence["reordered"]
    merged = merged_evidence([(0, flushed), (2, zeros)])
    assert merged is not None and merged["outputs"] == [0, 2] and (merged["differing"], merged["elements"]) == (5, 6)
    assert merged["kinds"] == ["-0:subnormal", "0:finite", "0:subnormal"] and not merged["uniform"]


def test_integer_offsets_cross_execnet() -> None:
    """A record's details go from a worker to the controller through execnet, which cannot carry an integer below
    -2^31: offsets are floats, exact for the ones a rule pins (2^32)."""
    import execnet

    wrapped = compare(np.array([-2 ** 63, 2 + 2 ** 32], np.int64), np.array([6, 2], np.int64), EXACT)
    assert wrapped is not None and wrapped.evidence is not None
    assert 4294967296 in wrapped.evidence["offsets"]
    execnet.dumps(wrapped.evidence)


@pytest.mark.parametrize(("actual", "expected", "tolerance"), [
    (np.array([1.0, 2.0], np.float32), np.array([1.0, 2.0], np.float32), EXACT),
    (np.array([1.0, 2.0000002], np.float32), np.array([1.0, 2.0], np.float32), ULP2),
    (np.array([1.0, 2.5], np.float32), np.array([1.0, 2.0], np.float32), REL),
    (np.array([0.0], np.float64), np.array([-0.0], np.float64), EXACT),
    (np.array([np.nan], np.float32), np.array([1.0], np.float32), REL),
    (np.array([3, 4], np.int32), np.array([3, 5], np.int32), EXACT),
    (np.array([1.0], np.float32), np.array([1.0], np.float64), EXACT),
    (np.array([1.0, 2.0], np.float32), np.array([1.0], np.float32), EXACT),
    (np.array([1 + 2j], np.complex64), np.array([1 + 2.5j], np.complex64), REL),
], ids=["equal", "within-ulps", "outside-rel", "signed-zero-exact", "nan", "int", "dtype", "shape", "complex"])
def test_matches_says_what_compare_says(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> None:
    """`matches` (the deviation search's yes/no) answers as `compare` does, without describing the mismatch."""
    assert matches(actual, expected, tolerance) == (compare(actual, expected, tolerance) is None)
