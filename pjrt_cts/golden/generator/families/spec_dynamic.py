"""Spec-reference cases of the dynamic-shape ops and uniform quantization (pjrt_cts.golden.spec.ops.dynamic).

Each dynamic op's shape, padding or slice-size operand is a `stablehlo.constant` inside `@main` (the result
type is static; the values are in the case's attributes) or, in the `arg_*` cases, a program argument (the
spec types it as a tensor, not a constant). Operands are filled with the element type's edge values as in
spec_movement (exact data movement shows any value change). Quantization round-trips f32 through
`!quant.uniform` types (per-tensor, narrowed storage range, unsigned storage, per-axis, requantization).
"""
from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

from pjrt_cts.golden.generator.core import CaseSpec
from pjrt_cts.golden.generator.families.spec_movement import FEW, TYPES, _arr, _fill, _gather_text, _idx
from pjrt_cts.golden.generator.families.spec_structured import NHWC, _conv_letters
from pjrt_cts.golden.generator.spec_cases import spec_case, type_of
from pjrt_cts.golden.spec import mlir
from pjrt_cts.golden.spec.registry import TensorType
from pjrt_cts.golden.spec.types import MLIR_NAMES, np_dtype

NUMERIC = tuple(t for t in TYPES if t != "pred")


def _const_line(name: str, values: np.ndarray) -> str:
    t = type_of(values)
    literal = str(np.asarray(values).astype(object).tolist())
    return mlir.generic_op("constant", [], [], [t], f"value = dense<{literal}> : {mlir.tensor(t)}", results=name)


def _program(op: str, args: Sequence[np.ndarray], consts: Sequence[np.ndarray], result: TensorType,
             attributes: str = "") -> str:
    """`@main(args...)` computes `consts` with stablehlo.constant and applies `op` to args + consts."""
    lines = [_const_line(f"%c{i}", c) for i, c in enumerate(consts)]
    names = [f"%arg{i}" for i in range(len(args))] + [f"%c{i}" for i in range(len(consts))]
    types = [type_of(a) for a in list(args) + list(consts)]
    lines.append(mlir.generic_op(op, names, types, [result], attributes))
    return mlir.module([type_of(a) for a in args], [result], lines, ["%0"])


def _case(op: str, suffix: str, data: Sequence[np.ndarray], shape_operands: Sequence[np.ndarray],
          keys: Sequence[str], result: TensorType, attrs: dict[str, Any], text: str, rule: str,
          as_args: bool, **kwargs: Any) -> CaseSpec:
    """A case whose `shape_operands` are constants in @main (their values in attributes) or arguments."""
    if as_args:
        inputs = list(data) + list(shape_operands)
        program = _program(op, inputs, [], result, text)
        attributes = dict(attrs)
    else:
        inputs = list(data)
        program = _program(op, inputs, shape_operands, result, text)
        values = {k: np.asarray(v).astype(object).tolist() for k, v in zip(keys, shape_operands)}
        attributes = dict(attrs, **values)
    return spec_case(op, suffix, inputs, [result], attributes=attributes, program=program, rule=rule, **kwargs)


def _broadcast() -> Iterator[CaseSpec]:
    settings = [("dims_1", (3,), (2, 3), [1], "s64", False), ("size1_dims_2_1", (1, 3), (2, 3, 2), [2, 1], "s32", False),
                ("arg_dims_1", (3,), (2, 3), [1], "s64", True)]
    for i, (label, shape, out, dims, index_type, as_args) in enumerate(settings):
        for name in TYPES if i == 0 else FEW[:2] + ("f32",):
            x = _fill(name, shape, 3)
            text = f"broadcast_dimensions = {_arr(dims)}"
            if i == 1:
                text += ", known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>"
            yield _case("dynamic_broadcast_in_dim", f"{label}.{name}", [x], [_idx(list(out), index_type)],
                        ["output_dimensions"], TensorType(out, name), {"broadcast_dimensions": dims}, text,
                        "functionally identical to broadcast_in_dim, result shape from output_dimensions", as_args)


def _iota() -> Iterator[CaseSpec]:
    settings = [("dim_0", (3, 4), 0, "s64", NUMERIC, False), ("dim_1", (2, 5), 1, "u32", FEW, False),
                ("arg_dim_1", (2, 5), 1, "s32", ("s32", "f32"), True)]
    for label, out, dim, index_type, names, as_args in settings:
        for name in names:
            yield _case("dynamic_iota", f"{label}.{name}", [], [_idx(list(out), index_type)], ["output_shape"],
                        TensorType(out, name), {"iota_dimension": dim}, f"iota_dimension = {dim} : i64",
                        "functionally identical to iota, result shape from output_shape", as_args)


def _pad_value(name: str) -> np.ndarray:
    return _fill(name, (), 8)


_PAD = [("interior", [0, 1], [2, 1], [1, 2], "s64", False), ("negative_edge", [-1, 1], [0, -2], [1, 1], "s32", False),
        ("arg_interior", [0, 1], [2, 1], [1, 2], "s64", True)]


def _pad() -> Iterator[CaseSpec]:
    for i, (label, low, high, interior, index_type, as_args) in enumerate(_PAD):
        for name in TYPES if i == 0 else FEW[:2] + ("f32",):
            x = _fill(name, (2, 3), 2)
            out = tuple(d + max(d - 1, 0) * n + lo + hi for d, lo, hi, n in zip(x.shape, low, high, interior))
            pads = [_idx(v, index_type) for v in (low, high, interior)]
            yield _case("dynamic_pad", f"{label}.{name}", [x, _pad_value(name)], pads,
                        ["edge_padding_low", "edge_padding_high", "interior_padding"], TensorType(out, name), {}, "",
                        "functionally identical to pad, paddings specified dynamically as values", as_args)


def _reshape() -> Iterator[CaseSpec]:
    settings = [("2x3x4_to_4x6", (2, 3, 4), (4, 6), "s64", False), ("6_to_1x2x3", (6,), (1, 2, 3), "u8", False),
                ("arg_2x3x4_to_4x6", (2, 3, 4), (4, 6), "s32", True)]
    for i, (label, shape, out, index_type, as_args) in enumerate(settings):
        for name in TYPES if i == 0 else FEW[:2] + ("f32",):
            x = _fill(name, shape, 1)
            yield _case("dynamic_reshape", f"{label}.{name}", [x], [_idx(list(out), index_type)], ["output_shape"],
                        TensorType(out, name), {}, "",
                        "functionally identical to reshape, result shape from output_shape", as_args)


_GATHER = [
    ("rows_clamped", (5, 4), ("s32", [[-2], [1], [9], [4]]),
     {"offset_dims": [1], "collapsed_slice_dims": [0], "start_index_map": [0], "index_vector_dim": 1}, [1, 4],
     (4, 4), "s64", False),
    ("windows_swapped_map", (5, 4), ("u8", [[[0, 0], [255, 1]], [[2, 3], [1, 200]]]),
     {"offset_dims": [2, 3], "start_index_map": [1, 0], "index_vector_dim": 2}, [2, 3], (2, 2, 2, 3), "s32", False),
    ("arg_rows_clamped", (5, 4), ("s32", [[-2], [1], [9], [4]]),
     {"offset_dims": [1], "collapsed_slice_dims": [0], "start_index_map": [0], "index_vector_dim": 1}, [1, 4],
     (4, 4), "s64", True),
]


def _gather() -> Iterator[CaseSpec]:
    for i, (label, shape, (itype, ivalues), dn, sizes, out, size_type, as_args) in enumerate(_GATHER):
        for name in TYPES if i == 0 else FEW[:2] + ("f32",):
            x = _fill(name, shape, 1)
            text = _gather_text(dict(dn, slice_sizes=sizes)).split(", slice_sizes")[0] + ", indices_are_sorted = false"
            yield _case("dynamic_gather", f"{label}.{name}", [x, _idx(ivalues, itype)], [_idx(sizes, size_type)],
                        ["slice_sizes"], TensorType(out, name), dict(dn), text,
                        "functionally identical to gather, slice_sizes specified dynamically (starts clamped)",
                        as_args)


def _conv_attrs(strides: list[int], lhs_dil: list[int]) -> dict[str, Any]:
    return {"window_strides": strides, "lhs_dilation": lhs_dil, "rhs_dilation": [1, 1], "feature_group_count": 1,
            "batch_group_count": 1, "dimension_numbers": NHWC}


def _conv_text(attrs: dict[str, Any]) -> str:
    return (f"window_strides = {_arr(attrs['window_strides'])}, lhs_dilation = {_arr(attrs['lhs_dilation'])}, "
            f"rhs_dilation = {_arr(attrs['rhs_dilation'])}, dimension_numbers = "
            f"{_conv_letters(attrs['dimension_numbers'], 4)}, feature_group_count = 1 : i64, "
            "batch_group_count = 1 : i64, "
            "precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]")


def _small(name: str, shape: Sequence[int], seed: int) -> np.ndarray:
    """Small integers (exact sums and products in every type used here), or booleans."""
    values = (np.arange(int(np.prod(shape))) * 7 + seed) % 5 - (0 if name.startswith("u") or name == "pred" else 2)
    if name == "pred":
        return (values % 2 == 1).reshape(shape)
    if name.startswith(("s", "u")):
        return _idx(values.reshape(shape).tolist(), name)
    if name in ("c64", "c128"):  # small Gaussian integers: exact products and sums
        return (values + 1j * np.roll(values, 1)).reshape(shape).astype(np_dtype(name))
    return values.reshape(shape).astype(np.float64).astype(np_dtype(name))


def _conv() -> Iterator[CaseSpec]:
    spec_lhs = [1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17]
    example = _conv_attrs([4, 4], [2, 2])
    for name, as_args in (("s64", False), ("s32", True)):
        lhs = _idx(np.array(spec_lhs).reshape(1, 4, 4, 1).tolist(), name)
        rhs = _idx(np.ones((3, 3, 1, 1), dtype=np.int64).tolist(), name)
        yield _case("dynamic_conv", f"{'arg_' if as_args else ''}spec_example_padding_1.{name}", [lhs, rhs],
                    [_idx([[1, 1], [1, 1]], "s64")], ["padding"], TensorType((1, 2, 2, 1), name), example,
                    _conv_text(example), "functionally identical to convolution, padding specified dynamically",
                    as_args)
    plain = _conv_attrs([1, 1], [1, 1])
    for name in ("pred", "s8", "u32", "f32", "bf16", "c64"):
        lhs, rhs = _small(name, (1, 3, 3, 2), 1), _small(name, (2, 2, 2, 2), 3)
        yield _case("dynamic_conv", f"padding_1_0_0_2.{name}", [lhs, rhs], [_idx([[1, 0], [0, 2]], "s32")],
                    ["padding"], TensorType((1, 3, 4, 2), name), plain, _conv_text(plain),
                    "functionally identical to convolution, padding specified dynamically", False,
                    reduced_elements=8)


# ------------------------------------------------------------------------------------------- quantization
def _qtype_text(q: dict[str, Any]) -> str:
    storage = MLIR_NAMES[q["storage"]].replace("ui", "u")
    if "storage_min" in q:
        storage += f"<{q['storage_min']}:{q['storage_max']}>"
    expressed = MLIR_NAMES[q["expressed"]]
    pairs = [f"{float(s):e}:{int(z)}" for s, z in zip(q["scales"], q["zero_points"])]
    if q.get("axis") is None:
        return f"!quant.uniform<{storage}:{expressed}, {pairs[0]}>"
    return f"!quant.uniform<{storage}:{expressed}:{q['axis']}, {{{', '.join(pairs)}}}>"


def _qtensor(shape: Sequence[int], q: dict[str, Any]) -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{_qtype_text(q)}>"


def _quantize_program(x: np.ndarray, chain: Sequence[dict[str, Any]]) -> str:
    t = mlir.tensor(type_of(x))
    lines, previous, previous_type = [], "%arg0", t
    for k, q in enumerate(chain):
        qt = _qtensor(x.shape, q)
        lines.append(f'%q{k} = "stablehlo.uniform_quantize"({previous}) : ({previous_type}) -> {qt}')
        previous, previous_type = f"%q{k}", qt
    lines.append(f'%0 = "stablehlo.uniform_dequantize"({previous}) : ({previous_type}) -> {t}')
    return mlir.module([type_of(x)], [type_of(x)], lines, ["%0"])


def _q(scales: list[float], zero_points: list[int], storage: str = "s8", axis: int | None = None,
       expressed: str = "f32", **limits: int) -> dict[str, Any]:
    return dict({"storage": storage, "expressed": expressed, "scales": scales, "zero_points": zero_points,
                 "axis": axis}, **limits)


_QUANTIZE_VALUES = [0.0, -0.0, 0.25, 0.75, -0.25, -0.75, 1.25, 1.0, -1.0, 3.5, 63.5, 64.0, 100.0, -64.0, -65.5,
                    -100.0, 1e30, float("inf"), float("-inf"), 1e-45]

_QUANTIZE = [
    ("per_tensor_i8_0.5_3", [_q([0.5], [3])], None),
    ("narrow_i8_-100_100", [_q([0.5], [3], storage_min=-100, storage_max=100)], None),
    ("u8_0.25_128", [_q([0.25], [128], storage="u8")], None),
    ("per_axis_1_i8", [_q([0.5, 2.0], [3, -1], axis=1)], (10, 2)),
    ("requantize_i8_to_i16", [_q([0.5], [3]), _q([0.125], [-7], storage="s16")], None),
]


def _uniform_quantize() -> Iterator[CaseSpec]:
    for label, chain, shape in _QUANTIZE:
        x = np.array(_QUANTIZE_VALUES, dtype=np.float32)
        if shape is not None:
            x = x.reshape(shape)
        attrs: dict[str, Any] = {"quantized_type": chain[-1]}
        if len(chain) > 1:
            attrs["requantize_from"] = chain[0]
        yield spec_case("uniform_quantize", f"{label}.f32", [x], [type_of(x)], attributes=attrs,
                        program=_quantize_program(x, chain),
                        rule="quantize: clamp(round_nearest_even(x / scale) + zero_point, storage_min, storage_max); "
                             "observed through uniform_dequantize")


def _dequantize_program(storage: np.ndarray, q: dict[str, Any], out: TensorType) -> str:
    qt = _qtensor(storage.shape, q)
    literal = str(storage.astype(object).tolist())
    dense = f"dense<{literal}> : {mlir.tensor(type_of(storage))}"
    lines = [f'%c = "stablehlo.constant"() {{value = {dense}}} : () -> {qt}',
             f'%0 = "stablehlo.uniform_dequantize"(%c) : ({qt}) -> {mlir.tensor(out)}']
    return mlir.module([], [out], lines, ["%0"])


def _uniform_dequantize() -> Iterator[CaseSpec]:
    settings = [("per_tensor_i8_0.5_3", _q([0.5], [3]), [-128, -1, 0, 3, 4, 127], "s8"),
                ("per_axis_0_i8", _q([0.5, 2.0], [3, -1], axis=0), [[-128, 0, 127], [-128, -1, 127]], "s8")]
    for label, q, values, storage_type in settings:
        storage = _idx(values, storage_type)
        out = TensorType(storage.shape, "f32")
        yield spec_case("uniform_dequantize", f"{label}.f32", [], [out],
                        attributes={"quantized_type": q, "storage": storage.astype(object).ravel().tolist()},
                        program=_dequantize_program(storage, q, out),
                        rule="dequantize: (storage - zero_point) converted to the expressed type, times scale")


GENERATORS = (_broadcast, _iota, _pad, _reshape, _gather, _conv, _uniform_quantize, _uniform_dequantize)


def cases() -> Iterator[CaseSpec]:
    for generate in GENERATORS:
        yield from generate()
