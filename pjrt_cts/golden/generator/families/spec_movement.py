"""Spec-reference cases of the data movement ops (pjrt_cts.golden.spec.ops.movement).

Data movement is exact for every element type, so each op is run on one type per class and width family that
implementations store differently (TYPES: i1, sub-byte and 32/64-bit integers, fp4/fp8/bf16/f32, complex) for its
main attribute setting, and on FEW types for the other settings. Operands are filled with the type's edge
values (NaN, ±inf, ±0, subnormals, integer extremes), so a movement that converts or canonicalizes a value
shows. Index operands probe the spec's clamping (dynamic_slice, dynamic_update_slice, gather: negative and too
large starts, signed and unsigned index types) and scatter's per-element skipping of out-of-bounds updates.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

import ml_dtypes
import numpy as np

from pjrt_cts.golden.generator.core import CaseSpec
from pjrt_cts.golden.generator.spec_cases import edges, spec_case, type_of
from pjrt_cts.golden.spec import mlir
from pjrt_cts.golden.spec.numeric import UndefinedResult, round_to, to_f64
from pjrt_cts.golden.spec.registry import TensorType
from pjrt_cts.golden.spec.types import bit_width, class_of, int_range, np_dtype

TYPES = ("pred", "s4", "s32", "u4", "u64", "f4e2m1fn", "f8e4m3fn", "bf16", "f32", "c64")
FEW = ("s8", "u32", "f8e5m2", "c128")
NUMERIC = tuple(t for t in TYPES if t != "pred")
# The rest of the spec's types (2-bit integers, the other narrow floats), on a few ops only.
EXTRA = ("s2", "u2", "s16", "u16", "f6e2m3fn", "f6e3m2fn", "f8e3m4", "f8e4m3", "f8e4m3fnuz", "f8e4m3b11fnuz",
         "f8e5m2fnuz", "f8e8m0fnu", "f16", "f64")


def _fill(name: str, shape: Sequence[int], shift: int = 0) -> np.ndarray:
    """`shape` filled with the type's edge values, cycling, starting at edge `shift`."""
    values = np.roll(edges(name), -shift)
    return np.resize(values, int(np.prod(shape, dtype=np.int64))).reshape(tuple(shape))


def _arr(values: Sequence[int]) -> str:
    return f"array<i64: {', '.join(str(v) for v in values)}>" if len(values) else "array<i64>"


def _dims(values: Sequence[int]) -> str:
    return f"[{', '.join(str(v) for v in values)}]"


def _out(x: np.ndarray) -> list[TensorType]:
    return [type_of(x)]


def _idx(values: Any, name: str) -> np.ndarray:
    return np.array(values, dtype=object).astype(np_dtype(name))


def _broadcast_in_dim() -> Iterator[CaseSpec]:
    settings = [("scalar", (), (2, 3), []), ("dims_1", (3,), (2, 3), [1]),
                ("size1_unsorted_dims_2_0", (1, 3), (3, 2, 4), [2, 0])]
    for i, (label, shape, out, dims) in enumerate(settings):
        for name in TYPES if i == 1 else FEW:
            x = _fill(name, shape, 3)
            yield spec_case("broadcast_in_dim", f"{label}.{name}", [x], [TensorType(out, name)],
                            attributes={"broadcast_dimensions": dims},
                            mlir_attributes=f"broadcast_dimensions = {_arr(dims)}",
                            rule="operand_index[d] = dim(operand, d) = 1 ? 0 : result_index[broadcast_dimensions[d]]")


def _reshape() -> Iterator[CaseSpec]:
    settings = [("2x3x4_to_4x6", (2, 3, 4), (4, 6)), ("6_to_1x2x3x1", (6,), (1, 2, 3, 1)), ("rank0_to_1x1", (), (1, 1))]
    for i, (label, shape, out) in enumerate(settings):
        for name in TYPES if i == 0 else FEW:
            x = _fill(name, shape, 1)
            yield spec_case("reshape", f"{label}.{name}", [x], [TensorType(out, name)],
                            rule="elements keep their position in row-major (lexicographic) index order")


def _transpose() -> Iterator[CaseSpec]:
    settings = [("perm_2_0_1", (2, 3, 4), [2, 0, 1]), ("perm_1_0", (3, 5), [1, 0])]
    for i, (label, shape, perm) in enumerate(settings):
        for name in TYPES if i == 0 else FEW + EXTRA:
            x = _fill(name, shape, 2)
            out = tuple(shape[p] for p in perm)
            yield spec_case("transpose", f"{label}.{name}", [x], [TensorType(out, name)],
                            attributes={"permutation": perm}, mlir_attributes=f"permutation = {_arr(perm)}",
                            rule="result_index[d] = operand_index[permutation[d]]")


def _slice() -> Iterator[CaseSpec]:
    settings = [("strided", (5, 7), [1, 0], [5, 7], [2, 3]), ("unit_strides", (4, 6), [1, 2], [3, 5], [1, 1])]
    for i, (label, shape, start, limit, strides) in enumerate(settings):
        for name in TYPES if i == 0 else FEW:
            x = _fill(name, shape, 4)
            out = tuple(-(-(e - s) // k) for s, e, k in zip(start, limit, strides))
            yield spec_case("slice", f"{label}.{name}", [x], [TensorType(out, name)],
                            attributes={"start_indices": start, "limit_indices": limit, "strides": strides},
                            mlir_attributes=f"start_indices = {_arr(start)}, limit_indices = {_arr(limit)}, "
                                            f"strides = {_arr(strides)}",
                            rule="operand_index = start_indices + result_index * strides")


# (label, index type, start values) for dynamic_slice / dynamic_update_slice on a 5x4 operand with a 2x3 window
_DYNAMIC_STARTS = [("clamped_s64", "s64", [-3, 7]), ("in_range_s32", "s32", [2, 1]),
                   ("clamped_u32", "u32", [4294967295, 0]), ("clamped_s4", "s4", [-8, 7]),
                   ("clamped_u8", "u8", [255, 1])]


def _dynamic_slice() -> Iterator[CaseSpec]:
    for i, (label, index_type, starts) in enumerate(_DYNAMIC_STARTS):
        for name in TYPES if i == 0 else FEW:
            x = _fill(name, (5, 4), 5)
            indices = [_idx(s, index_type) for s in starts]
            yield spec_case("dynamic_slice", f"{label}.{name}", [x, *indices], [TensorType((2, 3), name)],
                            attributes={"slice_sizes": [2, 3]}, mlir_attributes=f"slice_sizes = {_arr([2, 3])}",
                            rule="adjusted_start_indices = clamp(0, start_indices, shape(operand) - slice_sizes)",
                            zero_inputs_ok=(1, 2))


def _dynamic_update_slice() -> Iterator[CaseSpec]:
    for i, (label, index_type, starts) in enumerate(_DYNAMIC_STARTS):
        for name in TYPES if i == 0 else FEW:
            x = _fill(name, (5, 4), 0)
            update = _fill(name, (2, 3), 7)
            indices = [_idx(s, index_type) for s in starts]
            yield spec_case("dynamic_update_slice", f"{label}.{name}", [x, update, *indices], _out(x),
                            rule="adjusted_start_indices = clamp(0, start_indices, shape(operand) - shape(update))",
                            zero_inputs_ok=(2, 3))


def _concatenate() -> Iterator[CaseSpec]:
    for name in TYPES:
        parts = [_fill(name, (2, 3), 0), _fill(name, (1, 3), 6)]
        yield spec_case("concatenate", f"dim_0.{name}", parts, [TensorType((3, 3), name)],
                        attributes={"dimension": 0}, mlir_attributes="dimension = 0 : i64",
                        rule="inputs joined along dimension in order")
    for name in FEW:
        parts = [_fill(name, (2, 1), 0), _fill(name, (2, 2), 3), _fill(name, (2, 3), 5)]
        yield spec_case("concatenate", f"dim_1_three.{name}", parts, [TensorType((2, 6), name)],
                        attributes={"dimension": 1}, mlir_attributes="dimension = 1 : i64",
                        rule="inputs joined along dimension in order")


def _pad_value(name: str) -> np.ndarray:
    """A padding value that stands out: NaN where the float type has one, else the last edge value."""
    values = edges(name)
    if class_of(name) == "float" and np.isnan(to_f64(values)).any():
        return values[np.isnan(to_f64(values))][0].reshape(())
    return values[-1].reshape(())


_PAD = [("edge", [1, 2], [2, 0], [0, 0]), ("interior", [0, 1], [1, 0], [1, 2]),
        ("negative_edge_interior", [-1, 1], [0, -2], [1, 1]), ("negative_low_high", [-2, -1], [-1, 0], [2, 0])]


def _pad() -> Iterator[CaseSpec]:
    for i, (label, low, high, interior) in enumerate(_PAD):
        for name in TYPES if i == 2 else FEW:
            x = _fill(name, (2, 3), 2)
            out = tuple(d + max(d - 1, 0) * n + lo + hi for d, lo, hi, n in zip(x.shape, low, high, interior))
            attrs = {"edge_padding_low": low, "edge_padding_high": high, "interior_padding": interior}
            text = ", ".join(f"{k} = {_arr(v)}" for k, v in attrs.items())
            yield spec_case("pad", f"{label}.{name}", [x, _pad_value(name)], [TensorType(out, name)],
                            attributes=attrs, mlir_attributes=text,
                            rule="result_index = edge_padding_low + operand_index * (interior_padding + 1), else "
                                 "padding_value; negative edge padding removes elements")


def _reverse() -> Iterator[CaseSpec]:
    settings = [("dims_0_1", (3, 4), [0, 1]), ("dims_1", (3, 4), [1]), ("dims_0_2", (2, 3, 2), [0, 2])]
    for i, (label, shape, dims) in enumerate(settings):
        for name in TYPES if i == 0 else FEW:
            x = _fill(name, shape, 1)
            yield spec_case("reverse", f"{label}.{name}", [x], _out(x), attributes={"dimensions": dims},
                            mlir_attributes=f"dimensions = {_arr(dims)}",
                            rule="operand_index[d] = dim(result, d) - result_index[d] - 1 for d in dimensions")


def _iota() -> Iterator[CaseSpec]:
    for dim, names, shape in ((0, NUMERIC, (3, 4)), (1, FEW, (2, 5)), (0, ("u8", "f8e4m3fn", "bf16"), (16,))):
        for name in names:
            label = f"dim_{dim}" if len(shape) > 1 else "dim_0_16"
            yield spec_case("iota", f"{label}.{name}", [], [TensorType(shape, name)],
                            attributes={"iota_dimension": dim}, mlir_attributes=f"iota_dimension = {dim} : i64",
                            rule="result[output_index] = constant(output_index[iota_dimension], element_type)")


def _get_dimension_size() -> Iterator[CaseSpec]:
    for dim, names in ((1, TYPES), (0, FEW[:1])):
        for name in names:
            x = _fill(name, (2, 3), 0)
            yield spec_case("get_dimension_size", f"dim_{dim}.{name}", [x], [TensorType((), "s32")],
                            attributes={"dimension": dim}, mlir_attributes=f"dimension = {dim} : i64",
                            rule="result is dim(operand, dimension) as si32")


def _float_hex(value: np.ndarray, name: str) -> str:
    width = bit_width(name)
    storage = np.uint8 if width <= 8 else {16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
    bits = int(np.asarray(value).reshape(1).view(storage)[0])
    return f"0x{bits:0{max(1, -(-width // 4))}X}"


def _literal(value: np.ndarray, name: str, style: str) -> str:
    """The element literal of `value` (hex bit pattern or decimal for floats)."""
    cls = class_of(name)
    if cls == "bool":
        return "true" if bool(value) else "false"
    if cls in ("signed", "unsigned"):
        return str(int(np.asarray(value).astype(object).item()))
    if cls == "complex":
        part = "f32" if name == "c64" else "f64"
        c = complex(value)
        parts = [np.array(c.real, dtype=np_dtype(part)), np.array(c.imag, dtype=np_dtype(part))]
        return f"({_literal(parts[0], part, style)}, {_literal(parts[1], part, style)})"
    if style == "hex":
        return _float_hex(value, name)
    text = repr(float(np.asarray(value).astype(np.float64)))
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:  # MLIR's float literal needs a point: 5e-324 -> 5.0e-324
        mantissa += ".0"
    return mantissa + (f"e{exponent}" if exponent else "")


def _constant() -> Iterator[CaseSpec]:
    for name in TYPES + FEW + EXTRA:
        values = edges(name)
        styles = ["hex", "decimal"] if class_of(name) in ("float", "complex") else ["decimal"]
        for style in styles:
            if style == "decimal" and class_of(name) in ("float", "complex"):
                finite = np.isfinite(values.astype(np.complex128 if class_of(name) == "complex" else np.float64))
                data = values[finite]
            else:
                data = values
            literals = [_literal(v, name, style) for v in data]
            result = TensorType((len(literals),), name)
            text = f"value = dense<[{', '.join(literals)}]> : {mlir.tensor(result)}"
            yield spec_case("constant", f"{style}.{name}", [], [result], attributes={"value": literals},
                            mlir_attributes=text, rule="output = value (hex float literals are bit patterns)")


def _optimization_barrier() -> Iterator[CaseSpec]:
    for name in TYPES:
        x, y = _fill(name, (2, 3), 0), _fill(name, (), 4)
        yield spec_case("optimization_barrier", f"two_operands.{name}", [x, y], [type_of(x), type_of(y)],
                        rule="the operation is an identity, i.e. result = operand")


def _tuple_program(operands: Sequence[TensorType], taken: Sequence[int]) -> str:
    """@main builds a tuple of its arguments and returns the elements `taken` (get_tuple_element)."""
    args = [f"%arg{i}" for i in range(len(operands))]
    tuple_type = f"tuple<{', '.join(mlir.tensor(t) for t in operands)}>"
    ins = ", ".join(mlir.tensor(t) for t in operands)
    lines = [f'%t = "stablehlo.tuple"({", ".join(args)}) : ({ins}) -> {tuple_type}']
    for k, i in enumerate(taken):
        lines.append(f'%e{k} = "stablehlo.get_tuple_element"(%t) {{index = {i} : i32}} : ({tuple_type}) -> '
                     f'{mlir.tensor(operands[i])}')
    return mlir.module(operands, [operands[i] for i in taken], lines, [f"%e{k}" for k in range(len(taken))])


def _tuples() -> Iterator[CaseSpec]:
    for name in TYPES:
        parts = [_fill(name, (2, 3), 0), _fill(name, (3,), 5)]
        types = [type_of(p) for p in parts]
        yield spec_case("tuple", f"two_elements.{name}", parts, types, program=_tuple_program(types, [0, 1]),
                        rule="result = (val0, ..., valN-1); get_tuple_element takes each back")
    mixed = [_fill("pred", (2,), 1), _fill("s4", (3,), 0), _fill("f8e4m3fn", (2, 2), 0)]
    types = [type_of(p) for p in mixed]
    yield spec_case("get_tuple_element", "index_2.pred_s4_f8e4m3fn", mixed, [types[2]],
                    attributes={"index": 2}, program=_tuple_program(types, [2]),
                    rule="result = operand[index]")
    mixed = [_fill("u32", (3,), 2), _fill("c64", (2, 2), 1)]
    types = [type_of(p) for p in mixed]
    for index in (0, 1):
        yield spec_case("get_tuple_element", f"index_{index}.u32_c64", mixed, [types[index]],
                        attributes={"index": index}, program=_tuple_program(types, [index]),
                        rule="result = operand[index]")


_GATHER_RULE = ("full_start_index[d_operand] = clamp(start_index[d_start], 0, dim(operand, d_operand) - "
                "slice_sizes[d_operand])")


def _dimension_numbers(dn: dict[str, Any], keys: Sequence[str]) -> str:
    """The fields of a #stablehlo.gather / #stablehlo.scatter attribute: the non-empty lists of `keys`, then
    index_vector_dim."""
    fields = [f"{k} = {_dims(dn[k])}" for k in keys if dn.get(k)]
    return ", ".join(fields + [f"index_vector_dim = {dn['index_vector_dim']}"])


def _gather_text(dn: dict[str, Any]) -> str:
    keys = ("offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims",
            "start_index_map")
    return (f"dimension_numbers = #stablehlo.gather<{_dimension_numbers(dn, keys)}>, "
            f"slice_sizes = {_arr(dn['slice_sizes'])}, indices_are_sorted = false")


# (label, operand shape, (index type, index values), dimension numbers, result shape)
_GATHER = [
    ("rows_clamped_s32", (5, 4), ("s32", [[-2], [1], [9], [4]]),
     {"offset_dims": [1], "collapsed_slice_dims": [0], "start_index_map": [0], "index_vector_dim": 1,
      "slice_sizes": [1, 4]}, (4, 4)),
    ("windows_swapped_map_u8", (5, 4), ("u8", [[[0, 0], [255, 1]], [[2, 3], [1, 200]]]),
     {"offset_dims": [2, 3], "start_index_map": [1, 0], "index_vector_dim": 2, "slice_sizes": [2, 3]},
     (2, 2, 2, 3)),
    ("implicit_index_vector_s8", (5, 4), ("s8", [-1, 3, 100, -128]),
     {"offset_dims": [1], "collapsed_slice_dims": [1], "start_index_map": [1], "index_vector_dim": 1,
      "slice_sizes": [5, 1]}, (4, 5)),
    ("batching_dims_s64", (2, 5, 3), ("s64", [[[4], [-1], [7]], [[0], [2], [3]]]),
     {"offset_dims": [2], "collapsed_slice_dims": [1], "operand_batching_dims": [0],
      "start_indices_batching_dims": [0], "start_index_map": [1], "index_vector_dim": 2, "slice_sizes": [1, 1, 3]},
     (2, 3, 3)),
]


def _gather() -> Iterator[CaseSpec]:
    for i, (label, shape, (index_type, index_values), dn, out) in enumerate(_GATHER):
        for name in TYPES if i == 0 else FEW:
            x = _fill(name, shape, 1)
            yield spec_case("gather", f"{label}.{name}", [x, _idx(index_values, index_type)],
                            [TensorType(out, name)], attributes=dict(dn), mlir_attributes=_gather_text(dn),
                            rule=_GATHER_RULE)


def _scatter_text(dn: dict[str, Any]) -> str:
    keys = ("update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims",
            "scatter_dims_to_operand_dims")
    return (f"scatter_dimension_numbers = #stablehlo.scatter<{_dimension_numbers(dn, keys)}>, "
            f"indices_are_sorted = false, unique_indices = false")


def _scatter_region(name: str, kind: str) -> str:
    if kind == "add":
        return mlir.binary_region(name, "add")
    scalar = TensorType((), name)
    return mlir.region([scalar, scalar], [], ["%ra1"], [scalar])


_ROWS = {"update_window_dims": [1], "inserted_window_dims": [0], "scatter_dims_to_operand_dims": [0],
         "index_vector_dim": 1}
_BATCHING = {"update_window_dims": [2], "inserted_window_dims": [1], "input_batching_dims": [0],
             "scatter_indices_batching_dims": [0], "scatter_dims_to_operand_dims": [1], "index_vector_dim": 2}
_WINDOWS = {"update_window_dims": [1, 2], "scatter_dims_to_operand_dims": [0, 1], "index_vector_dim": 1}


def _subnormal(values: np.ndarray, name: str) -> bool:
    magnitude = np.abs(np.asarray(values, dtype=np.float64))
    return bool(np.any((magnitude > 0) & (magnitude < float(ml_dtypes.finfo(np_dtype(name)).tiny))))


def _sum_defined(a: np.ndarray, b: np.ndarray, name: str) -> bool:
    try:
        with np.errstate(all="ignore"):
            round_to(to_f64(a) + to_f64(b), name)
        return True
    except UndefinedResult:
        return False


def _no_overflow_updates(x: np.ndarray, rows: Sequence[int], updates: np.ndarray, name: str) -> np.ndarray:
    """Integer `updates` with the largest ones set to 0 until no target's sums, in any order, leave the type
    (spec ## Errors: an integer overflow is implementation-defined)."""
    lo, hi = int_range(name)
    updates = updates.copy()
    for target_row in set(rows):
        ks = [k for k, r in enumerate(rows) if r == target_row]
        for j in range(updates.shape[1]):
            while True:
                terms = [int(x[target_row, j])] + [int(updates[k, j]) for k in ks]
                if sum(t for t in terms if t > 0) <= hi and sum(t for t in terms if t < 0) >= lo:
                    break
                k = max(ks, key=lambda k: abs(int(updates[k, j])))
                updates[k, j] = np.zeros((), dtype=updates.dtype)
    return updates


def _defined_add_updates(x: np.ndarray, rows: Sequence[int], updates: np.ndarray, name: str) -> np.ndarray:
    """`updates` (rows of x, one per index) with each element whose add with its target the spec leaves
    undefined (overflow of a type without infinity) set to 0, and each one where a subnormal takes part set to 1
    (or 0): subnormal addition is the add op's own edge (spec_elementwise), kept out of scatter's cases."""
    if class_of(name) in ("signed", "unsigned"):
        return _no_overflow_updates(x, rows, updates, name)
    if class_of(name) != "float":
        return updates
    updates = updates.copy()
    one, zero = np.ones((), dtype=updates.dtype), np.zeros((), dtype=updates.dtype)
    for (k, j), u in np.ndenumerate(updates):
        target = x[rows[k], j]
        with np.errstate(all="ignore"):
            exact = to_f64(target) + to_f64(u)
        if _subnormal(np.array([to_f64(target), to_f64(u), exact]), name):
            updates[k, j] = one if _sum_defined(target, one, name) else zero
        elif not _sum_defined(target, u, name):
            updates[k, j] = zero
    return updates


def _scatter_case(label: str, name: str, x: np.ndarray, indices: np.ndarray, updates: np.ndarray,
                  dn: dict[str, Any], kind: str, rule: str) -> CaseSpec:
    attrs = dict(dn, update_computation=kind)
    return spec_case("scatter", f"{label}.{name}", [x, indices, updates], _out(x), attributes=attrs,
                     mlir_attributes=_scatter_text(dn), regions=[_scatter_region(name, kind)], rule=rule)


def _scatter() -> Iterator[CaseSpec]:
    for name in TYPES:
        x = _fill(name, (5, 4), 0)
        order_free = class_of(name) in ("bool", "signed", "unsigned")
        rows = [1, 3, 1] if order_free else [1, 3, 0]  # a row updated twice only where add is order-independent
        updates = _defined_add_updates(x, rows, _fill(name, (3, 4), 5), name)
        label = "add_rows_repeated_index" if order_free else "add_rows"
        yield _scatter_case(label, name, x, _idx([[r] for r in rows], "s32"), updates, _ROWS, "add",
                            "results[result_index] = update_computation(results[result_index], updates[update_index])")
    oob_rule = ("if result_index is out of bounds for shape(results...), updated_results = results (start indices "
                "are not clamped)")
    for name in FEW:
        x = _fill(name, (5, 4), 0)
        yield _scatter_case("replace_rows_out_of_bounds_s64", name, x, _idx([[-1], [4], [2], [5]], "s64"),
                            _fill(name, (4, 4), 3), _ROWS, "replace", oob_rule)
        yield _scatter_case("replace_rows_out_of_bounds_u32", name, x, _idx([[4294967295], [0], [3]], "u32"),
                            _fill(name, (3, 4), 6), _ROWS, "replace", oob_rule)
        yield _scatter_case("replace_batching_dims", name, _fill(name, (2, 5, 3), 1),
                            _idx([[[4], [-1]], [[0], [2]]], "s32"), _fill(name, (2, 2, 3), 4), _BATCHING, "replace",
                            oob_rule + "; full_batching_index from the update's scatter index")
        yield _scatter_case("replace_window_partly_out_of_bounds", name, x,
                            _idx([[4, 1], [1, 2], [-1, 0]], "s32"), _fill(name, (3, 2, 3), 2), _WINDOWS, "replace",
                            oob_rule + "; each update element is skipped or applied on its own")


def _variadic_region(names: Sequence[str]) -> str:
    """(current0, current1, update0, update1) -> (add(current0, update0), add(current1, update1))."""
    scalars = [TensorType((), n) for n in names]
    lines = [mlir.generic_op("add", [f"%ra{k}", f"%ra{k + len(names)}"], [t, t], [t], results=f"%s{k}")
             for k, t in enumerate(scalars)]
    return mlir.region(scalars + scalars, lines, [f"%s{k}" for k in range(len(names))], scalars)


def _scatter_variadic() -> Iterator[CaseSpec]:
    """Two inputs of different element types updated together by one region (unique indices)."""
    for names in (("s8", "bf16"), ("pred", "c64")):
        inputs = [_fill(n, (5, 4), 0) for n in names]
        rows = [4, 0, 2]
        updates = [_defined_add_updates(x, rows, _fill(n, (3, 4), 5), n) for x, n in zip(inputs, names)]
        indices = _idx([[r] for r in rows], "u8")
        types = [type_of(x) for x in inputs]
        program = mlir.single_op_module("scatter", types + [type_of(indices)] + [type_of(u) for u in updates], types,
                                        _scatter_text(_ROWS), [_variadic_region(names)])
        yield spec_case("scatter", f"variadic_add.{'_'.join(names)}", [*inputs, indices, *updates], types,
                        attributes=dict(_ROWS, update_computation="add"), program=program,
                        rule="updated_values = update_computation(results...[result_index], updates...[update_index])")


GENERATORS: tuple[Callable[[], Iterator[CaseSpec]], ...] = (
    _broadcast_in_dim, _reshape, _transpose, _slice, _dynamic_slice, _dynamic_update_slice, _concatenate, _pad,
    _reverse, _iota, _get_dimension_size, _constant, _optimization_barrier, _tuples, _gather, _scatter,
    _scatter_variadic)


def cases() -> Iterator[CaseSpec]:
    for generate in GENERATORS:
        yield from generate()

