"""The spec reference's data movement ops against the StableHLO spec's own examples and hand-computed edges."""
from __future__ import annotations

from typing import Any, Sequence

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.golden.spec import evaluate
from pjrt_cts.golden.spec.numeric import UndefinedResult
from pjrt_cts.golden.spec.ops.movement import parse_literal
from pjrt_cts.golden.spec.types import bit_width
from pjrt_cts.golden.spec.registry import TensorType


def run(op: str, operands: Sequence[Any], attributes: dict[str, Any], shape: Sequence[int], dtype: str,
        *more: tuple[Sequence[int], str]) -> list[np.ndarray]:
    results = [TensorType(tuple(shape), dtype)] + [TensorType(tuple(s), d) for s, d in more]
    return evaluate(op, [np.asarray(o) for o in operands], attributes, results)


def i32(values: Any) -> np.ndarray:
    return np.array(values, dtype=np.int32)


def i64(values: Any) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def test_broadcast_in_dim_spec_example() -> None:
    (out,) = run("broadcast_in_dim", [i32([[1, 2, 3]])], {"broadcast_dimensions": [2, 1]}, (2, 3, 2), "s32")
    assert out.tolist() == [[[1, 1], [2, 2], [3, 3]], [[1, 1], [2, 2], [3, 3]]]


def test_broadcast_in_dim_scalar() -> None:
    (out,) = run("broadcast_in_dim", [np.array(True)], {"broadcast_dimensions": []}, (2, 2), "pred")
    assert out.tolist() == [[True, True], [True, True]]


def test_reshape_row_major() -> None:
    (out,) = run("reshape", [i32([[1, 2, 3], [4, 5, 6]])], {}, (3, 2), "s32")
    assert out.tolist() == [[1, 2], [3, 4], [5, 6]]


def test_transpose_spec_example() -> None:
    operand = i32([[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]])
    (out,) = run("transpose", [operand], {"permutation": [2, 1, 0]}, (2, 3, 2), "s32")
    assert out.tolist() == [[[1, 7], [3, 9], [5, 11]], [[2, 8], [4, 10], [6, 12]]]


def test_slice_spec_example() -> None:
    operand = i64([[0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]])
    (out,) = run("slice", [operand], {"start_indices": [1, 2], "limit_indices": [3, 4], "strides": [1, 1]},
                 (2, 2), "s64")
    assert out.tolist() == [[1, 1], [1, 1]]


def test_slice_strided() -> None:
    (out,) = run("slice", [i32(np.arange(7))], {"start_indices": [1], "limit_indices": [7], "strides": [3]},
                 (2,), "s32")
    assert out.tolist() == [1, 4]


def test_dynamic_slice_spec_example() -> None:
    operand = i32([[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0]])
    (out,) = run("dynamic_slice", [operand, i64(-1), i64(3)], {"slice_sizes": [2, 2]}, (2, 2), "s32")
    assert out.tolist() == [[1, 1], [1, 1]]


def test_dynamic_slice_unsigned_and_sub_byte_indices_clamp() -> None:
    operand = i32(np.arange(20).reshape(5, 4))
    big = np.array(4294967295, dtype=np.uint32)  # a huge unsigned start clamps to dim - size, not to -1
    (out,) = run("dynamic_slice", [operand, big, np.array(0, dtype=np.uint32)], {"slice_sizes": [2, 3]}, (2, 3),
                 "s32")
    assert out.tolist() == [[12, 13, 14], [16, 17, 18]]
    low = np.array(-8, dtype=ml_dtypes.int4)
    (out,) = run("dynamic_slice", [operand, low, np.array(7, dtype=ml_dtypes.int4)], {"slice_sizes": [2, 3]},
                 (2, 3), "s32")
    assert out.tolist() == [[1, 2, 3], [5, 6, 7]]


def test_dynamic_update_slice_spec_example() -> None:
    operand = i32([[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]])
    (out,) = run("dynamic_update_slice", [operand, i32([[1, 1], [1, 1]]), i64(-1), i64(3)], {}, (4, 4), "s32")
    assert out.tolist() == [[1] * 4] * 4


def test_concatenate_spec_example() -> None:
    (out,) = run("concatenate", [i64([[1, 2], [3, 4], [5, 6]]), i64([[7, 8]])], {"dimension": 0}, (4, 2), "s64")
    assert out.tolist() == [[1, 2], [3, 4], [5, 6], [7, 8]]


def test_pad_spec_example() -> None:
    attrs = {"edge_padding_low": [0, 1], "edge_padding_high": [2, 1], "interior_padding": [1, 2]}
    (out,) = run("pad", [i32([[1, 2, 3], [4, 5, 6]]), i32(0)], attrs, (5, 9), "s32")
    assert out.tolist() == [[0, 1, 0, 0, 2, 0, 0, 3, 0], [0] * 9, [0, 4, 0, 0, 5, 0, 0, 6, 0], [0] * 9, [0] * 9]


def test_pad_negative_edges_cut_the_interior_padded_operand() -> None:
    # interior-padded row [1, p, 2, p, 3] (p = 9); low -2 drops "1, p", high -1 drops "3"
    attrs = {"edge_padding_low": [-2], "edge_padding_high": [-1], "interior_padding": [1]}
    (out,) = run("pad", [i32([1, 2, 3]), i32(9)], attrs, (2,), "s32")
    assert out.tolist() == [2, 9]


def test_reverse() -> None:
    (out,) = run("reverse", [i32([[1, 2, 3], [4, 5, 6]])], {"dimensions": [1]}, (2, 3), "s32")
    assert out.tolist() == [[3, 2, 1], [6, 5, 4]]
    (out,) = run("reverse", [i32([[1, 2, 3], [4, 5, 6]])], {"dimensions": [0, 1]}, (2, 3), "s32")
    assert out.tolist() == [[6, 5, 4], [3, 2, 1]]


def test_iota() -> None:
    (out,) = run("iota", [], {"iota_dimension": 1}, (2, 3), "f4e2m1fn")
    assert out.astype(np.float64).tolist() == [[0, 1, 2], [0, 1, 2]]
    (out,) = run("iota", [], {"iota_dimension": 0}, (2,), "c64")
    assert out.tolist() == [0j, 1 + 0j]


def test_iota_value_the_type_cannot_hold_is_excluded() -> None:
    with pytest.raises(UndefinedResult):
        run("iota", [], {"iota_dimension": 0}, (9,), "s4")  # 8 is out of s4's range
    run("iota", [], {"iota_dimension": 0}, (5,), "f4e2m1fn")  # 0..4 are f4e2m1fn values
    with pytest.raises(UndefinedResult):
        run("iota", [], {"iota_dimension": 0}, (6,), "f4e2m1fn")  # 5 is not


def test_get_dimension_size_spec_example() -> None:
    (out,) = run("get_dimension_size", [i64([[1, 2, 3], [4, 5, 6]])], {"dimension": 1}, (), "s32")
    assert out.dtype == np.int32 and int(out) == 3


def test_constant_spec_example_and_hex_bit_patterns() -> None:
    (out,) = run("constant", [], {"value": ["0.0", "1.0", "2.0", "3.0"]}, (2, 2), "f32")
    assert out.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    # the spec writes f64 NaN as 0x7FFFFFFFFFFFFFFF (sign example): hex float literals are bit patterns
    nan = parse_literal("0x7FFFFFFFFFFFFFFF", "f64")
    assert nan.view(np.uint64) == 0x7FFFFFFFFFFFFFFF
    assert parse_literal("0x8000", "bf16").view(np.uint16) == 0x8000  # -0.0
    assert float(parse_literal("0x7", "f4e2m1fn")) == 6.0
    assert parse_literal("(1.5, 0xFF800000)", "c64") == np.complex64(complex(1.5, float("-inf")))
    assert int(parse_literal("-8", "s4")) == -8 and bool(parse_literal("true", "pred"))


def test_constant_out_of_range_literal_is_rejected() -> None:
    with pytest.raises(UndefinedResult):
        parse_literal("8", "s4")
    with pytest.raises(UndefinedResult):
        parse_literal("0.1", "bf16")


def test_bit_width_of_float_types() -> None:
    assert [bit_width(n) for n in ("f64", "f32", "bf16", "f8e5m2", "f6e3m2fn", "f4e2m1fn")] == [64, 32, 16, 8, 6, 4]


def test_optimization_barrier_spec_example() -> None:
    outs = run("optimization_barrier", [np.float32(0.0), np.float32(1.0)], {}, (), "f32", ((), "f32"))
    assert [float(o) for o in outs] == [0.0, 1.0]


def test_tuple_and_get_tuple_element() -> None:
    outs = run("tuple", [np.array([1.0, 2.0], np.float32), i32(3)], {}, (2,), "f32", ((), "s32"))
    assert outs[0].tolist() == [1.0, 2.0] and int(outs[1]) == 3
    (out,) = run("get_tuple_element", [np.array([1.0, 2.0], np.float32), i32(3)], {"index": 1}, (), "s32")
    assert int(out) == 3


OPERAND_3x4x2 = np.arange(1, 25, dtype=np.int32).reshape(3, 4, 2)


def test_gather_spec_example() -> None:
    indices = i64([[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 2]]])
    attrs = {"offset_dims": [2, 3], "collapsed_slice_dims": [0], "start_index_map": [1, 0], "index_vector_dim": 2,
             "slice_sizes": [1, 2, 2]}
    (out,) = run("gather", [OPERAND_3x4x2, indices], attrs, (2, 3, 2, 2), "s32")
    assert out.tolist() == [[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
                            [[[9, 10], [11, 12]], [[11, 12], [13, 14]], [[17, 18], [19, 20]]]]


def test_gather_batching_dims_spec_example_clamps_start_indices() -> None:
    operand = np.arange(1, 49, dtype=np.int32).reshape(2, 3, 4, 2)
    indices = i64([[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
                   [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]])
    attrs = {"offset_dims": [3, 4], "collapsed_slice_dims": [1], "operand_batching_dims": [0],
             "start_indices_batching_dims": [1], "start_index_map": [2, 1], "index_vector_dim": 3,
             "slice_sizes": [1, 1, 2, 2]}
    (out,) = run("gather", [operand, indices], attrs, (2, 2, 3, 2, 2), "s32")
    assert out.tolist() == [
        [[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
         [[[33, 34], [35, 36]], [[35, 36], [37, 38]], [[41, 42], [43, 44]]]],
        [[[[1, 2], [3, 4]], [[13, 14], [15, 16]], [[21, 22], [23, 24]]],
         [[[43, 44], [45, 46]], [[33, 34], [35, 36]], [[27, 28], [29, 30]]]]]


def test_gather_negative_and_unsigned_indices_clamp() -> None:
    operand = i32(np.arange(10).reshape(5, 2))
    attrs = {"offset_dims": [1], "collapsed_slice_dims": [0], "start_index_map": [0], "index_vector_dim": 1,
             "slice_sizes": [1, 2]}
    (out,) = run("gather", [operand, np.array([[-3], [9]], np.int8)], attrs, (2, 2), "s32")
    assert out.tolist() == [[0, 1], [8, 9]]
    (out,) = run("gather", [operand, np.array([[255]], np.uint8)], attrs, (1, 2), "s32")
    assert out.tolist() == [[8, 9]]


SCATTER_ATTRS = {"update_window_dims": [2, 3], "inserted_window_dims": [0], "scatter_dims_to_operand_dims": [1, 0],
                 "index_vector_dim": 2, "update_computation": "add"}


def test_scatter_spec_example() -> None:
    indices = i64([[[0, 2], [1, 0], [2, 1]], [[0, 1], [1, 0], [2, 0]]])
    updates = np.ones((2, 3, 2, 2), dtype=np.int32)
    (out,) = run("scatter", [OPERAND_3x4x2, indices, updates], SCATTER_ATTRS, (3, 4, 2), "s32")
    assert out.tolist() == [[[1, 2], [5, 6], [8, 9], [8, 9]], [[10, 11], [12, 13], [14, 15], [16, 17]],
                            [[18, 19], [20, 21], [21, 22], [23, 24]]]


WINDOW_ATTRS = {"update_window_dims": [1], "scatter_dims_to_operand_dims": [0], "index_vector_dim": 1,
                "update_computation": "replace"}


def test_scatter_skips_each_out_of_bounds_update_element() -> None:
    (out,) = run("scatter", [i32([0, 0, 0]), i32([[2]]), i32([[7, 8]])], WINDOW_ATTRS, (3,), "s32")
    assert out.tolist() == [0, 0, 7]  # start indices are not clamped; only element 3 is out of bounds
    (out,) = run("scatter", [i32([0, 0, 0]), i32([[-1]]), i32([[7, 8]])], WINDOW_ATTRS, (3,), "s32")
    assert out.tolist() == [8, 0, 0]


def test_scatter_add_on_floats_with_repeated_index_is_schedule_dependent() -> None:
    attrs = {"update_window_dims": [], "inserted_window_dims": [0], "scatter_dims_to_operand_dims": [0],
             "index_vector_dim": 1, "update_computation": "add"}
    x, updates = np.zeros(2, np.float32), np.array([1.0, 2.0], np.float32)
    with pytest.raises(UndefinedResult):
        run("scatter", [x, i32([[0], [0]]), updates], attrs, (2,), "f32")
    (out,) = run("scatter", [i32([0, 0]), i32([[0], [0]]), i32([1, 2])], attrs, (2,), "s32")
    assert out.tolist() == [3, 0]  # wrapping integer add: every schedule gives the same value


def test_scatter_batching_dims() -> None:
    # input 2x3: batch 0 row [0, 0, 0], batch 1 row [0, 0, 0]; update k of batch b goes to input[b, index[b, k]]
    attrs = {"update_window_dims": [], "inserted_window_dims": [1], "input_batching_dims": [0],
             "scatter_indices_batching_dims": [0], "scatter_dims_to_operand_dims": [1], "index_vector_dim": 2,
             "update_computation": "replace"}
    indices = i32([[[2], [-1]], [[0], [1]]])
    (out,) = run("scatter", [i32(np.zeros((2, 3))), indices, i32([[5, 6], [7, 8]])], attrs, (2, 3), "s32")
    assert out.tolist() == [[0, 0, 5], [7, 8, 0]]


def test_scatter_variadic_add() -> None:
    attrs = {"update_window_dims": [], "inserted_window_dims": [0], "scatter_dims_to_operand_dims": [0],
             "index_vector_dim": 1, "update_computation": "add"}
    outs = run("scatter", [i32([1, 2]), np.array([False, False]), i32([[1]]), i32([10]), np.array([True])], attrs,
               (2,), "s32", ((2,), "pred"))
    assert outs[0].tolist() == [1, 12] and outs[1].tolist() == [False, True]
