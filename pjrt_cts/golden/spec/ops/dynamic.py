"""Dynamic-shape ops and uniform quantization (spec sections named in each registration).

The dynamic ops are "functionally identical" (spec wording) to their static counterparts, with a shape,
padding or slice-size attribute given as an integer tensor operand instead; the results are computed by the
static op's reference (pjrt_cts.golden.spec.ops.movement / structured) with that operand's values. A case's
program may compute those operands inside `@main` (`stablehlo.constant`, so the result type is static); then
the reference does not see them as operands and reads them from the case's attributes under the same name.

These sections are in the newer spec (docs/spec.md after the dynamism RFC and the quantization sections); the
stored spec copy predates them, so the rules cited here are from the newer text.

Exclusions (UndefinedResult, the case generator must not produce these inputs):
* a shape operand whose values differ from the result type's shape (the dynamism RFC, P2: "shape mismatches
  constitute undefined behavior").
* uniform_quantize of NaN: `round_nearest_even(NaN)` stays NaN through the clamp and `convert(NaN, storage)` is
  implementation-defined (spec #convert: float-to-integer conversion of NaN is not defined).

Quantized tensors cannot be program arguments or results of a PJRT program that the suite runs with plain
arrays, so quantization is observed through float results: a uniform_quantize case's program dequantizes its
quantized result (`uniform_dequantize`), and a uniform_dequantize case's operand is a quantized constant in the
program (its storage values in the attributes).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from pjrt_cts.golden.spec.numeric import UndefinedResult
from pjrt_cts.golden.spec.ops import movement, structured
from pjrt_cts.golden.spec.registry import TensorType, spec_op
from pjrt_cts.golden.spec.types import int_range, np_dtype

ALL = ("bool", "signed", "unsigned", "float", "complex")
Arrays = list[np.ndarray]


def _values(operands: Sequence[np.ndarray], index: int, attributes: Mapping[str, Any], key: str) -> Any:
    """The integer operand at `index` as nested Python ints, or the attribute `key` where the program computes
    that operand itself (a constant in `@main`)."""
    if len(operands) > index:
        return np.asarray(operands[index]).astype(object).tolist()
    return attributes[key]


def _check_shape(shape: Sequence[int], result: TensorType, what: str) -> None:
    if tuple(int(d) for d in shape) != tuple(result.shape):
        raise UndefinedResult(f"{what} {list(shape)} differs from the result shape {list(result.shape)}")


@spec_op("dynamic_broadcast_in_dim", classes=ALL)
def dynamic_broadcast_in_dim(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                             results: Sequence[TensorType]) -> Arrays:
    """spec #dynamic_broadcast_in_dim: "functionally identical to broadcast_in_dim op, but the result shape is
    specified dynamically via `output_dimensions`"; known_(non)expanding_dimensions are hints only."""
    _check_shape(_values(operands, 1, attributes, "output_dimensions"), results[0], "output_dimensions")
    return list(movement.broadcast_in_dim(operands[:1], attributes, results))


@spec_op("dynamic_iota", classes=("signed", "unsigned", "float", "complex"))
def dynamic_iota(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                 results: Sequence[TensorType]) -> Arrays:
    """spec #dynamic_iota: "functionally identical to iota op, but the result shape is specified dynamically
    via `output_shape`"."""
    _check_shape(_values(operands, 0, attributes, "output_shape"), results[0], "output_shape")
    return list(movement.iota([], attributes, results))


@spec_op("dynamic_pad", classes=ALL)
def dynamic_pad(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                results: Sequence[TensorType]) -> Arrays:
    """spec #dynamic_pad: "functionally identical to pad op, but with `edge_padding_low`,
    `edge_padding_high` and `interior_padding` specified dynamically as values"."""
    keys = ("edge_padding_low", "edge_padding_high", "interior_padding")
    pads = {k: [int(v) for v in _values(operands, 2 + i, attributes, k)] for i, k in enumerate(keys)}
    operand = operands[0]
    if any(n < 0 for n in pads["interior_padding"]):
        raise UndefinedResult("negative interior padding")
    shape = [d + max(d - 1, 0) * n + lo + hi for d, lo, hi, n in
             zip(operand.shape, pads["edge_padding_low"], pads["edge_padding_high"], pads["interior_padding"])]
    _check_shape(shape, results[0], "the padded shape")
    return list(movement.pad(operands[:2], pads, results))


@spec_op("dynamic_reshape", classes=ALL)
def dynamic_reshape(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                    results: Sequence[TensorType]) -> Arrays:
    """spec #dynamic_reshape: "functionally identical to reshape op, but the result shape is specified
    dynamically via `output_shape`"."""
    _check_shape(_values(operands, 1, attributes, "output_shape"), results[0], "output_shape")
    return list(movement.reshape(operands[:1], attributes, results))


@spec_op("dynamic_gather", classes=ALL)
def dynamic_gather(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                   results: Sequence[TensorType]) -> Arrays:
    """spec #dynamic_gather: "functionally identical to gather op, with the `slice_sizes` specified
    dynamically as a value" (start indices clamped as in gather)."""
    sizes = [int(v) for v in _values(operands, 2, attributes, "slice_sizes")]
    return list(movement.gather(operands[:2], dict(attributes, slice_sizes=sizes), results))


@spec_op("dynamic_conv", classes=ALL, op_class="matmul", exact=False)
def dynamic_conv(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                 results: Sequence[TensorType]) -> Arrays:
    """spec #dynamic_conv: "functionally identical to convolution op, but the padding is specified dynamically
    via `padding`" (a [N-2, 2] integer tensor of low/high pairs)."""
    padding = [[int(lo), int(hi)] for lo, hi in _values(operands, 2, attributes, "padding")]
    return list(structured.convolution(operands[:2], dict(attributes, padding=padding), results))


# ------------------------------------------------------------------------------------------- quantization
def _params(qtype: Mapping[str, Any], shape: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(scales, zero points) broadcast to `shape`: one pair per tensor, or per slice along
    `quantization_dimension` (spec #compute_scales / #compute_zero_points)."""
    scales = np.asarray(qtype["scales"], dtype=np.float64)
    zero_points = np.asarray(qtype["zero_points"], dtype=np.int64)
    axis = qtype.get("axis")
    if axis is None:
        return np.full(shape, scales[0]), np.full(shape, zero_points[0])
    view = [1] * len(shape)
    view[int(axis)] = len(scales)
    return (np.broadcast_to(scales.reshape(view), shape), np.broadcast_to(zero_points.reshape(view), shape))


def _storage_limits(qtype: Mapping[str, Any]) -> tuple[int, int]:
    lo, hi = int_range(qtype["storage"])
    return int(qtype.get("storage_min", lo)), int(qtype.get("storage_max", hi))


def quantize(x: np.ndarray, qtype: Mapping[str, Any]) -> np.ndarray:
    """spec `quantize`: `convert(clamp(storage_min, round_nearest_even(divide(x, scales)) + zero_points,
    storage_max), storage_type)`, each step in the expressed type; storage values as int64."""
    expressed = np_dtype(qtype["expressed"])
    scales, zero_points = _params(qtype, x.shape)
    wide = np.asarray(x, dtype=expressed)
    if np.isnan(wide.astype(np.float64)).any():
        raise UndefinedResult("uniform_quantize of NaN: convert(NaN) to an integer type is implementation-defined")
    with np.errstate(all="ignore"):
        scaled = (wide / scales.astype(expressed)).astype(expressed)  # IEEE division in the expressed type
    rounded = np.round(scaled.astype(np.float64))  # numpy rounds half to even
    shifted = rounded + zero_points  # integers well inside the expressed type's exact range
    lo, hi = _storage_limits(qtype)
    return np.clip(shifted, lo, hi).astype(np.int64)


def dequantize(storage: np.ndarray, qtype: Mapping[str, Any]) -> np.ndarray:
    """spec `dequantize`: `multiply(convert(storage - zero_points, expressed_type), scales)`."""
    expressed = np_dtype(qtype["expressed"])
    scales, zero_points = _params(qtype, storage.shape)
    difference = (np.asarray(storage, dtype=np.int64) - zero_points).astype(expressed)
    return (difference * scales.astype(expressed)).astype(expressed)


@spec_op("uniform_quantize", classes=("float",))
def uniform_quantize(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                     results: Sequence[TensorType]) -> Arrays:
    """spec #uniform_quantize: `result = quantize(operand, type(result))` for a float operand;
    `quantize(dequantize(operand), type(result))` for a quantized one. The case's program takes a float
    operand, quantizes it to `attributes["quantized_type"]` (after `attributes["requantize_from"]` if given)
    and dequantizes the result (spec #uniform_dequantize), so the result is `dequantize(quantize(x))`."""
    (x,) = operands
    storage = quantize(x, attributes["quantized_type"]) if "requantize_from" not in attributes else None
    if storage is None:
        first = attributes["requantize_from"]
        storage = quantize(dequantize(quantize(x, first), first), attributes["quantized_type"])
    return [dequantize(storage, attributes["quantized_type"]).astype(np_dtype(results[0].dtype))]


@spec_op("uniform_dequantize", classes=("float",))
def uniform_dequantize(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                       results: Sequence[TensorType]) -> Arrays:
    """spec #uniform_dequantize: `result = dequantize(operand)`; the operand is a quantized constant whose
    storage values are `attributes["storage"]` (row-major) of type `attributes["quantized_type"]`."""
    storage = np.asarray(attributes["storage"], dtype=np.int64).reshape(results[0].shape)
    return [dequantize(storage, attributes["quantized_type"]).astype(np_dtype(results[0].dtype))]
