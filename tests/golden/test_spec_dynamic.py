"""The spec reference's dynamic-shape and quantization ops against the spec's own examples and hand-computed
values (numpy only: no JAX)."""
from __future__ import annotations

import numpy as np
import pytest

from pjrt_cts.golden.spec import registry
from pjrt_cts.golden.spec.numeric import UndefinedResult
from pjrt_cts.golden.spec.registry import TensorType


def _eval(op: str, operands: list, attributes: dict, shape: tuple, dtype: str) -> np.ndarray:
    return registry.evaluate(op, operands, attributes, [TensorType(shape, dtype)])[0]


def test_dynamic_broadcast_in_dim_spec_example() -> None:
    operand = np.array([[1, 2, 3]], dtype=np.int64)
    out = _eval("dynamic_broadcast_in_dim", [operand, np.array([2, 3, 2], dtype=np.int64)],
                {"broadcast_dimensions": [2, 1]}, (2, 3, 2), "s64")
    assert out.tolist() == [[[1, 1], [2, 2], [3, 3]], [[1, 1], [2, 2], [3, 3]]]


def test_dynamic_broadcast_in_dim_shape_from_attributes_and_mismatch() -> None:
    operand = np.array([1.5, -0.0], dtype=np.float32)
    out = _eval("dynamic_broadcast_in_dim", [operand], {"broadcast_dimensions": [1], "output_dimensions": [3, 2]},
                (3, 2), "f32")
    assert out.tolist() == [[1.5, -0.0]] * 3 and np.signbit(out[:, 1]).all()
    with pytest.raises(UndefinedResult):
        _eval("dynamic_broadcast_in_dim", [operand, np.array([4, 2], np.int32)], {"broadcast_dimensions": [1]},
              (3, 2), "f32")


def test_dynamic_iota_spec_example() -> None:
    out = _eval("dynamic_iota", [np.array([4, 5], dtype=np.int64)], {"iota_dimension": 0}, (4, 5), "s64")
    assert out.tolist() == [[i] * 5 for i in range(4)]


def test_dynamic_pad_spec_example() -> None:
    operand = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int64)
    pads = [np.array(v, dtype=np.int64) for v in ([0, 1], [2, 1], [1, 2])]
    out = _eval("dynamic_pad", [operand, np.array(0, np.int64), *pads], {}, (5, 9), "s64")
    assert out.tolist() == [[0, 1, 0, 0, 2, 0, 0, 3, 0], [0] * 9, [0, 4, 0, 0, 5, 0, 0, 6, 0], [0] * 9, [0] * 9]


def test_dynamic_pad_negative_edge_from_attributes() -> None:
    operand = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int8)
    attrs = {"edge_padding_low": [-1, 0], "edge_padding_high": [0, -1], "interior_padding": [1, 0]}
    out = _eval("dynamic_pad", [operand, np.array(9, np.int8)], attrs, (2, 2), "s8")
    assert out.tolist() == [[9, 9], [4, 5]]  # interior-padded rows [1 2 3], [9 9 9], [4 5 6]; first row cut


def test_dynamic_reshape_spec_example() -> None:
    operand = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int64)
    out = _eval("dynamic_reshape", [operand, np.array([3, 2], np.int64)], {}, (3, 2), "s64")
    assert out.tolist() == [[1, 2], [3, 4], [5, 6]]


def test_dynamic_gather_spec_example() -> None:
    operand = np.arange(1, 25, dtype=np.int64).reshape(3, 4, 2)
    starts = np.array([[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]], dtype=np.int64)
    attrs = {"offset_dims": [2, 3], "collapsed_slice_dims": [0], "start_index_map": [1, 0], "index_vector_dim": 2}
    out = _eval("dynamic_gather", [operand, starts, np.array([1, 2, 2], np.int64)], attrs, (2, 3, 2, 2), "s64")
    # start (i, j) reads operand[j, i:i+2, :] (map [1, 0]), j clamped to 3 - 1 = 2 (the [0, 9] start)
    assert out[0, 0].tolist() == [[1, 2], [3, 4]]
    assert out[0, 1].tolist() == [[3, 4], [5, 6]]
    assert out[0, 2].tolist() == [[13, 14], [15, 16]]
    assert out[1, 2].tolist() == [[17, 18], [19, 20]]


def test_dynamic_conv_spec_example() -> None:
    lhs = np.array([1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17], dtype=np.int64).reshape(1, 4, 4, 1)
    rhs = np.ones((3, 3, 1, 1), dtype=np.int64)
    dn = {"input_batch": 0, "input_feature": 3, "input_spatial": [1, 2], "kernel_input_feature": 2,
          "kernel_output_feature": 3, "kernel_spatial": [0, 1], "output_batch": 0, "output_feature": 3,
          "output_spatial": [1, 2]}
    attrs = {"window_strides": [4, 4], "lhs_dilation": [2, 2], "rhs_dilation": [1, 1], "dimension_numbers": dn,
             "feature_group_count": 1, "batch_group_count": 1}
    out = _eval("dynamic_conv", [lhs, rhs, np.array([[1, 1], [1, 1]], np.int64)], attrs, (1, 2, 2, 1), "s64")
    assert out.reshape(2, 2).tolist() == [[1, 5], [10, 14]]
    unpadded = _eval("dynamic_conv", [lhs, rhs], dict(attrs, padding=[[0, 0], [0, 0]]), (1, 2, 2, 1), "s64")
    assert unpadded.reshape(2, 2).tolist() == [[10, 26], [46, 62]]  # spec #convolution's example


Q = {"storage": "s8", "expressed": "f32", "scales": [0.5], "zero_points": [3], "axis": None}


def test_uniform_quantize_round_trip_ties_and_clamp() -> None:
    x = np.array([0.25, 0.75, -0.25, 1.0, 100.0, -100.0, np.inf, -np.inf], dtype=np.float32)
    out = _eval("uniform_quantize", [x], {"quantized_type": Q}, (8,), "f32")
    # x / 0.5 = 0.5 -> 0 (even), 1.5 -> 2, -0.5 -> -0 -> 0; + 3; clamp to [-128, 127]; then (q - 3) * 0.5
    assert out.tolist() == [0.0, 1.0, 0.0, 1.0, 62.0, -65.5, 62.0, -65.5]


def test_uniform_quantize_per_axis_narrow_and_requantize() -> None:
    per_axis = dict(Q, scales=[0.5, 2.0], zero_points=[3, -1], axis=1)
    x = np.array([[3.0, 3.0], [-1000.0, 1000.0]], dtype=np.float32)
    out = _eval("uniform_quantize", [x], {"quantized_type": per_axis}, (2, 2), "f32")
    assert out.tolist() == [[3.0, 4.0], [-65.5, 256.0]]  # 3/2 = 1.5 -> 2 -> (2 - 1 + 1) * 2 = 4
    narrow = dict(Q, storage_min=-100, storage_max=100)
    assert _eval("uniform_quantize", [np.array([1e9], np.float32)], {"quantized_type": narrow}, (1,),
                 "f32").tolist() == [48.5]
    wide = {"storage": "s16", "expressed": "f32", "scales": [0.125], "zero_points": [-7], "axis": None}
    out = _eval("uniform_quantize", [np.array([0.3, 1000.0], np.float32)],
                {"quantized_type": wide, "requantize_from": Q}, (2,), "f32")
    assert out.tolist() == [0.5, 62.0]  # 0.3 -> storage 4 (0.6 -> 1) -> 0.5 -> exact at 1/8 steps
    with pytest.raises(UndefinedResult):
        _eval("uniform_quantize", [np.array([np.nan], np.float32)], {"quantized_type": Q}, (1,), "f32")


def test_uniform_dequantize() -> None:
    out = _eval("uniform_dequantize", [], {"quantized_type": Q, "storage": [-128, 0, 3, 127]}, (4,), "f32")
    assert out.tolist() == [-65.5, -1.5, 0.0, 62.0]
    per_axis = dict(Q, scales=[0.5, 2.0], zero_points=[3, -1], axis=0)
    out = _eval("uniform_dequantize", [], {"quantized_type": per_axis, "storage": [1, 5, -1, 0]}, (2, 2), "f32")
    assert out.tolist() == [[-1.0, 1.0], [0.0, 2.0]]
