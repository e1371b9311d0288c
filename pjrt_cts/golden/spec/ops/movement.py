"""Data movement ops (spec sections named in each registration): exact for every element type.

Every op here copies operand elements (or attribute constants) to result positions; no arithmetic is done on the
values, so results are bit-exact for every element type class, including the narrow floats (f4/f6/f8E3M4/
f8E4M3/f8E8M0FNU, which newer spec versions add to the floating-point class with their own encodings) and i1.
The only arithmetic is in index computation (Python ints, no overflow) and in scatter's `update_computation`,
which is evaluated with the spec reference's own definition of the region's op (`registry.evaluate`).

Exclusions (UndefinedResult, the case generator must not produce these inputs):
* scatter: a result element updated more than once where the update computation is not order-independent
  (replace; float/complex add): "`schedule` is an implementation-defined permutation of `index_space(updates[0])`".
  Integer add (wrapping) and i1 add (OR) are commutative and associative, so any schedule gives the same value.
* iota / constant: an index or decimal literal that the element type does not hold exactly (the spec's
  `constant(value, element_type)` does not say how such values round).
* constant: an integer literal out of the type's range.

Attributes are JSON values named as in the spec (lists of ints for `array<i64: ...>` attributes).
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from pjrt_cts.golden.spec import registry
from pjrt_cts.golden.spec.numeric import UndefinedResult, round_to
from pjrt_cts.golden.spec.registry import TensorType, spec_op
from pjrt_cts.golden.spec.types import bit_width, class_of, int_range, np_dtype

ALL = ("bool", "signed", "unsigned", "float", "complex")
Arrays = list[np.ndarray]


def _ints(values: Any) -> list[int]:
    return [int(v) for v in values]


def _index(value: np.ndarray) -> int:
    """A 0-d index tensor's value (signed or unsigned, sub-byte included) as a Python int."""
    return int(np.asarray(value).astype(object).item())


@spec_op("broadcast_in_dim", classes=ALL)
def broadcast_in_dim(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                     results: Sequence[TensorType]) -> Arrays:
    """spec #broadcast_in_dim: `result[result_index] = operand[operand_index]` where `operand_index[d] = 1 if
    dim(operand, d) = 1 else result_index[broadcast_dimensions[d]]` (dims may be in any order: unique only)."""
    (operand,) = operands
    dims = _ints(attributes["broadcast_dimensions"])
    shape = results[0].shape
    order = sorted(range(len(dims)), key=lambda d: dims[d])
    moved = np.transpose(operand, order) if order else operand
    expanded = [1] * len(shape)
    for d in order:
        expanded[dims[d]] = operand.shape[d]
    return [np.broadcast_to(moved.reshape(expanded), shape).copy()]


@spec_op("reshape", classes=ALL)
def reshape(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Arrays:
    """spec #reshape: the element at position i of `operand` in lexicographic (row-major) index order is the
    element at position i of `result`."""
    return [np.reshape(operands[0], results[0].shape, order="C").copy()]


@spec_op("transpose", classes=ALL)
def transpose(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
              results: Sequence[TensorType]) -> Arrays:
    """spec #transpose: `result[result_index] = operand[operand_index]` where
    `result_index[d] = operand_index[permutation[d]]`."""
    return [np.transpose(operands[0], _ints(attributes["permutation"])).copy()]


@spec_op("slice", classes=ALL)
def slice_(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Arrays:
    """spec #slice: `result[result_index] = operand[operand_index]` where
    `operand_index = start_indices + result_index * strides`."""
    starts, limits, strides = (_ints(attributes[k]) for k in ("start_indices", "limit_indices", "strides"))
    return [operands[0][tuple(slice(s, e, k) for s, e, k in zip(starts, limits, strides))].copy()]


def _clamped_starts(indices: Sequence[np.ndarray], shape: Sequence[int], sizes: Sequence[int]) -> list[int]:
    """`clamp(0, start_indices, shape(operand) - sizes)`, the indices read as the integers they hold."""
    return [min(max(_index(i), 0), d - s) for i, d, s in zip(indices, shape, sizes)]


@spec_op("dynamic_slice", classes=ALL)
def dynamic_slice(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                  results: Sequence[TensorType]) -> Arrays:
    """spec #dynamic_slice: `result[i] = operand[adjusted_start_indices + i]` where
    `adjusted_start_indices = clamp(0, start_indices, shape(operand) - slice_sizes)`."""
    operand, *indices = operands
    sizes = _ints(attributes["slice_sizes"])
    starts = _clamped_starts(indices, operand.shape, sizes)
    return [operand[tuple(slice(s, s + n) for s, n in zip(starts, sizes))].copy()]


@spec_op("dynamic_update_slice", classes=ALL)
def dynamic_update_slice(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                         results: Sequence[TensorType]) -> Arrays:
    """spec #dynamic_update_slice: `result` is `operand` except `result[adjusted_start_indices + j] = update[j]`
    where `adjusted_start_indices = clamp(0, start_indices, shape(operand) - shape(update))`."""
    operand, update, *indices = operands
    starts = _clamped_starts(indices, operand.shape, update.shape)
    result = operand.copy()
    result[tuple(slice(s, s + n) for s, n in zip(starts, update.shape))] = update
    return [result]


@spec_op("concatenate", classes=ALL)
def concatenate(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                results: Sequence[TensorType]) -> Arrays:
    """spec #concatenate: the inputs joined along `dimension` in the order given."""
    return [np.concatenate(list(operands), axis=int(attributes["dimension"]))]


@spec_op("pad", classes=ALL)
def pad(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Arrays:
    """spec #pad: `result[result_index] = operand[operand_index]` if
    `result_index = edge_padding_low + operand_index * (interior_padding + 1)`, else `padding_value`. Negative
    edge padding removes elements (of the interior-padded operand)."""
    operand, value = operands
    low = _ints(attributes["edge_padding_low"])
    interior = _ints(attributes["interior_padding"])
    shape = results[0].shape
    result = np.full(shape, value, dtype=operand.dtype)
    sources, targets = [], []
    for d, size in enumerate(operand.shape):
        positions = low[d] + np.arange(size) * (interior[d] + 1)
        kept = (positions >= 0) & (positions < shape[d])
        sources.append(np.flatnonzero(kept))
        targets.append(positions[kept])
    if all(len(t) for t in targets):
        result[np.ix_(*targets)] = operand[np.ix_(*sources)]
    return [result]


@spec_op("reverse", classes=ALL)
def reverse(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Arrays:
    """spec #reverse: `result[result_index] = operand[operand_index]` where `operand_index[d] =
    dim(result, d) - result_index[d] - 1` for d in `dimensions`, `result_index[d]` otherwise."""
    dims = tuple(_ints(attributes["dimensions"]))
    return [np.flip(operands[0], axis=dims).copy() if dims else operands[0].copy()]


def _exact_value(value: float | int, name: str) -> np.ndarray:
    """`value` in element type `name`, which must hold it exactly (else the spec gives no rounding rule)."""
    cls = class_of(name)
    if cls in ("signed", "unsigned"):
        lo, hi = int_range(name)
        if not lo <= int(value) <= hi:
            raise UndefinedResult(f"{value} is out of the range of {name}")
        return np.array(int(value), dtype=object).astype(np_dtype(name))
    if cls == "complex":
        return np.array(complex(value), dtype=np_dtype(name))
    rounded = round_to(float(value), name)
    if float(rounded.astype(np.float64)) != float(value):
        raise UndefinedResult(f"{value} is not a value of {name}")
    return rounded


@spec_op("iota", classes=("signed", "unsigned", "float", "complex"))
def iota(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Arrays:
    """spec #iota: `result[output_index] = constant(output_index[iota_dimension], element_type(output))`:
    integers, floats, complex (imaginary part 0). Indices the type cannot hold exactly are excluded."""
    shape, name = results[0].shape, results[0].dtype
    dim = int(attributes["iota_dimension"])
    values = [_exact_value(i, name) for i in range(shape[dim])]
    line = np.stack(values) if values else np.empty((0,), dtype=np_dtype(name))
    expanded = [1] * len(shape)
    expanded[dim] = shape[dim]
    return [np.broadcast_to(line.reshape(expanded), shape).copy()]


@spec_op("get_dimension_size", classes=ALL)
def get_dimension_size(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                       results: Sequence[TensorType]) -> Arrays:
    """spec #get_dimension_size: the size of `dimension` of `operand` as a 0-d si32 tensor."""
    return [np.array(operands[0].shape[int(attributes["dimension"])], dtype=np.int32)]


def parse_literal(text: str, name: str) -> np.ndarray:
    """One element literal of the spec's constant syntax as a 0-d array of element type `name`.

    Booleans `true`/`false`; integers in decimal (or 0x hex); floats in decimal (exact values only) or as a
    hexadecimal bit pattern (`0x7FC00000`: "the bits of the value"); complex `(real, imag)` of float literals."""
    text = text.strip()
    cls = class_of(name)
    if cls == "bool":
        if text not in ("true", "false"):
            raise ValueError(f"{text!r} is not a boolean literal")
        return np.array(text == "true")
    if cls in ("signed", "unsigned"):
        return _exact_value(int(text, 0), name)
    if cls == "complex":
        real, imag = text.strip("()").split(",")
        part = "f32" if name == "c64" else "f64"
        return np.array(complex(float(parse_literal(real, part)), float(parse_literal(imag, part))),
                        dtype=np_dtype(name))
    if text.lower().startswith("0x"):
        bits = int(text, 16)
        width = bit_width(name)
        if bits >= 2 ** width:
            raise ValueError(f"{text} has more than {width} bits for {name}")
        storage = np.uint8 if width <= 8 else {16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
        return np.array([bits], dtype=storage).view(np_dtype(name)).reshape(())
    return _exact_value(float(text), name)


@spec_op("constant", classes=ALL)
def constant(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Arrays:
    """spec #constant: `output = value`. `attributes["value"]`: the element literals in row-major order, as
    written in the program (see `parse_literal`)."""
    shape, name = results[0].shape, results[0].dtype
    elements = [parse_literal(t, name) for t in attributes["value"]]
    flat = np.stack(elements) if elements else np.empty((0,), dtype=np_dtype(name))
    return [flat.reshape(shape)]


@spec_op("optimization_barrier", classes=ALL)
def optimization_barrier(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                         results: Sequence[TensorType]) -> Arrays:
    """spec #optimization_barrier: "the operation is an identity, i.e. `result` = `operand`"."""
    return [np.array(o, copy=True) for o in operands]


@spec_op("tuple", classes=ALL)
def tuple_(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Arrays:
    """spec #tuple: `result = (val0, ..., valN-1)`; the case's program takes every element back out with
    get_tuple_element, so the results are the tuple's elements in order."""
    return [np.array(o, copy=True) for o in operands]


@spec_op("get_tuple_element", classes=ALL)
def get_tuple_element(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                      results: Sequence[TensorType]) -> Arrays:
    """spec #get_tuple_element: `result = operand[index]`; the operands here are the tuple's elements (the
    program builds the tuple from its arguments)."""
    return [np.array(operands[int(attributes["index"])], copy=True)]


def _start_index(indices: np.ndarray, batch_index: Sequence[int], index_vector_dim: int) -> list[int]:
    """`indices[bi0, ..., :, ..., biN]` (`:` at `index_vector_dim`) or `[indices[batch_index]]` when
    `index_vector_dim` is `rank(indices)`, as Python ints."""
    if index_vector_dim < indices.ndim:
        where: list[Any] = list(batch_index)
        where.insert(index_vector_dim, slice(None))
        return [_index(v) for v in indices[tuple(where)]]
    return [_index(indices[tuple(batch_index)])]


def _batching_index(rank: int, batch_index: Sequence[int], operand_dims: Sequence[int],
                    index_dims: Sequence[int], index_vector_dim: int) -> list[int]:
    """`full_batching_index`: batch_index[d_start - (d_start < index_vector_dim ? 0 : 1)] at each operand
    batching dim."""
    full = [0] * rank
    for d_operand, d_start in zip(operand_dims, index_dims):
        full[d_operand] = batch_index[d_start - (0 if d_start < index_vector_dim else 1)]
    return full


def _window_index(rank: int, window: Sequence[int], skipped: set[int]) -> list[int]:
    """`[wi0, ..., 0, ..., wiN]`: `window` with 0 inserted at the `skipped` dims."""
    values = iter(window)
    return [0 if d in skipped else next(values) for d in range(rank)]


@spec_op("gather", classes=ALL)
def gather(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Arrays:
    """spec #gather: `result[result_index] = operand[full_start_index + full_batching_index +
    full_offset_index]` where `full_start_index[d_operand] = clamp(start_index[d_start], 0, dim(operand,
    d_operand) - slice_sizes[d_operand])` for `d_operand = start_index_map[d_start]`, else 0 (the clamp is in
    the spec since the batching-dims revision; earlier versions left out-of-bounds implementation-defined)."""
    operand, indices = operands
    offset_dims = _ints(attributes["offset_dims"])
    collapsed = _ints(attributes.get("collapsed_slice_dims", []))
    operand_batching = _ints(attributes.get("operand_batching_dims", []))
    indices_batching = _ints(attributes.get("start_indices_batching_dims", []))
    start_index_map = _ints(attributes["start_index_map"])
    ivd = int(attributes["index_vector_dim"])
    sizes = _ints(attributes["slice_sizes"])
    shape = results[0].shape
    batch_dims = [d for d in range(len(shape)) if d not in offset_dims]
    result = np.empty(shape, dtype=operand.dtype)
    for result_index in np.ndindex(*shape):
        batch_index = [result_index[d] for d in batch_dims]
        start = _start_index(indices, batch_index, ivd)
        full_start = [0] * operand.ndim
        for d_start, d_operand in enumerate(start_index_map):
            full_start[d_operand] = min(max(start[d_start], 0), operand.shape[d_operand] - sizes[d_operand])
        full_batching = _batching_index(operand.ndim, batch_index, operand_batching, indices_batching, ivd)
        full_offset = _window_index(operand.ndim, [result_index[d] for d in offset_dims],
                                    set(collapsed) | set(operand_batching))
        operand_index = tuple(a + b + c for a, b, c in zip(full_start, full_batching, full_offset))
        result[result_index] = operand[operand_index]
    return [result]


def _update_computation(kind: str, dtypes: Sequence[str]) -> Callable[[Arrays, Arrays], Arrays]:
    """The scatter region: `add` (the spec's add of each pair, evaluated by the spec reference) or `replace`
    (returns the updates)."""
    if kind == "replace":
        return lambda current, updates: list(updates)
    if kind != "add":
        raise ValueError(f"unknown update computation {kind!r}")

    def add(current: Arrays, updates: Arrays) -> Arrays:
        return [registry.evaluate("add", [c, u], {}, [TensorType((), t)])[0]
                for c, u, t in zip(current, updates, dtypes)]

    return add


def _order_independent(kind: str, dtypes: Sequence[str]) -> bool:
    """Integer and i1 add give the same value for every schedule (wrapping add is commutative and associative)."""
    return kind == "add" and all(class_of(t) in ("bool", "signed", "unsigned") for t in dtypes)


@spec_op("scatter", classes=ALL)
def scatter(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Arrays:
    """spec #scatter: for each `update_index` (in an implementation-defined schedule), `result_index =
    full_start_index + full_batching_index + full_window_index` (start indices NOT clamped); if it is in
    bounds, `results...[result_index] = update_computation(results...[result_index], updates...[update_index])`,
    otherwise `updated_results = results` (that update element is skipped). Attribute `update_computation`
    names the region: "add" or "replace"."""
    n = len(results)
    inputs, indices, updates = operands[:n], operands[n], operands[n + 1:]
    window_dims = _ints(attributes["update_window_dims"])
    inserted = _ints(attributes.get("inserted_window_dims", []))
    input_batching = _ints(attributes.get("input_batching_dims", []))
    indices_batching = _ints(attributes.get("scatter_indices_batching_dims", []))
    to_operand = _ints(attributes["scatter_dims_to_operand_dims"])
    ivd = int(attributes["index_vector_dim"])
    dtypes = [r.dtype for r in results]
    kind = str(attributes["update_computation"])
    compute = _update_computation(kind, dtypes)
    out = [np.array(x, copy=True) for x in inputs]
    shape = out[0].shape
    scatter_dims = [d for d in range(updates[0].ndim) if d not in window_dims]
    written: set[tuple[int, ...]] = set()
    for update_index in np.ndindex(*updates[0].shape):
        scatter_index = [update_index[d] for d in scatter_dims]
        start = _start_index(indices, scatter_index, ivd)
        full_start = [0] * len(shape)
        for d_start, d_input in enumerate(to_operand):
            full_start[d_input] = start[d_start]
        full_batching = _batching_index(len(shape), scatter_index, input_batching, indices_batching, ivd)
        full_window = _window_index(len(shape), [update_index[d] for d in window_dims],
                                    set(inserted) | set(input_batching))
        result_index = tuple(a + b + c for a, b, c in zip(full_start, full_batching, full_window))
        if not all(0 <= i < d for i, d in zip(result_index, shape)):
            continue
        if result_index in written and not _order_independent(kind, dtypes):
            raise UndefinedResult(f"result index {result_index} is updated twice; the order of the updates (the "
                                  f"schedule) is implementation-defined")
        written.add(result_index)
        values = compute([o[result_index] for o in out], [u[update_index] for u in updates])
        for o, v in zip(out, values):
            o[result_index] = v
    return out
