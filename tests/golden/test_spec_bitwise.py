"""The spec reference's bitwise, comparison, selection and conversion ops against the spec's own examples
(each op section's "Examples") and hand-computed edge cases."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.golden.spec import types
from pjrt_cts.golden.spec.numeric import UndefinedResult
from pjrt_cts.golden.spec.ops import bitwise
from pjrt_cts.golden.spec.registry import TensorType, evaluate


def run(op: str, operands: list[np.ndarray], dtype: str, shape: tuple[int, ...] | None = None,
        **attributes: object) -> np.ndarray:
    shape = operands[-1].shape if shape is None else shape
    return evaluate(op, operands, attributes, [TensorType(tuple(shape), dtype)])[0]


i32 = np.int32
i64 = np.int64


# --------------------------------------------------------------------- the spec's examples


def test_and_example() -> None:
    out = run("and", [np.array([[1, 2], [3, 4]], i32), np.array([[5, 6], [7, 8]], i32)], "s32")
    np.testing.assert_array_equal(out, [[1, 2], [3, 0]])


def test_or_examples() -> None:
    out = run("or", [np.array([[1, 2], [3, 4]], i32), np.array([[5, 6], [7, 8]], i32)], "s32")
    np.testing.assert_array_equal(out, [[5, 6], [7, 12]])
    lhs, rhs = np.array([[False, False], [True, True]]), np.array([[False, True], [False, True]])
    np.testing.assert_array_equal(run("or", [lhs, rhs], "pred"), [[False, True], [True, True]])


def test_xor_hand_computed() -> None:
    out = run("xor", [np.array([[1, 2], [3, 4]], i32), np.array([[5, 6], [7, 8]], i32)], "s32")
    np.testing.assert_array_equal(out, [[4, 4], [4, 12]])
    lhs, rhs = np.array([False, False, True, True]), np.array([False, True, False, True])
    np.testing.assert_array_equal(run("xor", [lhs, rhs], "pred"), [False, True, True, False])


def test_not_examples() -> None:
    np.testing.assert_array_equal(run("not", [np.array([[1, 2], [3, 4]], i32)], "s32"), [[-2, -3], [-4, -5]])
    np.testing.assert_array_equal(run("not", [np.array([True, False])], "pred"), [False, True])


def test_shift_examples() -> None:
    np.testing.assert_array_equal(
        run("shift_left", [np.array([-1, 0, 1], i64), np.array([1, 2, 3], i64)], "s64"), [-2, 0, 8])
    np.testing.assert_array_equal(
        run("shift_right_arithmetic", [np.array([-1, 0, 8], i64), np.array([1, 2, 3], i64)], "s64"), [-1, 0, 1])
    np.testing.assert_array_equal(
        run("shift_right_logical", [np.array([-1, 0, 8], i64), np.array([1, 2, 3], i64)], "s64"),
        [9223372036854775807, 0, 1])


def test_popcnt_example() -> None:
    np.testing.assert_array_equal(run("popcnt", [np.array([0, 1, 2, 127], i64)], "s64"), [0, 1, 1, 7])


def test_count_leading_zeros_example() -> None:
    out = run("count_leading_zeros", [np.array([[0, 1], [128, -1]], i64)], "s64")
    np.testing.assert_array_equal(out, [[64, 63], [56, 0]])


def test_compare_example() -> None:
    out = run("compare", [np.array([1.0, 3.0], np.float32), np.array([1.1, 2.9], np.float32)], "pred",
              comparison_direction="LT", compare_type="FLOAT")
    np.testing.assert_array_equal(out, [True, False])


def test_select_example() -> None:
    pred = np.array([[False, True], [True, False]])
    out = run("select", [pred, np.array([[1, 2], [3, 4]], i32), np.array([[5, 6], [7, 8]], i32)], "s32")
    np.testing.assert_array_equal(out, [[5, 2], [3, 8]])


def test_convert_example() -> None:
    out = run("convert", [np.array([-1, 0, 1], i64)], "c128")
    assert out.dtype == np.complex128
    np.testing.assert_array_equal(out, [-1 + 0j, 0j, 1 + 0j])


def test_bitcast_convert_examples_are_different_widths() -> None:
    """Both spec examples (f32 -> 4 x i8, f64 -> 4 x f16) change the width: `bits` is
    implementation-defined there, so the reference gives no value."""
    with pytest.raises(UndefinedResult):
        run("bitcast_convert", [np.array([0.0, 1.0], np.float32)], "s8", shape=(2, 4))
    with pytest.raises(UndefinedResult):
        run("bitcast_convert", [np.array(1.0)], "f16", shape=(4,))


# --------------------------------------------------------------------- hand-computed edge cases


def test_sub_byte_bitwise() -> None:
    s4 = ml_dtypes.int4
    np.testing.assert_array_equal(run("not", [np.array([0, -1, 7, -8], s4)], "s4"), np.array([-1, 0, -8, 7], s4))
    np.testing.assert_array_equal(run("popcnt", [np.array([-8, -1, 7], s4)], "s4"), np.array([1, 4, 3], s4))
    np.testing.assert_array_equal(run("count_leading_zeros", [np.array([0, 1, -8], s4)], "s4"),
                                  np.array([4, 3, 0], s4))
    with pytest.raises(UndefinedResult):  # popcnt(-1) = 2 > max(si2)
        run("popcnt", [np.array([-1], ml_dtypes.int2)], "s2")


def test_shift_amounts() -> None:
    u8 = np.uint8
    lhs = np.array([0x81, 0x81, 0x81, 0x81], u8)
    amounts = np.array([0, 7, 8, 255], u8)
    np.testing.assert_array_equal(run("shift_left", [lhs, amounts], "u8"), [0x81, 0x80, 0, 0])
    np.testing.assert_array_equal(run("shift_right_logical", [lhs, amounts], "u8"), [0x81, 1, 0, 0])
    np.testing.assert_array_equal(run("shift_right_arithmetic", [lhs, amounts], "u8"), [0x81, 0xFF, 0xFF, 0xFF])
    np.testing.assert_array_equal(
        run("shift_right_arithmetic", [np.array([-128, 64], np.int8), np.array([9, 9], np.int8)], "s8"), [-1, 0])
    with pytest.raises(UndefinedResult):
        run("shift_left", [np.array([1], np.int8), np.array([-1], np.int8)], "s8")


def test_compare_float_and_totalorder() -> None:
    nan, inf = float("nan"), float("inf")
    x = np.array([nan, -0.0, 1.0, -inf], np.float32)
    y = np.array([1.0, 0.0, nan, 2.0], np.float32)
    np.testing.assert_array_equal(
        run("compare", [x, y], "pred", comparison_direction="NE", compare_type="FLOAT"), [True, False, True, True])
    np.testing.assert_array_equal(
        run("compare", [x, y], "pred", comparison_direction="GE", compare_type=None), [False, True, False, False])
    x2, y2 = np.array([nan, 1.0, -inf], np.float32), np.array([inf, nan, -1.0], np.float32)
    np.testing.assert_array_equal(  # +NaN sorts above +inf in totalOrder
        run("compare", [x2, y2], "pred", comparison_direction="GT", compare_type="TOTALORDER"), [True, False, False])
    for pair in ([nan, nan], [-0.0, 0.0]):
        with pytest.raises(UndefinedResult):
            run("compare", [np.array(pair[:1], np.float32), np.array(pair[1:], np.float32)], "pred",
                comparison_direction="LT", compare_type="TOTALORDER")
    with pytest.raises(ValueError):
        run("compare", [np.array([1], i32), np.array([2], i32)], "pred", comparison_direction="LT",
            compare_type="UNSIGNED")


def test_compare_complex_lexicographic() -> None:
    x = np.array([0j, 1 + 0j, 1 + 2j], np.complex64)
    y = np.array([1j, 0.5 + 5j, 1 + 2j], np.complex64)
    np.testing.assert_array_equal(run("compare", [x, y], "pred", comparison_direction="GE", compare_type="FLOAT"),
                                  [False, True, True])
    np.testing.assert_array_equal(run("compare", [x, y], "pred", comparison_direction="LT", compare_type=None),
                                  [True, False, False])
    with pytest.raises(UndefinedResult):
        run("compare", [np.array([complex(0, float("nan"))], np.complex64), np.array([0j], np.complex64)],
            "pred", comparison_direction="LE")


def test_select_scalar_pred() -> None:
    out = run("select", [np.array(False), np.array([1.0, -0.0]), np.array([-0.0, 2.0])], "f64")
    assert list(np.signbit(out)) == [True, False]


def test_convert_edges() -> None:
    f32 = np.float32
    np.testing.assert_array_equal(run("convert", [np.array([1.9, -1.9, -0.5, 127.75], f32)], "s8"), [1, -1, 0, 127])
    np.testing.assert_array_equal(run("convert", [np.array([6.0, -6.0], ml_dtypes.float4_e2m1fn)], "s8"), [6, -6])
    np.testing.assert_array_equal(run("convert", [np.array([float("nan"), -0.0, 1e-45], f32)], "pred"),
                                  [True, False, True])
    np.testing.assert_array_equal(run("convert", [np.array([1j, 2 + 0j], np.complex64)], "pred"), [False, True])
    out = run("convert", [np.array([2.0 ** -149, -0.0])], "f32")
    assert out[0] == f32(2.0 ** -149) and np.signbit(out[1])
    out = run("convert", [np.array([448.0, -2.0 ** -9], f32)], "f8e4m3fn")
    np.testing.assert_array_equal(out.astype(np.float64), [448.0, -2.0 ** -9])
    for value, source, target in ((16777217, np.int32, "f32"), (float("nan"), f32, "s32"), (128.0, f32, "s8"),
                                  (0.1, np.float64, "f32"), (float("inf"), f32, "f8e4m3fn"), (300, np.int32, "u8")):
        with pytest.raises(UndefinedResult):
            run("convert", [np.array([value], source)], target)


def test_bitcast_convert_same_width() -> None:
    np.testing.assert_array_equal(run("bitcast_convert", [np.array([1.0, -0.0], np.float32)], "s32"),
                                  [0x3F800000, -(2 ** 31)])
    np.testing.assert_array_equal(run("bitcast_convert", [np.array([-1, -8], ml_dtypes.int4)], "u4"),
                                  np.array([15, 8], ml_dtypes.uint4))
    out = run("bitcast_convert", [np.array([-1, 7], ml_dtypes.int4)], "f4e2m1fn")
    np.testing.assert_array_equal(out.astype(np.float64), [-6.0, 6.0])


def test_bits_round_trip() -> None:
    assert types.bit_width("f64") == 64
    values = np.array([-1.5, float("inf")], ml_dtypes.bfloat16)
    assert bitwise.bits(values, "bf16") == [0xBFC0, 0x7F80]
    back = bitwise.from_bits(bitwise.bits(values, "bf16"), "bf16", (2,))
    assert back.tobytes() == values.tobytes()
