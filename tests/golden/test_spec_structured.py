"""The spec reference's structured ops against the spec's own examples (literals from each op section of
openxla/stablehlo docs/spec.md) and hand-computed edge cases."""
from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.golden.spec import registry
from pjrt_cts.golden.spec.numeric import UndefinedResult
from pjrt_cts.golden.spec.ops import structured as ref
from pjrt_cts.golden.spec.registry import TensorType as T


def ev(op: str, operands: list, attributes: dict, results: list[T]) -> list[np.ndarray]:
    return registry.evaluate(op, [np.asarray(o) for o in operands], attributes, results)


def bits(a: np.ndarray) -> bytes:
    return np.asarray(a).tobytes()


# ---------------------------------------------------------------------------------------------- examples
def test_reduce_example() -> None:
    (out,) = ev("reduce", [np.array([[0, 1, 2, 3, 4, 5]], np.int32), np.int32(0)],
                {"dimensions": [1], "body": "add"}, [T((1,), "s32")])
    assert out.tolist() == [15]


def test_reduce_window_example() -> None:
    attrs = {"window_dimensions": [2, 1], "window_strides": [4, 1], "base_dilations": [2, 1],
             "window_dilations": [3, 1], "padding": [[2, 1], [0, 0]], "body": "add"}
    (out,) = ev("reduce_window", [np.array([[1, 2], [3, 4], [5, 6]], np.int32), np.int32(0)], attrs,
                [T((2, 2), "s32")])
    assert out.tolist() == [[0, 0], [3, 4]]


def test_select_and_scatter_example() -> None:
    attrs = {"window_dimensions": [3, 1], "window_strides": [2, 1], "padding": [[0, 1], [0, 0]],
             "select": {"direction": "GE", "type": "SIGNED"}, "scatter": "add"}
    (out,) = ev("select_and_scatter", [np.array([[1, 5], [2, 5], [3, 6], [4, 4]], np.int32),
                                       np.array([[5, 6], [7, 8]], np.int32), np.int32(0)], attrs, [T((4, 2), "s32")])
    assert out.tolist() == [[0, 0], [0, 0], [5, 14], [7, 0]]


def test_sort_example() -> None:
    attrs = {"dimension": 0, "is_stable": True, "comparator": {"direction": "GT", "type": "SIGNED"}}
    r0, r1 = ev("sort", [np.array([[1, 2, 3], [3, 2, 1]]), np.array([[3, 2, 1], [1, 2, 3]])], attrs,
                [T((2, 3), "s64")] * 2)
    assert r0.tolist() == [[3, 2, 3], [1, 2, 1]] and r1.tolist() == [[1, 2, 1], [3, 2, 3]]


def test_dot_general_example() -> None:
    lhs = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], np.int32)
    rhs = np.array([[[1, 0], [0, 1]], [[1, 0], [0, 1]]], np.int32)
    attrs = {"lhs_batching_dimensions": [0], "rhs_batching_dimensions": [0], "lhs_contracting_dimensions": [2],
             "rhs_contracting_dimensions": [1]}
    (out,) = ev("dot_general", [lhs, rhs], attrs, [T((2, 2, 2), "s32")])
    assert out.tolist() == [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]


def test_convolution_example() -> None:
    lhs = np.array([1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17], np.int32).reshape(1, 4, 4, 1)
    dn = {"input_batch": 0, "input_feature": 3, "input_spatial": [1, 2], "kernel_input_feature": 2,
          "kernel_output_feature": 3, "kernel_spatial": [0, 1], "output_batch": 0, "output_feature": 3,
          "output_spatial": [1, 2]}
    attrs = {"window_strides": [4, 4], "padding": [[0, 0], [0, 0]], "lhs_dilation": [2, 2], "rhs_dilation": [1, 1],
             "feature_group_count": 1, "batch_group_count": 1, "dimension_numbers": dn}
    (out,) = ev("convolution", [lhs, np.ones((3, 3, 1, 1), np.int32)], attrs, [T((1, 2, 2, 1), "s32")])
    assert out.reshape(-1).tolist() == [10, 26, 46, 62]


def test_fft_example() -> None:
    (out,) = ev("fft", [np.array([1, 0, 0, 0], np.complex64)], {"fft_type": "FFT", "fft_length": [4]},
                [T((4,), "c64")])
    assert out.tolist() == [1, 1, 1, 1]


def test_map_example() -> None:
    (out,) = ev("map", [np.array([[0, 1], [2, 3]]), np.array([[4, 5], [6, 7]])], {"computation": "multiply"},
                [T((2, 2), "s64")])
    assert out.tolist() == [[0, 5], [12, 21]]


OPERAND = np.array([[[1, 2], [3, 4]], [[3, 4], [1, 2]]], np.float32)
ONES = np.ones(2, np.float32)


def test_batch_norm_inference_example() -> None:
    (out,) = ev("batch_norm_inference", [OPERAND, ONES, ONES, np.array([2, 3], np.float32), ONES],
                {"epsilon": 0.0, "feature_index": 2}, [T((2, 2, 2), "f32")])
    assert out.tolist() == [[[0, 0], [2, 2]], [[2, 2], [0, 0]]]


def test_batch_norm_training_example() -> None:
    out, mean, var = ev("batch_norm_training", [OPERAND, ONES, ONES], {"epsilon": 0.0, "feature_index": 2},
                        [T((2, 2, 2), "f32"), T((2,), "f32"), T((2,), "f32")])
    assert out.tolist() == [[[0, 0], [2, 2]], [[2, 2], [0, 0]]]
    assert mean.tolist() == [2, 3] and var.tolist() == [1, 1]


def test_batch_norm_grad_example() -> None:
    grad_operand, grad_scale, grad_offset = ev(
        "batch_norm_grad", [OPERAND, ONES, np.array([2, 3], np.float32), ONES, np.full((2, 2, 2), 0.1, np.float32)],
        {"epsilon": 0.0, "feature_index": 2}, [T((2, 2, 2), "f32"), T((2,), "f32"), T((2,), "f32")])
    assert np.abs(grad_operand).max() < 1e-6 and np.abs(grad_scale).max() < 1e-6
    assert np.allclose(grad_offset, [0.4, 0.4])


def test_cholesky_example() -> None:
    a = np.array([[1, 2, 3], [2, 20, 26], [3, 26, 70]], np.float32)
    (out,) = ev("cholesky", [a], {"lower": True}, [T((3, 3), "f32")])
    assert out.tolist() == [[1, 0, 0], [2, 4, 0], [3, 5, 6]]


def test_triangular_solve_example() -> None:
    a = np.array([[1, 0, 0], [2, 4, 0], [3, 5, 6]], np.float32)
    b = np.array([[2, 0, 0], [4, 8, 0], [6, 10, 12]], np.float32)
    attrs = {"left_side": True, "lower": True, "unit_diagonal": False, "transpose_a": "NO_TRANSPOSE"}
    (out,) = ev("triangular_solve", [a, b], attrs, [T((3, 3), "f32")])
    assert out.tolist() == [[2, 0, 0], [0, 2, 0], [0, 0, 2]]


# ------------------------------------------------------------------------------------------- edge cases
def test_float_sum_of_negative_zeros_needs_a_negative_zero_init() -> None:
    x = np.array([[-0.0, -0.0]], np.float32)
    (out,) = ev("reduce", [x, np.float32(-0.0)], {"dimensions": [1], "body": "add"}, [T((1,), "f32")])
    assert np.signbit(out[0])
    with pytest.raises(UndefinedResult):  # no init: -0; one +0 init: +0
        ev("reduce", [x, np.float32(0.0)], {"dimensions": [1], "body": "add"}, [T((1,), "f32")])


def test_reduce_maximum_propagates_nan_and_orders_zeros() -> None:
    x = np.array([[1.0, np.nan], [-0.0, 0.0]], np.float32)
    (out,) = ev("reduce", [x, np.float32(-np.inf)], {"dimensions": [1], "body": "maximum"}, [T((2,), "f32")])
    assert np.isnan(out[0]) and out[1] == 0 and not np.signbit(out[1])


def test_integer_reduce_and_dot_overflow_is_undefined() -> None:
    # spec ## Errors: "integer overflows ... result in implementation-defined behavior"
    with pytest.raises(UndefinedResult):
        ev("reduce", [np.array([[100, 100]], np.int8), np.int8(0)], {"dimensions": [1], "body": "add"},
           [T((1,), "s8")])
    # a sum whose partial sums could leave the type in some order is undefined too: 100 + 100 - 100
    with pytest.raises(UndefinedResult):
        ev("reduce", [np.array([[100, 100, -100]], np.int8), np.int8(0)], {"dimensions": [1], "body": "add"},
           [T((1,), "s8")])
    (out,) = ev("reduce", [np.array([[100, 27, -128]], np.int8), np.int8(0)], {"dimensions": [1], "body": "add"},
                [T((1,), "s8")])
    assert out.tolist() == [-1]
    attrs = {"lhs_contracting_dimensions": [0], "rhs_contracting_dimensions": [0]}
    with pytest.raises(UndefinedResult):
        ev("dot_general", [np.array([16], np.int8), np.array([16], np.int8)], attrs, [T((), "s8")])


def test_boolean_dot_is_or_of_ands() -> None:
    attrs = {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}
    lhs = np.array([[True, False], [False, False]])
    rhs = np.array([[True], [True]])
    (out,) = ev("dot_general", [lhs, rhs], attrs, [T((2, 1), "pred")])
    assert out.tolist() == [[True], [False]]


def test_dot_of_inf_and_zero_is_nan() -> None:
    attrs = {"lhs_contracting_dimensions": [0], "rhs_contracting_dimensions": [0]}
    (out,) = ev("dot_general", [np.array([np.inf, 1], np.float32), np.array([0, 1], np.float32)], attrs,
                [T((), "f32")])
    assert np.isnan(out)


def test_sort_float_compare_with_nan_is_undefined() -> None:
    attrs = {"dimension": 0, "is_stable": True, "comparator": {"direction": "LT", "type": "FLOAT"}}
    with pytest.raises(UndefinedResult):
        ev("sort", [np.array([2.0, np.nan, 1.0], np.float32)], attrs, [T((3,), "f32")])


def test_sort_stable_keeps_equal_zeros_in_order() -> None:
    attrs = {"dimension": 0, "is_stable": True, "comparator": {"direction": "LT", "type": "FLOAT"}}
    keys, payload = ev("sort", [np.array([1.0, 0.0, -0.0], np.float32), np.array([0, 1, 2], np.int32)], attrs,
                       [T((3,), "f32"), T((3,), "s32")])
    assert payload.tolist() == [1, 2, 0] and bits(keys) == bits(np.array([0.0, -0.0, 1.0], np.float32))
    with pytest.raises(UndefinedResult):  # unstable: the two zeros may come either way
        ev("sort", [np.array([1.0, 0.0, -0.0], np.float32)], {**attrs, "is_stable": False}, [T((3,), "f32")])


def test_sort_totalorder() -> None:
    attrs = {"dimension": 0, "is_stable": True, "comparator": {"direction": "LT", "type": "TOTALORDER"}}
    (out,) = ev("sort", [np.array([np.nan, 1.0, -np.inf, -0.0, 0.0], np.float32)], attrs, [T((5,), "f32")])
    assert np.isnan(out[-1]) and out[:-1].tolist() == [-np.inf, 0.0, 0.0, 1.0]
    assert np.signbit(out[1]) and not np.signbit(out[2])
    with pytest.raises(UndefinedResult):  # +0 before -0: the two readings of TOTALORDER disagree
        ev("sort", [np.array([0.0, -0.0], np.float32)], attrs, [T((2,), "f32")])


def test_select_and_scatter_gt_picks_the_last_maximum() -> None:
    attrs = {"window_dimensions": [3], "window_strides": [3], "padding": [[0, 0]],
             "select": {"direction": "GT", "type": "SIGNED"}, "scatter": "add"}
    (out,) = ev("select_and_scatter", [np.array([5, 1, 5], np.int32), np.array([7], np.int32), np.int32(0)], attrs,
                [T((3,), "s32")])
    assert out.tolist() == [0, 0, 7]


def test_round_fraction_rounds_once() -> None:
    value = Fraction(1) + Fraction(1, 2 ** 8) + Fraction(1, 2 ** 30)  # bf16: 1 + 2^-7, not 1 (double rounding)
    assert float(ref._float_of(value, "bf16")) == 1 + 2 ** -7
    assert ref._float_of(value, "bf16").dtype == np.dtype(ml_dtypes.bfloat16)


def test_order_free() -> None:
    assert ref.order_free("add", np.array([1.0, 1.0, 1.0], np.float32), "f32")
    assert not ref.order_free("add", np.array([2.0 ** 24, 1.0, -1.0], np.float32), "f32")
