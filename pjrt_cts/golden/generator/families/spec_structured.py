"""Spec-reference cases of the structured ops (pjrt_cts.golden.spec.ops.structured): reduce, reduce_window,
select_and_scatter, sort, dot_general, convolution, fft, map, batch_norm_*, cholesky, triangular_solve.

Float reductions and contractions are order-free by construction where the case can be: every contiguous
run of a reduced slice has an exactly representable sum (small integers, halves), so every schedule the spec
allows gives the stored value; special values (±inf, NaN, -0) sit in slices where the spec still defines one
value. Inputs the spec leaves undefined are filtered out through the reference itself (UndefinedResult).
Not covered: rng_bit_generator (the spec defines no output bits: "not guaranteed to be deterministic between
implementations", algorithms are "implementation-defined variants"), uniform_quantize / uniform_dequantize
(absent from the stored spec), window_reversal (planned for removal, #1181).
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

import numpy as np

from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.spec_cases import edges, pairs, spec_case, type_of
from pjrt_cts.golden.spec import mlir, registry
from pjrt_cts.golden.spec.numeric import UndefinedResult, round_to, to_f64
from pjrt_cts.golden.spec.ops import structured as ref
from pjrt_cts.golden.spec.registry import TensorType
from pjrt_cts.golden.tolerance import EXACT, RULES, Tolerance, tolerance_for
from pjrt_cts.golden.spec.types import REPRESENTATIVES, class_of, int_range, mlir_type, np_dtype

ALL_TYPES = [name for names in REPRESENTATIVES.values() for name in names]
FLOAT_TYPES = list(REPRESENTATIVES["float"])
COMPLEX_TYPES = list(REPRESENTATIVES["complex"])
COMPARE_TYPE = {"bool": "UNSIGNED", "signed": "SIGNED", "unsigned": "UNSIGNED", "float": "FLOAT", "complex": "FLOAT"}


# ------------------------------------------------------------------------------------------------ helpers
def _arr(values: Any, name: str) -> np.ndarray:
    """Exact values (representable in `name`) as an array of that type."""
    if class_of(name) == "bool":
        return np.asarray(values, dtype=np.bool_)
    if class_of(name) in ("signed", "unsigned"):
        return np.asarray(np.asarray(values, dtype=object), dtype=np.int64 if name != "u64" else np.uint64).astype(
            np_dtype(name))
    if class_of(name) == "complex":
        return np.asarray(values, dtype=np_dtype(name))
    return round_to(np.asarray(values, dtype=np.float64), name)


def _defined(op: str, inputs: Sequence[np.ndarray], attributes: dict, results: Sequence[TensorType]) -> bool:
    """The spec defines the results for `inputs` and for |inputs| (the tolerance's scale is computed there)."""
    try:
        with np.errstate(all="ignore"):
            registry.evaluate(op, inputs, attributes, results)
            if any(class_of(type_of(x).dtype) in ("float", "complex") for x in inputs):
                registry.evaluate(op, _magnitudes(inputs), attributes, results)
    except UndefinedResult:
        return False
    return True


def _magnitudes(inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """|x| of float and complex inputs, complex ones kept complex (as the op's operands must be)."""
    return [np.abs(x).astype(x.dtype) if class_of(type_of(x).dtype) in ("float", "complex") else x for x in inputs]


def _complex_tolerance(op: str, inputs: Sequence[np.ndarray], attributes: dict, results: Sequence[TensorType],
                       reduced: int) -> Tolerance | None:
    """The sum_abs_terms tolerance for complex operands, which spec_build's |x| (a real array) cannot give."""
    if not any(class_of(type_of(x).dtype) == "complex" for x in inputs):
        return None
    op_class = registry.lookup(op).op_class
    if RULES[op_class].atol_basis != "sum_abs_terms":
        return None
    with np.errstate(all="ignore"):
        outs = registry.evaluate(op, _magnitudes(inputs), attributes, results)
    finite = [np.abs(o[np.isfinite(o)]).max(initial=0.0) for o in outs if o.dtype.kind in "fc"]
    scale = float(max(finite, default=0.0))
    names = [r.dtype for r in results]
    return max((tolerance_for(n, op_class, reduced, scale) for n in names), key=lambda t: (t.atol, t.rtol))


def _spec_case(op: str, suffix: str, inputs: Sequence[np.ndarray], results: Sequence[TensorType],
               **kwargs: Any) -> CaseSpec:
    """spec_case, with the tolerance computed here for complex operands (see _complex_tolerance)."""
    if kwargs.get("tolerance") is None and "attributes" in kwargs:
        kwargs["tolerance"] = _complex_tolerance(op, inputs, kwargs["attributes"], results,
                                                 int(kwargs.get("reduced_elements", 1)))
    return spec_case(op, suffix, inputs, results, **kwargs)


def _scalar(value: Any, name: str) -> np.ndarray:
    return _arr(np.asarray(value), name).reshape(())


def _small_pool(name: str) -> list[float]:
    """Values whose short sums and products stay exact in `name`."""
    if class_of(name) == "bool":
        return [False, True]
    if class_of(name) in ("signed", "unsigned"):
        lo, hi = int_range(name)
        return [v for v in (-2, -1, 0, 1, 2, 3) if lo <= v <= hi]
    if name in ("f4e2m1fn", "f6e3m2fn", "f6e2m3fn", "f8e8m0fnu"):
        return [0.0, 0.0, 0.5, -0.5, 1.0, -1.0]
    return [0.0, -0.0, 0.5, -1.0, 1.0, 2.0, -2.0, 3.0, 1.5]


def _random_small(name: str, shape: tuple[int, ...], seed: str) -> np.ndarray:
    rng = rng_for(seed)
    if class_of(name) == "complex":
        re = rng.integers(-3, 4, size=shape)
        im = rng.integers(-3, 4, size=shape)
        return (re + 1j * im).astype(np_dtype(name))
    pool = _small_pool(name)
    picks = rng.integers(0, len(pool), size=shape)
    return _arr(np.asarray([pool[i] for i in picks.ravel()], dtype=object).reshape(shape), name)


def _retry(make: Callable[[int], list[np.ndarray]], ok: Callable[[list[np.ndarray]], bool],
           tries: int = 400) -> list[np.ndarray]:
    for attempt in range(tries):
        inputs = make(attempt)
        if ok(inputs):
            return inputs
    raise RuntimeError("no defined inputs found")


def _i64s(values: Sequence[int]) -> str:
    return f"array<i64: {', '.join(str(int(v)) for v in values)}>"


def _padding(padding: Sequence[Sequence[int]]) -> str:
    rows = ", ".join(f"[{lo}, {hi}]" for lo, hi in padding)
    return f"dense<[{rows}]> : tensor<{len(padding)}x2xi64>"


def _compare_region(name: str, direction: str, kind: str, operands: int = 1) -> str:
    scalar = TensorType((), name)
    args = [TensorType((), name)] * 2
    for _ in range(operands - 1):
        args += [TensorType((), "s32")] * 2
    line = mlir.generic_op("compare", ["%ra0", "%ra1"], [scalar, scalar], [TensorType((), "pred")],
                           f"comparison_direction = #stablehlo<comparison_direction {direction}>, "
                           f"compare_type = #stablehlo<comparison_type {kind}>", results="%rr")
    return mlir.region(args, [line], ["%rr"], [TensorType((), "pred")])


# ------------------------------------------------------------------------------------------------- reduce
def _identity(body: str, name: str) -> Any:
    cls = class_of(name)
    if cls == "bool":
        return body in ("multiply", "and", "minimum")
    if cls in ("signed", "unsigned"):
        lo, hi = int_range(name)
        return {"add": 0, "multiply": 1, "maximum": lo, "minimum": hi, "or": 0, "xor": 0,
                "and": -1 if lo < 0 else hi}[body]
    if cls == "complex":
        return 0.0
    info_max = float(to_f64(np.asarray(edges(name))).max(initial=0, where=np.isfinite(to_f64(edges(name)))))
    has_inf = np.isinf(to_f64(edges(name))).any()
    return {"add": -0.0, "multiply": 1.0, "maximum": -np.inf if has_inf else -info_max,
            "minimum": np.inf if has_inf else info_max}[body]


def _float_rows(name: str, body: str, n: int, count: int, seed: str) -> np.ndarray:
    """Rows of edge values and small values whose reduction every schedule computes alike."""
    edge = [float(v) for v in to_f64(edges(name))]
    pool = _small_pool(name) + [v for v in edge if not np.isnan(v)]
    rng = rng_for(seed)
    special = [v for v in edge if not np.isfinite(v)]
    rows: list[list[float]] = [[-0.0] * n]
    rows += [[s] + [1.0] * (n - 1) for s in special]
    if len(special) >= 2:
        rows.append([special[0], 1.0, special[1]] + [0.5] * (n - 3))
    while len(rows) < 10 * count:
        rows.append([pool[i] for i in rng.integers(0, len(pool), size=n)])
    kept = []
    for row in rows:
        values = list(_arr(row, name))
        absolute = list(np.abs(_arr(row, name)))
        if ref.order_free(body, values, name) and ref.order_free(body, absolute, name):
            try:
                ref.reduce_values(body, values, _scalar(_identity(body, name), name)[()], name)
                ref.reduce_values(body, absolute, _scalar(_identity(body, name), name)[()], name)
            except UndefinedResult:
                continue
            kept.append(row)
        if len(kept) == count:
            break
    return _arr(kept, name)


def _integer_row(pool: np.ndarray, rng: np.random.Generator, n: int, body: str, name: str) -> list[int]:
    """n edge values whose add/multiply cannot overflow in any order (spec ## Errors: an integer overflow is
    implementation-defined): a value that could is replaced by the body's identity."""
    lo, hi = int_range(name)
    row: list[int] = []
    for _ in range(n):
        value = int(pool[rng.integers(0, len(pool))])
        candidate = row + [value]
        if body == "add":
            fits = sum(v for v in candidate if v > 0) <= hi and sum(v for v in candidate if v < 0) >= lo
        elif body == "multiply":
            fits = int(np.prod([abs(v) for v in candidate], dtype=object)) <= hi
        else:
            fits = True
        row.append(value if fits else (0 if body == "add" else 1))
    return row


def _reduce_input(name: str, body: str, seed: str, count: int = 8, n: int = 5, whole: bool = False) -> np.ndarray:
    """`count` rows of `n` values to reduce along dimension 1 (`whole`: the whole array is one reduction)."""
    cls = class_of(name)
    if cls == "float":
        return _float_rows(name, body, n, count, seed)
    rng = rng_for(seed)
    if cls == "complex":
        return _random_small(name, (count, n), seed)
    pool = edges(name)
    if cls == "bool":
        return pool[rng.integers(0, len(pool), size=(count, n))]
    if whole:
        return np.array(_integer_row(pool, rng, count * n, body, name), dtype=object).astype(
            np_dtype(name)).reshape(count, n)
    rows = [_integer_row(pool, rng, n, body, name) for _ in range(count)]
    return np.array(rows, dtype=object).astype(np_dtype(name))


def _reduce_case(name: str, body: str, x: np.ndarray, dims: Sequence[int], suffix: str, rule: str) -> CaseSpec:
    init = _scalar(_identity(body, name), name)
    out_shape = tuple(d for i, d in enumerate(x.shape) if i not in dims)
    region = mlir.binary_region(name, body)
    return _spec_case("reduce", f"{suffix}.{name}", [x, init], [TensorType(out_shape, name)],
                     attributes={"dimensions": list(dims), "body": body},
                     mlir_attributes=f"dimensions = {_i64s(dims)}", regions=[region], rule=rule,
                     tolerance=_selecting_tolerance(body),
                     reduced_elements=int(np.prod([x.shape[d] for d in dims])) if dims else 1)


def _selecting_tolerance(body: str) -> Tolerance | None:
    """maximum/minimum pick an element (exact in every tree); spec_build's |x| scale would take |init| too,
    turning a -inf init into +inf, so these cases state their (exact) tolerance."""
    return EXACT if body in ("maximum", "minimum", "and", "or", "xor") else None


REDUCE_BODIES = {
    "bool": ("add", "maximum", "minimum", "and", "or", "xor"),
    "signed": ("add", "multiply", "maximum", "minimum", "and", "or", "xor"),
    "unsigned": ("add", "multiply", "maximum", "minimum", "and", "or", "xor"),
    "float": ("add", "multiply", "maximum", "minimum"),
    "complex": ("add",),
}


def _reduce_cases() -> Iterator[CaseSpec]:
    rule = ("reduce: body over a tree of the slice in index order and any number of init values; "
            "inputs make every tree agree")
    for name in ALL_TYPES:
        for body in REDUCE_BODIES[class_of(name)]:
            x = _reduce_input(name, body, f"spec.reduce.{body}.{name}")
            yield _reduce_case(name, body, x, [1], f"{body}.dim1", rule)
    for name in ("s32", "f32"):
        x = _reduce_input(name, "add", f"spec.reduce.add.all.{name}", count=4, n=4, whole=True)
        yield _reduce_case(name, "add", x, [0, 1], "add.dims01", rule)
        empty = np.zeros((3, 0), dtype=np_dtype(name))
        yield _reduce_case(name, "add", empty, [1], "add.empty", "reduce of an empty slice is its init value")


# ------------------------------------------------------------------------------------------ reduce_window
WINDOW = {"window_dimensions": [2, 3], "window_strides": [1, 2], "base_dilations": [1, 2],
          "window_dilations": [2, 1], "padding": [[1, 0], [0, 1]]}


def _reduce_window_case(name: str, body: str, attrs: dict, suffix: str) -> CaseSpec | None:
    init = _scalar(_identity(body, name), name)

    def make(attempt: int) -> list[np.ndarray]:
        return [_random_small(name, (4, 4), f"spec.reduce_window.{suffix}.{name}.{attempt}"), init]

    def ok(inputs: list[np.ndarray]) -> bool:
        windows = ref.window_lists(inputs[0], init, attrs)
        # |x| windows feed the tolerance's scale only; for complex |x| (irrational) they need not be exact
        absolute = ref.window_lists(np.abs(inputs[0]) if class_of(name) == "float" else inputs[0], init, attrs)
        return all(ref.order_free(body, v, name) for v in list(windows.values()) + list(absolute.values()))

    try:
        inputs = _retry(make, ok)
    except RuntimeError:
        return None
    windows = ref.window_lists(inputs[0], init, attrs)
    shape = tuple(i + 1 for i in max(windows))
    text = (f"window_dimensions = {_i64s(attrs['window_dimensions'])}, window_strides = "
            f"{_i64s(attrs['window_strides'])}, base_dilations = {_i64s(attrs['base_dilations'])}, "
            f"window_dilations = {_i64s(attrs['window_dilations'])}, padding = {_padding(attrs['padding'])}")
    if not _defined("reduce_window", inputs, {**attrs, "body": body}, [TensorType(shape, name)]):
        return None
    return _spec_case("reduce_window", f"{suffix}.{name}", inputs, [TensorType(shape, name)],
                     attributes={**attrs, "body": body}, mlir_attributes=text,
                     regions=[mlir.binary_region(name, body)], tolerance=_selecting_tolerance(body),
                     rule="reduce_window: pad with init (holes of base_dilations too), strided dilated windows, "
                          "each reduced like reduce", reduced_elements=6)


def _reduce_window_cases() -> Iterator[CaseSpec]:
    for name in ALL_TYPES:
        bodies = ("add", "maximum") if class_of(name) != "complex" else ("add",)
        for body in bodies:
            case = _reduce_window_case(name, body, WINDOW, f"{body}.strided_dilated_padded")
            if case is not None:
                yield case
    example = {"window_dimensions": [2, 1], "window_strides": [4, 1], "base_dilations": [2, 1],
               "window_dilations": [3, 1], "padding": [[2, 1], [0, 0]], "body": "add"}
    x, init = np.array([[1, 2], [3, 4], [5, 6]], dtype=np.int32), np.array(0, dtype=np.int32)
    text = ("window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 4, 1>, base_dilations = "
            "array<i64: 2, 1>, window_dilations = array<i64: 3, 1>, padding = dense<[[2, 1], [0, 0]]> : "
            "tensor<2x2xi64>")
    yield _spec_case("reduce_window", "add.spec_example.s32", [x, init], [TensorType((2, 2), "s32")],
                    attributes=example, mlir_attributes=text, regions=[mlir.binary_region("s32", "add")],
                    rule="the spec's reduce_window example: [[0, 0], [3, 4]]")


# -------------------------------------------------------------------------------------- select_and_scatter
def _sas_program(name: str, direction: str, attrs: dict) -> tuple[list[str], str]:
    select = _compare_region(name, direction, COMPARE_TYPE[class_of(name)])
    scatter = mlir.binary_region(name, "add")
    text = (f"window_dimensions = {_i64s(attrs['window_dimensions'])}, window_strides = "
            f"{_i64s(attrs['window_strides'])}, padding = {_padding(attrs['padding'])}")
    return [select, scatter], text


def _sas_case(name: str, direction: str, attrs: dict, operand_shape: tuple, suffix: str) -> CaseSpec | None:
    padded = [d + p[0] + p[1] for d, p in zip(operand_shape, attrs["padding"])]
    source_shape = tuple((p - w) // s + 1 for p, w, s in zip(padded, attrs["window_dimensions"],
                                                             attrs["window_strides"]))
    init = _scalar(0 if class_of(name) != "bool" else False, name)
    spec_attrs = {**attrs, "select": {"direction": direction, "type": COMPARE_TYPE[class_of(name)]},
                  "scatter": "add"}
    results = [TensorType(operand_shape, name)]

    def make(attempt: int) -> list[np.ndarray]:
        seed = f"spec.select_and_scatter.{suffix}.{name}.{attempt}"
        if class_of(name) in ("signed", "unsigned"):
            pool = edges(name)
            operand = pool[rng_for(seed).integers(0, len(pool), size=operand_shape)]
        elif class_of(name) == "float":
            pool = [v for v in edges(name) if not np.isnan(to_f64(np.asarray(v)))]
            operand = np.asarray(pool, dtype=np_dtype(name))[rng_for(seed).integers(0, len(pool), size=operand_shape)]
        else:
            operand = _random_small(name, operand_shape, seed + ".operand")
        return [operand, _random_small(name, source_shape, seed + ".source"), init]

    try:
        inputs = _retry(make, lambda ins: _defined("select_and_scatter", ins, spec_attrs, results))
    except RuntimeError:
        return None
    regions, text = _sas_program(name, direction, attrs)
    return _spec_case("select_and_scatter", f"{suffix}.{name}", inputs, results, attributes=spec_attrs,
                     mlir_attributes=text, regions=regions,
                     rule=f"select_and_scatter: select {direction} picks the "
                          f"{'first' if direction in ('GE', 'LE') else 'last'} extreme of each window in every "
                          "tree; sources added into the selected positions, init elsewhere",
                     reduced_elements=4)


def _sas_cases() -> Iterator[CaseSpec]:
    overlap = {"window_dimensions": [2, 2], "window_strides": [1, 1], "padding": [[0, 0], [0, 0]]}
    disjoint = {"window_dimensions": [2, 2], "window_strides": [2, 2], "padding": [[0, 0], [0, 0]]}
    for name in ALL_TYPES:
        exact_overlap = class_of(name) != "float" or name in ("bf16", "f16", "f32", "f64")
        attrs, label = (overlap, "overlapping") if exact_overlap else (disjoint, "disjoint")
        case = _sas_case(name, "GE", attrs, (4, 4), f"GE.{label}")
        if case is not None:
            yield case
    for name in ("s32", "f32"):
        case = _sas_case(name, "GT", overlap, (4, 4), "GT.overlapping")
        if case is not None:
            yield case
    operand = np.array([[1, 5], [2, 5], [3, 6], [4, 4]], dtype=np.int32)
    source = np.array([[5, 6], [7, 8]], dtype=np.int32)
    attrs = {"window_dimensions": [3, 1], "window_strides": [2, 1], "padding": [[0, 1], [0, 0]]}
    regions, text = _sas_program("s32", "GE", attrs)
    yield _spec_case("select_and_scatter", "GE.padded.spec_example.s32", [operand, source, np.array(0, np.int32)],
                    [TensorType((4, 2), "s32")], attributes={**attrs, "select": {"direction": "GE", "type": "SIGNED"},
                                                              "scatter": "add"},
                    mlir_attributes=text, regions=regions,
                    rule="the spec's select_and_scatter example: [[0, 0], [0, 0], [5, 14], [7, 0]]")


# ----------------------------------------------------------------------------------------------------- sort
def _sort_rows(name: str, n: int, count: int, seed: str, keep: Callable[[np.ndarray], bool]) -> np.ndarray:
    pool = edges(name)
    rng = rng_for(seed)
    rows = []
    for _ in range(50 * count):
        row = pool[rng.integers(0, len(pool), size=n)]
        if keep(row):
            rows.append(row)
        if len(rows) == count:
            break
    return np.stack(rows)


def _sort_case(name: str, direction: str, kind: str, stable: bool, payload: bool, suffix: str,
               dimension: int = 1) -> CaseSpec:
    attrs = {"dimension": dimension, "is_stable": stable, "comparator": {"direction": direction, "type": kind}}
    n = 6

    def row_ok(row: np.ndarray) -> bool:
        ops = [row[None, :]] + ([np.arange(n, dtype=np.int32)[None, :]] if payload else [])
        attrs_row = {**attrs, "dimension": 1}
        return _defined("sort", ops, attrs_row, [type_of(o) for o in ops])

    keys = _sort_rows(name, n, 6, f"spec.sort.{suffix}.{name}", row_ok)
    inputs = [keys] + ([np.tile(np.arange(n, dtype=np.int32), (keys.shape[0], 1))] if payload else [])
    if dimension in (0, -2):
        inputs = [x.T.copy() for x in inputs]
    results = [type_of(x) for x in inputs]
    region = _compare_region(name, direction, kind, operands=len(inputs))
    text = f"dimension = {dimension} : i64, is_stable = {'true' if stable else 'false'}"
    rule = (f"sort: non-descending order of comparator {direction} {kind}; "
            f"{'stable: comparator-equal elements keep their order' if stable else 'unstable: ties are bitwise equal'}")
    return _spec_case("sort", f"{suffix}.{name}", inputs, results, attributes=attrs, mlir_attributes=text,
                     regions=[region], rule=rule)


def _sort_cases() -> Iterator[CaseSpec]:
    for name in ALL_TYPES:
        kind = COMPARE_TYPE[class_of(name)]
        yield _sort_case(name, "LT", kind, True, True, f"LT_{kind}.stable.payload")
        yield _sort_case(name, "GT", kind, False, False, f"GT_{kind}.unstable")
    for name in FLOAT_TYPES:
        yield _sort_case(name, "LT", "TOTALORDER", True, True, "LT_TOTALORDER.stable.payload")
        yield _sort_case(name, "GT", "TOTALORDER", False, False, "GT_TOTALORDER.unstable")
    yield _sort_case("s32", "LT", "SIGNED", True, True, "LT_SIGNED.stable.payload.dim_minus2", dimension=-2)


# ---------------------------------------------------------------------------------------------- dot_general
def _dot_text(lb: Sequence[int], rb: Sequence[int], lc: Sequence[int], rc: Sequence[int], precision: str) -> str:
    return (f"dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = {list(lb)}, rhs_batching_dimensions = "
            f"{list(rb)}, lhs_contracting_dimensions = {list(lc)}, rhs_contracting_dimensions = {list(rc)}>, "
            f"precision_config = [#stablehlo<precision {precision}>, #stablehlo<precision {precision}>]")


def _dot_inputs(name: str, lshape: tuple, rshape: tuple, seed: str, special: bool) -> Callable[[int], list]:
    def make(attempt: int) -> list[np.ndarray]:
        cls = class_of(name)
        if cls in ("signed", "unsigned") and not seed.startswith("spec.dot_general.mixed"):
            # extremes on both sides first; an overflow is implementation-defined (spec ## Errors), so later
            # attempts pair the extremes with -1/0/1 until no sum of products can leave the type
            pool = edges(name)
            rng = rng_for(f"{seed}.{attempt}")
            other = pool if attempt < 100 else np.array([v for v in (-1, 0, 1, 0) if int_range(name)[0] <= v],
                                                         dtype=object).astype(np_dtype(name))
            return [pool[rng.integers(0, len(pool), size=lshape)], other[rng.integers(0, len(other), size=rshape)]]
        lhs = _random_small(name, lshape, f"{seed}.{attempt}.lhs")
        rhs = _random_small(name, rshape, f"{seed}.{attempt}.rhs")
        if special and cls == "float":
            specials = [v for v in edges(name) if not np.isfinite(to_f64(np.asarray(v)))]
            for i, v in enumerate(specials[:lshape[0]]):
                lhs[i, i % lshape[1]] = v
        return [lhs, rhs]
    return make


def _dot_case(name: str, out_name: str, lshape: tuple, rshape: tuple, lb: list, rb: list, lc: list, rc: list,
              suffix: str, precision: str = "DEFAULT", special: bool = False) -> CaseSpec | None:
    attrs = {"lhs_batching_dimensions": lb, "rhs_batching_dimensions": rb, "lhs_contracting_dimensions": lc,
             "rhs_contracting_dimensions": rc, "precision_config": [precision, precision]}
    lr = [d for d in range(len(lshape)) if d not in lb + lc]
    rr = [d for d in range(len(rshape)) if d not in rb + rc]
    shape = tuple(lshape[d] for d in lb) + tuple(lshape[d] for d in lr) + tuple(rshape[d] for d in rr)
    results = [TensorType(shape, out_name)]
    make = _dot_inputs(name, lshape, rshape, f"spec.dot_general.{suffix}.{name}", special)
    try:
        inputs = _retry(make, lambda ins: _defined("dot_general", ins, attrs, results))
    except RuntimeError:
        return None
    k = int(np.prod([lshape[d] for d in lc]))
    return _spec_case("dot_general", f"{suffix}.{out_name if out_name == name else name + '_to_' + out_name}", inputs,
                     results, attributes=attrs, mlir_attributes=_dot_text(lb, rb, lc, rc, precision),
                     rule="dot_general: sum over contracting dims of lhs * rhs (no integer overflow: implementation-defined; i1: OR of ANDs)",
                     reduced_elements=k)


def _dot_cases() -> Iterator[CaseSpec]:
    for name in ALL_TYPES:
        case = _dot_case(name, name, (3, 3), (3, 2), [], [], [1], [0], "matmul",
                         special=name in ("f32", "f64", "bf16", "f16"))
        if case is not None:
            yield case
    more = [
        ("s32", "s32", (2, 2, 3), (2, 3, 2), [0], [0], [2], [1], "batch"),
        ("f32", "f32", (2, 2, 3), (2, 3, 2), [0], [0], [2], [1], "batch"),
        ("c64", "c64", (2, 2, 3), (2, 3, 2), [0], [0], [2], [1], "batch"),
        ("f32", "f32", (2, 3, 2), (3, 2, 2), [], [], [1, 2], [0, 1], "two_contracting"),
        ("s8", "s8", (2, 3, 2), (2, 2, 3), [0], [0], [1, 2], [2, 1], "batch_two_contracting"),
        ("f32", "f32", (3,), (3,), [], [], [0], [0], "vector"),
        ("f32", "f32", (2, 3), (4, 3), [], [], [1], [1], "contract_last"),
        ("s8", "s32", (3, 3), (3, 2), [], [], [1], [0], "mixed"),
        ("bf16", "f32", (3, 3), (3, 2), [], [], [1], [0], "mixed"),
    ]
    for name, out_name, ls, rs, lb, rb, lc, rc, suffix in more:
        case = _dot_case(name, out_name, ls, rs, lb, rb, lc, rc, suffix)
        if case is not None:
            yield case
    for precision in ("HIGH", "HIGHEST"):
        case = _dot_case("f32", "f32", (3, 3), (3, 2), [], [], [1], [0], f"matmul.precision_{precision}", precision)
        if case is not None:
            yield case


# ---------------------------------------------------------------------------------------------- convolution
NHWC = {"input_batch": 0, "input_feature": 3, "input_spatial": [1, 2], "kernel_input_feature": 2,
        "kernel_output_feature": 3, "kernel_spatial": [0, 1], "output_batch": 0, "output_feature": 3,
        "output_spatial": [1, 2]}
NCHW = {"input_batch": 0, "input_feature": 1, "input_spatial": [2, 3], "kernel_input_feature": 1,
        "kernel_output_feature": 0, "kernel_spatial": [2, 3], "output_batch": 0, "output_feature": 1,
        "output_spatial": [2, 3]}


def _conv_letters(dn: dict, rank: int) -> str:
    def layout(batch: int, feature: int, spatial: list[int], b: str, f: str) -> str:
        letters = [""] * rank
        letters[batch], letters[feature] = b, f
        for i, d in enumerate(spatial):
            letters[d] = str(i)
        return f"[{', '.join(letters)}]"

    return (f"#stablehlo.conv<{layout(dn['input_batch'], dn['input_feature'], dn['input_spatial'], 'b', 'f')}x"
            f"{layout(dn['kernel_input_feature'], dn['kernel_output_feature'], dn['kernel_spatial'], 'i', 'o')}->"
            f"{layout(dn['output_batch'], dn['output_feature'], dn['output_spatial'], 'b', 'f')}>")


def _conv_text(attrs: dict, rank: int) -> str:
    return (f"window_strides = {_i64s(attrs['window_strides'])}, padding = {_padding(attrs['padding'])}, "
            f"lhs_dilation = {_i64s(attrs['lhs_dilation'])}, rhs_dilation = {_i64s(attrs['rhs_dilation'])}, "
            f"dimension_numbers = {_conv_letters(attrs['dimension_numbers'], rank)}, "
            f"feature_group_count = {attrs['feature_group_count']} : i64, "
            f"batch_group_count = {attrs['batch_group_count']} : i64, "
            "precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]")


def _conv_case(name: str, lshape: tuple, rshape: tuple, suffix: str, **settings: Any) -> CaseSpec | None:
    spatial = len(lshape) - 2
    attrs = {"window_strides": [1] * spatial, "padding": [[0, 0]] * spatial, "lhs_dilation": [1] * spatial,
             "rhs_dilation": [1] * spatial, "feature_group_count": 1, "batch_group_count": 1,
             "dimension_numbers": NHWC}
    attrs.update(settings)
    probe = [np.ones(lshape, np.float32), np.ones(rshape, np.float32)]
    shape = registry.lookup("convolution").evaluate(probe, attrs, [TensorType((), "f32")])[0].shape
    results = [TensorType(tuple(shape), name)]
    make = _dot_inputs(name, lshape, rshape, f"spec.convolution.{suffix}.{name}", False)
    try:
        inputs = _retry(make, lambda ins: _defined("convolution", ins, attrs, results))
    except RuntimeError:
        return None
    return _spec_case("convolution", f"{suffix}.{name}", inputs, results, attributes=attrs,
                     mlir_attributes=_conv_text(attrs, len(lshape)),
                     rule="convolution: dot products of zero-padded, lhs-dilated, strided, rhs-dilated windows "
                          "with the kernel, per feature/batch group", reduced_elements=int(np.prod(rshape[:-1])))


def _conv_cases() -> Iterator[CaseSpec]:
    for name in ALL_TYPES:
        case = _conv_case(name, (1, 3, 3, 2), (2, 2, 2, 2), "basic")
        if case is not None:
            yield case
    for name in ("s32", "f32"):
        variants = [
            ("strided_padded", (1, 5, 4, 1), (2, 2, 1, 2), {"window_strides": [2, 1], "padding": [[1, 0], [0, 2]]}),
            ("lhs_dilation", (1, 3, 3, 1), (2, 2, 1, 1), {"lhs_dilation": [2, 1]}),
            ("rhs_dilation", (1, 4, 5, 1), (2, 2, 1, 1), {"rhs_dilation": [1, 2]}),
            ("feature_groups2", (1, 3, 3, 4), (2, 2, 2, 4), {"feature_group_count": 2}),
            ("batch_groups2", (4, 3, 3, 1), (2, 2, 1, 4), {"batch_group_count": 2}),
            ("nchw_oihw", (2, 2, 3, 3), (3, 2, 2, 2), {"dimension_numbers": NCHW}),
        ]
        for suffix, ls, rs, settings in variants:
            case = _conv_case(name, ls, rs, suffix, **settings)
            if case is not None:
                yield case
    lhs = np.array([1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17], dtype=np.int32).reshape(1, 4, 4, 1)
    rhs = np.ones((3, 3, 1, 1), dtype=np.int32)
    attrs = {"window_strides": [4, 4], "padding": [[0, 0], [0, 0]], "lhs_dilation": [2, 2], "rhs_dilation": [1, 1],
             "feature_group_count": 1, "batch_group_count": 1, "dimension_numbers": NHWC}
    yield _spec_case("convolution", "spec_example.s32", [lhs, rhs], [TensorType((1, 2, 2, 1), "s32")],
                    attributes=attrs, mlir_attributes=_conv_text(attrs, 4),
                    rule="the spec's convolution example: [[[[10], [26]], [[46], [62]]]]")


# ------------------------------------------------------------------------------------------------------ fft
def _fft_cases() -> Iterator[CaseSpec]:
    settings = [("FFT", "c64", "c64", (2, 8), [8]), ("FFT", "c128", "c128", (2, 8), [8]),
                ("IFFT", "c64", "c64", (2, 8), [8]), ("IFFT", "c128", "c128", (2, 8), [8]),
                ("FFT", "c64", "c64", (4, 4), [4, 4]), ("IFFT", "c128", "c128", (2, 2, 4), [2, 2, 4]),
                ("RFFT", "f32", "c64", (2, 8), [8]), ("RFFT", "f64", "c128", (2, 4, 6), [4, 6]),
                ("IRFFT", "c64", "f32", (2, 5), [8]), ("IRFFT", "c128", "f64", (2, 4, 4), [4, 6])]
    for kind, in_name, out_name, shape, lengths in settings:
        rng = rng_for(f"spec.fft.{kind}.{in_name}.{len(lengths)}")
        if kind == "IRFFT":  # the image of RFFT: the inverse the spec names exists
            real = rng.standard_normal(shape[:-1] + (lengths[-1],))
            x = np.fft.rfftn(real, axes=tuple(range(len(shape) - len(lengths), len(shape)))).astype(np_dtype(in_name))
        elif class_of(in_name) == "complex":
            x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np_dtype(in_name))
        else:
            x = rng.standard_normal(shape).astype(np_dtype(in_name))
        out_shape = list(shape)
        if kind == "RFFT":
            out_shape[-1] = shape[-1] // 2 + 1
        if kind == "IRFFT":
            out_shape[-1] = lengths[-1]
        text = f"fft_type = #stablehlo<fft_type {kind}>, fft_length = {_i64s(lengths)}"
        yield _spec_case("fft", f"{kind}.rank{len(lengths)}.{in_name}", [x], [TensorType(tuple(out_shape), out_name)],
                        attributes={"fft_type": kind, "fft_length": lengths}, mlir_attributes=text,
                        rule=f"fft {kind}: discrete Fourier transform over the last {len(lengths)} dims "
                             "(inverse: 1/n scaled)", reduced_elements=int(np.prod(lengths)))


# ------------------------------------------------------------------------------------------------------ map
def _map_case(name: str, body: str) -> CaseSpec | None:
    x, y = pairs(name)
    keep = []
    for i in range(len(x)):
        try:
            with np.errstate(all="ignore"):
                ref.apply_body(body, x[i:i + 1], y[i:i + 1], name)
            keep.append(i)
        except (UndefinedResult, ValueError):
            continue
    keep = keep[::max(1, len(keep) // 400)]
    x, y = x[keep], y[keep]
    scalar = TensorType((), name)
    region = mlir.region([scalar, scalar], [mlir.generic_op(body, ["%ra0", "%ra1"], [scalar, scalar], [scalar],
                                                            results="%rr")], ["%rr"], [scalar])
    return _spec_case("map", f"{body}.{name}", [x, y], [TensorType(x.shape, name)], attributes={"computation": body},
                     mlir_attributes="dimensions = array<i64: 0>", regions=[region],
                     rule=f"map: result[i] = computation(inputs[:][i]) with computation = {body}")


def _map_cases() -> Iterator[CaseSpec]:
    for name in ALL_TYPES:
        body = "add" if class_of(name) != "bool" else "and"
        case = _map_case(name, body)
        if case is not None:
            yield case
    for name in ("s32", "f32", "bf16"):
        case = _map_case(name, "multiply")
        if case is not None:
            yield case


# ---------------------------------------------------------------------------------------------- batch norm
def _bn_text(epsilon: float, feature: int) -> str:
    return f"epsilon = {epsilon:e} : f32, feature_index = {feature} : i64"


def _batch_norm_cases() -> Iterator[CaseSpec]:
    for name in FLOAT_TYPES:
        x = _arr([[1, 2, 3], [3, 6, -1]], name)
        scale, offset = _arr([1, 2, 0.5], name), _arr([1, 0.5, 0], name)
        mean, var = _arr([2, 4, 1], name), _arr([0, 3, 3], name)
        feature = TensorType((3,), name)
        if _defined("batch_norm_inference", [x, scale, offset, mean, var], {"epsilon": 1.0, "feature_index": 1},
                    [type_of(x)]):
            yield _spec_case("batch_norm_inference", f"feature1.{name}", [x, scale, offset, mean, var], [type_of(x)],
                            attributes={"epsilon": 1.0, "feature_index": 1}, mlir_attributes=_bn_text(1.0, 1),
                            op_class="normalization",
                            rule="batch_norm_inference: scale * (x - mean) / sqrt(variance + epsilon) + offset")
        xt = _arr([[1, 0, 1], [3, 2, -1]], name)
        tscale, toffset = _arr([1, 2, 4], name), _arr([0, 1, -1], name)
        if _defined("batch_norm_training", [xt, tscale, toffset], {"epsilon": 3.0, "feature_index": 1},
                    [type_of(xt), feature, feature]):
            yield _spec_case("batch_norm_training", f"feature1.{name}", [xt, tscale, toffset],
                            [type_of(xt), feature, feature], attributes={"epsilon": 3.0, "feature_index": 1},
                            mlir_attributes=_bn_text(3.0, 1), op_class="normalization",
                            rule="batch_norm_training: batch mean and biased variance per feature, then "
                                 "batch_norm_inference")
        gmean, gvar = _arr([2, 1, 0], name), _arr([3, 3, 3], name)
        dy = _arr([[1, -1, 0.5], [1, 1, 0.5]], name)
        gscale = _arr([1, 2, 1], name)
        ins = [xt, gscale, gmean, gvar, dy]
        if _defined("batch_norm_grad", ins, {"epsilon": 1.0, "feature_index": 1}, [type_of(xt), feature, feature]):
            yield _spec_case("batch_norm_grad", f"feature1.{name}", ins, [type_of(xt), feature, feature],
                            attributes={"epsilon": 1.0, "feature_index": 1}, mlir_attributes=_bn_text(1.0, 1),
                            op_class="normalization",
                            rule="batch_norm_grad: the spec's decomposition (XLA's batchnorm_expander)")
    x = _arr([[[1, 2], [3, 4]], [[3, 4], [1, 2]]], "f32")
    ones = _arr([1, 1], "f32")
    yield _spec_case("batch_norm_inference", "spec_example.f32", [x, ones, ones, _arr([2, 3], "f32"), ones],
                    [type_of(x)], attributes={"epsilon": 0.0, "feature_index": 2}, mlir_attributes=_bn_text(0.0, 2),
                    op_class="normalization", rule="the spec's batch_norm_inference example")


# ------------------------------------------------------------------------------------------ linear algebra
def _masked_program(op: str, operand_types: list[TensorType], result: TensorType, attributes: str,
                    mask: np.ndarray) -> str:
    """`op` then select(mask, result, 0): the opposite triangle, implementation-defined, becomes 0."""
    name = result.dtype
    mask_text = np.array2string(mask, separator=", ", threshold=10 ** 6).replace("True", "true").replace(
        "False", "false").replace("\n", "")
    zero = "(0.000000e+00,0.000000e+00)" if class_of(name) == "complex" else "0.000000e+00"
    mask_type = TensorType(result.shape, "pred")
    body = [
        mlir.generic_op(op, [f"%arg{i}" for i in range(len(operand_types))], operand_types, [result], attributes),
        f'%1 = "stablehlo.constant"() {{value = dense<{mask_text}> : {mlir_type(result.shape, "pred")}}} : () -> '
        f'{mlir_type(result.shape, "pred")}',
        f'%2 = "stablehlo.constant"() {{value = dense<{zero}> : {mlir.tensor(result)}}} : () -> {mlir.tensor(result)}',
        mlir.generic_op("select", ["%1", "%0", "%2"], [mask_type, result, result], [result], results="%3"),
    ]
    return mlir.module(operand_types, [result], body, ["%3"])


def _cholesky_matrix(name: str) -> np.ndarray:
    if class_of(name) == "complex":
        factors = [np.array([[1, 0], [1 + 1j, 2]]), np.array([[2, 0], [1j, 1]])]
    elif name in ("bf16", "f16", "f32", "f64"):
        factors = [np.array([[1, 0, 0], [2, 4, 0], [3, 5, 6]]), np.array([[2, 0, 0], [1, 1, 0], [-1, 2, 1]])]
    else:
        factors = [np.array([[1, 0], [1, 1]]), np.array([[2, 0], [1, 1]])]
    return np.stack([f @ f.conj().T for f in factors])


def _linalg_cases() -> Iterator[CaseSpec]:
    for name in FLOAT_TYPES + COMPLEX_TYPES:
        for lower in (True, False):
            if not lower and name not in ("f32", "c64"):
                continue
            a = _arr(_cholesky_matrix(name), name)
            n = a.shape[-1]
            mask = np.broadcast_to(np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool)),
                                   a.shape).copy()
            text = f"lower = {'true' if lower else 'false'}"
            if not _defined("cholesky", [a], {"lower": lower}, [type_of(a)]):
                continue
            yield _spec_case("cholesky", f"{'lower' if lower else 'upper'}.{name}", [a], [type_of(a)],
                            attributes={"lower": lower},
                            program=_masked_program("cholesky", [type_of(a)], type_of(a), text, mask),
                            rule="cholesky: A = L L^H (lower) / U^H U (upper); the other triangle is "
                                 "implementation-defined (masked to 0 in the program)")
    for name in FLOAT_TYPES + COMPLEX_TYPES:
        yield from _triangular_cases(name)


def _triangular_cases(name: str) -> Iterator[CaseSpec]:
    narrow = name not in ("bf16", "f16", "f32", "f64", "c64", "c128")
    settings = [(True, True, False, "NO_TRANSPOSE")]
    if name in ("f32", "f64"):
        settings += [(False, True, False, "TRANSPOSE"), (True, False, True, "NO_TRANSPOSE"),
                     (False, False, False, "NO_TRANSPOSE")]
    if name == "c64":
        settings += [(True, True, False, "ADJOINT"), (False, False, False, "TRANSPOSE")]
    for left, lower, unit, transpose in settings:
        if narrow:
            tri = np.array([[1.0, 0], [1, 2]])
            x = np.array([[1.0, 0.5], [-1, 0]])
        else:
            tri = np.array([[2.0, 0, 0], [1, -1, 0], [3, 2, 4]])
            x = np.array([[1.0, -2, 0.5], [0, 1, 3], [2, -1, 1]])
        if class_of(name) == "complex":
            tri = tri + 1j * np.tril(np.ones_like(tri), -1)
            x = x + 1j * np.eye(len(x))
        if unit:
            np.fill_diagonal(tri, 1)
        m = tri if lower else tri.T
        op = {"NO_TRANSPOSE": m, "TRANSPOSE": m.T, "ADJOINT": m.conj().T}[transpose]
        b = op @ x if left else x @ op
        garbage = np.triu(np.full(m.shape, 3.0), 1) if lower else np.tril(np.full(m.shape, 3.0), -1)
        a = _arr(m + garbage, name)
        bb = _arr(b, name)
        attrs = {"left_side": left, "lower": lower, "unit_diagonal": unit, "transpose_a": transpose}
        if not _defined("triangular_solve", [a, bb], attrs, [type_of(bb)]):
            continue
        text = (f"left_side = {str(left).lower()}, lower = {str(lower).lower()}, unit_diagonal = "
                f"{str(unit).lower()}, transpose_a = #stablehlo<transpose {transpose}>")
        suffix = f"{'left' if left else 'right'}_{'lower' if lower else 'upper'}{'_unit' if unit else ''}_{transpose}"
        yield _spec_case("triangular_solve", f"{suffix}.{name}", [a, bb], [type_of(bb)], attributes=attrs,
                        mlir_attributes=text,
                        rule="triangular_solve: op(a) x = b (left) or x op(a) = b; a read only in its triangle")


def cases() -> Iterator[CaseSpec]:
    yield from _reduce_cases()
    yield from _reduce_window_cases()
    yield from _sas_cases()
    yield from _sort_cases()
    yield from _dot_cases()
    yield from _conv_cases()
    yield from _fft_cases()
    yield from _map_cases()
    yield from _batch_norm_cases()
    yield from _linalg_cases()
