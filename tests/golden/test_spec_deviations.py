"""The diagnosis' hypotheses for wrong values (golden/spec/deviations.py): real corpus cases, an output with one
known defect made by hand with numpy (not with the reference), and explain() naming it; the spec's own value and
garbage named as nothing. numpy-only: no JAX, no plugin."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.golden import load_manifest
from pjrt_cts.golden.spec import variants
from pjrt_cts.golden.spec.deviations import DEVIATION_IDS, explain


@pytest.fixture(scope="module")
def cases():
    return load_manifest().by_id()


def data(cases, case_id: str) -> tuple[object, list[np.ndarray], list[np.ndarray]]:
    case = cases[case_id]
    return case, [np.array(x) for x in case.input_rows()[0]], [np.array(e) for e in case.expected_rows()[0]]


def flushed(x: np.ndarray) -> np.ndarray:
    """Subnormal f32/f64 values replaced by zeros of their sign (FTZ/DAZ by hand)."""
    tiny = np.finfo(x.dtype).tiny
    return np.where((x != 0) & (np.abs(x) < tiny), np.copysign(np.zeros_like(x), x), x)


def test_ids_are_the_catalogues_value_deviations_in_the_order_tried():
    assert DEVIATION_IDS == ("subnormals-flushed", "nan-not-propagated-by-max-min", "signed-zero-ignored-by-max-min",
                             "complex-ordered-by-real-part", "f64-computed-in-f32", "convert-rounds-toward-zero")


@pytest.mark.parametrize("case_id", ["spec.multiply.subnormal.f32", "spec.maximum.f32", "spec.compare.GE_FLOAT.c64",
                                     "spec.add.f64", "spec.reduce.maximum.dim1.f32", "convert.f32_to_bf16.rounding"])
def test_the_spec_value_and_garbage_are_no_deviation(cases, case_id):
    case, inputs, expected = data(cases, case_id)
    assert explain(case, inputs, expected) == []
    garbage = [~e if e.dtype == np.bool_ else np.full(e.shape, 3).astype(e.dtype) for e in expected]
    assert explain(case, inputs, garbage) == []
    assert explain(case, inputs, [e[..., :0] for e in expected]) == []  # a wrong shape is no value deviation


def test_subnormal_results_flushed(cases):
    case, inputs, expected = data(cases, "spec.multiply.subnormal.f32")
    assert (flushed(expected[0]) != expected[0]).any() or np.signbit(flushed(expected[0])).any()
    assert explain(case, inputs, [flushed(expected[0])]) == ["subnormals-flushed"]


def test_subnormal_operands_read_as_zero(cases):
    case, (lhs, rhs), _ = data(cases, "spec.compare.LT_FLOAT.subnormal.f32")
    assert explain(case, [lhs, rhs], [np.less(flushed(lhs), flushed(rhs))]) == ["subnormals-flushed"]


def test_subnormals_compared_as_zero_in_a_sort_that_moves_them_unchanged(cases):
    case, inputs, expected = data(cases, "spec.sort.LT_FLOAT.stable.payload.f32")
    keys = inputs[0]
    order = np.argsort(flushed(keys), axis=-1, kind="stable")  # the comparator sees zeros, the data moves as is
    actual = [np.take_along_axis(x, order, axis=-1) for x in inputs]
    if all((a == e).all() for a, e in zip(actual, expected)):
        pytest.skip("no subnormal changes this case's order")
    assert explain(case, inputs, actual) == ["subnormals-flushed"]


def test_nan_dropped_by_maximum_as_c_fmax(cases):
    case, (lhs, rhs), expected = data(cases, "spec.maximum.f32")
    nan = np.isnan(lhs) ^ np.isnan(rhs)
    actual = np.where(nan, np.fmax(lhs, rhs), expected[0])  # the non-NaN operand; everything else the spec's
    assert explain(case, [lhs, rhs], [actual]) == ["nan-not-propagated-by-max-min"]


def test_nan_dropped_by_a_reduce_whose_body_is_maximum(cases):
    case, (x, init), expected = data(cases, "spec.reduce.maximum.dim1.f32")
    actual = np.fmax.reduce(np.concatenate([np.broadcast_to(init, (x.shape[0], 1)), x], axis=1), axis=1)
    assert np.isnan(expected[0]).any() and not np.isnan(actual).any()
    assert "nan-not-propagated-by-max-min" in explain(case, [x, init], [actual])


def test_ternary_maximum_drops_nan_and_ignores_the_sign_of_zero(cases):
    case, (lhs, rhs), _ = data(cases, "spec.maximum.f32")
    ternary = np.where(lhs > rhs, lhs, rhs)  # `a > b ? a : b`: rhs on NaN and on -0 vs +0
    assert explain(case, [lhs, rhs], [ternary]) == ["nan-not-propagated-by-max-min", "signed-zero-ignored-by-max-min"]


@pytest.mark.parametrize("pick", ["first", "second"])
def test_signed_zero_ignored_by_minimum(cases, pick):
    case, (lhs, rhs), expected = data(cases, "spec.minimum.f32")
    tie = (lhs == 0) & (rhs == 0)
    actual = np.where(tie, lhs if pick == "first" else rhs, expected[0])
    assert (actual.view(np.uint32) != expected[0].view(np.uint32)).any()
    assert explain(case, [lhs, rhs], [actual]) == ["signed-zero-ignored-by-max-min"]


def test_complex_compare_by_real_part(cases):
    case, (lhs, rhs), _ = data(cases, "spec.compare.GE_FLOAT.c64")
    assert explain(case, [lhs, rhs], [lhs.real >= rhs.real]) == ["complex-ordered-by-real-part"]


def test_complex_maximum_by_real_part(cases):
    case, (lhs, rhs), expected = data(cases, "spec.maximum.c128")
    actual = np.where(lhs.real >= rhs.real, lhs, rhs)  # equal real parts: the first operand
    assert explain(case, [lhs, rhs], [actual]) == ["complex-ordered-by-real-part"]


def test_f64_results_rounded_to_f32(cases):
    case, inputs, expected = data(cases, "spec.exponential.f64")
    with np.errstate(over="ignore"):
        actual = expected[0].astype(np.float32).astype(np.float64)
    assert explain(case, inputs, [actual]) == ["f64-computed-in-f32"]


def test_f64_computed_in_f32(cases):
    case, (lhs, rhs), _ = data(cases, "spec.add.f64")
    with np.errstate(over="ignore", invalid="ignore"):
        actual = (lhs.astype(np.float32) + rhs.astype(np.float32)).astype(np.float64)
    assert explain(case, [lhs, rhs], [actual]) == ["f64-computed-in-f32"]


def test_f64_deviation_needs_f32_values(cases):
    case, inputs, expected = data(cases, "spec.exponential.f64")
    off = expected[0] * (1 + 2.0 ** -40)  # wrong by more than the f64 tolerance, yet not f32 values
    assert explain(case, inputs, [off]) == []


def truncated_to_bf16(x: np.ndarray) -> np.ndarray:
    bits = x.view(np.uint32) & np.uint32(0xFFFF0000)  # drop the low mantissa bits: toward zero
    return np.where(np.isnan(x), x, bits.view(np.float32)).astype(ml_dtypes.bfloat16)


def test_convert_rounds_toward_zero(cases):
    case, (x,), expected = data(cases, "convert.f32_to_bf16.rounding")
    actual = truncated_to_bf16(x)
    assert (actual.view(np.uint16) != expected[0].view(np.uint16)).any()
    assert explain(case, [x], [actual]) == ["convert-rounds-toward-zero"]


def test_convert_f64_to_f32_toward_zero(cases):
    case, (x,), expected = data(cases, "convert.f64_to_f32.rounding")
    with np.errstate(over="ignore", invalid="ignore"):
        nearest = x.astype(np.float32)
        actual = np.where(np.isfinite(x) & (np.abs(nearest.astype(np.float64)) > np.abs(x)),
                          np.nextafter(nearest, np.float32(0)), nearest)
    assert explain(case, [x], [actual]) == ["convert-rounds-toward-zero"]


def test_default_semantics_are_the_spec():
    assert variants.current() == variants.SPEC and variants.SPEC.is_spec
    with variants.using(variants.Semantics(max_min_nan="non_nan")):
        assert not variants.current().is_spec
    assert variants.current() == variants.SPEC
    with pytest.raises(ValueError):
        variants.Semantics(max_min_nan="sometimes")


XLA_EXAMPLES = {  # spec cases where XLA:CPU deviates (spec_vs_xla), and the deviation its output shows
    "spec.maximum.f32": "nan-not-propagated-by-max-min",
    "spec.reduce.minimum.dim1.f32": "nan-not-propagated-by-max-min",
    "spec.clamp.tensor_bounds.f32": "nan-not-propagated-by-max-min",
    "spec.minimum.f8e4m3fn": "signed-zero-ignored-by-max-min",
    "spec.compare.LT_FLOAT.subnormal.f32": "subnormals-flushed",
    "spec.multiply.subnormal.f64": "subnormals-flushed",
    "spec.sort.LT_FLOAT.stable.payload.f32": "subnormals-flushed",
    "spec.compare.GE_FLOAT.c64": "complex-ordered-by-real-part",
    "spec.select_and_scatter.GE.overlapping.c128": "complex-ordered-by-real-part",
}


@pytest.mark.parametrize("case_id,deviation", sorted(XLA_EXAMPLES.items()))
def test_xlas_own_deviations_are_named(cases, case_id, deviation):
    case = cases[case_id]
    read = getattr(case, "xla_expected", None)
    xla = read() if read is not None else None
    if not xla:
        pytest.skip("the corpus does not store XLA's outputs for this case")
    assert deviation in explain(case, [np.array(x) for x in case.input_rows()[0]], xla)


def test_only_deviations_that_can_change_the_value_are_tested(cases):
    from pjrt_cts.golden.spec.deviations import applicable

    def tested(case_id: str) -> list[str]:
        case = cases[case_id]
        return applicable(case, list(case.input_rows()[0]))

    assert tested("spec.add.s32") == []
    assert tested("spec.maximum.f32") == ["nan-not-propagated-by-max-min", "signed-zero-ignored-by-max-min"]
    assert tested("spec.maximum.subnormal.f32") == ["subnormals-flushed", "nan-not-propagated-by-max-min",
                                                    "signed-zero-ignored-by-max-min"]
    assert tested("spec.compare.GE_FLOAT.c64") == ["complex-ordered-by-real-part"]
    assert "f64-computed-in-f32" in tested("spec.add.f64")
    assert tested("convert.f32_to_bf16.rounding") == ["convert-rounds-toward-zero"]
    assert tested("convert.bf16_to_s32.r1") == []  # float -> integer truncates by definition


def test_the_diagnosis_needs_neither_the_runtime_nor_the_test_harness():
    import subprocess
    import sys

    code = ("import sys, pjrt_cts.golden.spec.deviations; "
            "print(sorted(m for m in sys.modules if m.startswith(('pjrt_cts.testing', 'pjrt_cts.runtime', 'jax'))))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"
