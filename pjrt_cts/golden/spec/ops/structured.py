"""Reductions, windows, sorting, contractions, FFT and linear algebra (spec sections named per registration).

Order-dependence. `reduce` (and everything the spec defines through it: reduce_window, select_and_scatter's
scatter, dot_general, convolution) runs its body over an implementation-defined binary tree whose leaves are
the inputs in index order, "interspersed with an implementation-defined amount of init_values". The reference
therefore computes the *exact* result (integers: exact then wrapped, which every tree gives too; floats: the
exact sum/product rounded once) and checks that the number of init values (0, 1 or 2) does not change it.
That exact value is every tree's value when every partial result is representable, which the case generator
ensures by its choice of inputs (small integers, powers of two); elsewhere it is the value the tolerance class
("reduction", "matmul") measures against.

Exclusions (UndefinedResult, inputs dropped by the generator):
- a result that depends on the number of init values (e.g. a sum of only -0.0 with init +0.0: -0 with none,
  +0 with one), and a dot product / convolution whose terms are all -0.0 (its init is +0, count unknown);
- overflow in a float type without infinity (numeric.round_to);
- sort with a comparator that is not a strict weak order on the slice (FLOAT compare with NaN), an unstable
  sort whose comparator-equal elements differ in bits, and TOTALORDER inputs where the spec's two possible
  readings ("totalOrder combined with compareQuietEqual") give different orders (-0 and +0 out of order);
- select_and_scatter windows holding NaN (the selected element then depends on the tree) or only padding
  ("currently unspecified", #731); padding elements are never selected (as in the spec's example);
- cholesky: non-Hermitian-positive-definite input (undefined); the opposite triangle of the result is
  implementation-defined, so this reference returns zeros there and the cases' programs mask it;
- triangular_solve with unit_diagonal = true and a diagonal that is not 1 (undefined);
- dot_general with a result element type different from the operands' when a product or the sum does not fit
  the operand type (the spec does not say in which type the products are formed).
The newer float types (f4/f6, f8E3M4, f8E4M3, f8E8M0FNU) postdate the stored spec; they are treated as the
spec's floating-point class with their own encodings (IEEE-754-like semantics).
"""
from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.spec import variants
from pjrt_cts.golden.spec.numeric import UndefinedResult, round_to, to_f64, wrap
from pjrt_cts.golden.spec.ops.elementwise import ieee_extreme, lexicographic_extreme
from pjrt_cts.golden.spec.registry import TensorType, spec_op
from pjrt_cts.golden.spec.types import class_of, int_range, np_dtype

ALL_CLASSES = ("bool", "signed", "unsigned", "float", "complex")
BODIES = ("add", "multiply", "maximum", "minimum", "and", "or", "xor")
Result = list[np.ndarray]


# ----------------------------------------------------------------------------------------------- exact floats
def round_fraction(value: Fraction, name: str) -> float:
    """`value` rounded once (to nearest, ties to even) into float type `name`, as a float64 holding it.

    float64 is reached by round-to-odd (53 >= 2p + 2 bits for every narrower type), so the final RNE step
    into `name` is the correct rounding of the exact value, not a double rounding."""
    try:
        nearest = value.numerator / value.denominator  # CPython's int/int division is correctly rounded
    except OverflowError:  # beyond float64's range: overflows every spec float type too
        return float("inf") if value > 0 else float("-inf")
    if name in ("f64", "c128") or Fraction(nearest) == value:
        return nearest
    bits = np.array(nearest, dtype=np.float64).view(np.uint64)
    if int(bits) % 2 == 0:  # even: step to the neighbour on the exact value's side (odd)
        nearest = float(np.nextafter(nearest, np.inf if value > Fraction(nearest) else -np.inf))
    return nearest


def _float_of(value: Fraction, name: str) -> np.ndarray:
    return round_to(round_fraction(value, name), name)


def exact_sum(terms: Sequence[float | Fraction], negative_zero: Sequence[bool], name: str) -> np.ndarray:
    """IEEE sum of `terms` in any order, rounded once: NaN if a term is NaN or +inf meets -inf, an infinity
    if one is present, else the exact sum; an exact zero is -0 only when every term is -0."""
    specials = [float(t) for t in terms if isinstance(t, float) and not np.isfinite(t)]
    if any(np.isnan(t) for t in specials) or (float("inf") in specials and float("-inf") in specials):
        return round_to(float("nan"), name)
    if specials:
        return round_to(specials[0], name)
    total = sum((Fraction(t) for t in terms), Fraction(0))
    if total == 0:
        return round_to(-0.0 if negative_zero and all(negative_zero) else 0.0, name)
    return _float_of(total, name)


def _product_term(a: float, b: float) -> tuple[float | Fraction, bool]:
    """a * b exactly (a Fraction), or its IEEE special value (a float); and whether it is -0."""
    if np.isnan(a) or np.isnan(b):
        return float("nan"), False
    negative = bool(np.signbit(a)) != bool(np.signbit(b))
    if np.isinf(a) or np.isinf(b):
        if a == 0 or b == 0:
            return float("nan"), False
        return (float("-inf") if negative else float("inf")), False
    product = Fraction(a) * Fraction(b)
    return product, product == 0 and negative


# --------------------------------------------------------------------------------------- region bodies
def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Bitwise equality, any NaN equal to any NaN."""
    a, b = np.asarray(a), np.asarray(b)
    cls = class_of(dtypes.name_of(a.dtype))
    if cls in ("float", "complex"):
        wa = a.astype(np.complex128) if cls == "complex" else to_f64(a)
        wb = b.astype(np.complex128) if cls == "complex" else to_f64(b)
        if np.isnan(wa).all() and np.isnan(wb).all():
            return True
    return a.tobytes() == b.tobytes()



def _no_overflow(largest: int, smallest: int, name: str) -> None:
    """Raise UndefinedResult when a value in [smallest, largest] may leave integer type `name` (spec ## Errors:
    "integer overflows ... result in implementation-defined behavior")."""
    lo, hi = int_range(name)
    if largest > hi or smallest < lo:
        raise UndefinedResult(f"an integer overflow in {name} is implementation-defined")


def fold(body: str, values: Sequence[Any], name: str) -> np.ndarray:
    """body(v0, body(v1, ...)) for an associative, commutative body, computed exactly and rounded once."""
    cls = class_of(name)
    dtype = np_dtype(name)
    if cls == "bool":
        bits = [bool(v) for v in values]
        op = {"add": any, "or": any, "maximum": any, "multiply": all, "and": all, "minimum": all,
              "xor": lambda b: sum(b) % 2 == 1}[body]
        return np.array(op(bits), dtype=np.bool_)
    if cls in ("signed", "unsigned"):
        ints = [int(v) for v in values]
        if body == "add":
            # spec ## Errors: an integer overflow is implementation-defined; with the tree implementation-defined
            # too, a sum is defined only if no partial sum in any order can leave the type
            _no_overflow(sum(v for v in ints if v > 0), sum(v for v in ints if v < 0), name)
            return wrap(np.array(sum(ints), dtype=object), name)
        if body == "multiply":
            magnitude = functools.reduce(lambda a, b: a * b, [abs(v) for v in ints], 1)
            _no_overflow(magnitude, -magnitude if any(v < 0 for v in ints) else 0, name)
            return wrap(np.array(functools.reduce(lambda a, b: a * b, ints), dtype=object), name)
        if body in ("maximum", "minimum"):
            return wrap(np.array(max(ints) if body == "maximum" else min(ints), dtype=object), name)
        bitwise: Callable[[int, int], int] = {"and": lambda a, b: a & b, "or": lambda a, b: a | b,
                                              "xor": lambda a, b: a ^ b}[body]
        return wrap(np.array(functools.reduce(bitwise, ints), dtype=object), name)
    if cls == "complex":
        zs = [complex(v) for v in values]
        if body in ("maximum", "minimum"):
            return np.array(functools.reduce(lambda a, b: lexicographic_extreme(a, b, body == "maximum"), zs), dtype=dtype)
        if body != "add":
            raise ValueError(f"complex reduce body {body!r} is not supported by this reference")
        if not all(np.isfinite(z.real) and np.isfinite(z.imag) for z in zs):
            raise UndefinedResult("complex sums with non-finite parts are left out")
        part = "f32" if name == "c64" else "f64"
        re = exact_sum([z.real for z in zs], [z.real == 0 and bool(np.signbit(z.real)) for z in zs], part)
        im = exact_sum([z.imag for z in zs], [z.imag == 0 and bool(np.signbit(z.imag)) for z in zs], part)
        return np.array(complex(float(re), float(im)), dtype=dtype)
    xs = [float(v) for v in to_f64(np.asarray(values, dtype=dtype))]
    if body == "add":
        return exact_sum(xs, [x == 0 and bool(np.signbit(x)) for x in xs], name)
    if body == "multiply":
        return _exact_product(xs, name)
    if body in ("maximum", "minimum"):
        tiny = float(dtypes.finfo(name).tiny)
        return round_to(functools.reduce(lambda a, b: ieee_extreme(a, b, body == "maximum", tiny), xs), name)
    raise ValueError(f"float reduce body {body!r} is not defined")


def _exact_product(xs: Sequence[float], name: str) -> np.ndarray:
    negative = sum(bool(np.signbit(x)) for x in xs) % 2 == 1
    if any(np.isnan(x) for x in xs) or (any(np.isinf(x) for x in xs) and any(x == 0 for x in xs)):
        return round_to(float("nan"), name)
    if any(np.isinf(x) for x in xs):
        return round_to(float("-inf") if negative else float("inf"), name)
    if any(x == 0 for x in xs):
        return round_to(-0.0 if negative else 0.0, name)
    return _float_of(functools.reduce(lambda a, b: a * b, (Fraction(x) for x in xs)), name)


def reduce_values(body: str, values: Sequence[Any], init: Any, name: str) -> np.ndarray:
    """The spec's reduce of one slice: the same for 0, 1 or 2 init values, else undefined. Under a deviation's
    semantics (variants.current(), whose body may not commute) the usual loop: accumulator = init, then
    body(accumulator, value) in index order."""
    if not variants.current().is_spec:
        return fold(body, [init] + list(values), name)
    counts = (1, 2) if len(values) == 0 else (0, 1, 2)
    outcomes = [fold(body, list(values) + [init] * k, name) for k in counts]
    if not all(_same(outcomes[0], o) for o in outcomes[1:]):
        raise UndefinedResult(f"reduce with {body}: the result depends on the number of init values")
    return outcomes[0]


def apply_body(body: str, a: np.ndarray, b: np.ndarray, name: str) -> np.ndarray:
    """A binary region applied elementwise (map's computation)."""
    out = np.empty(a.shape, dtype=np_dtype(name))
    for index in np.ndindex(a.shape):
        out[index] = fold(body, [a[index], b[index]], name)
    return out


def order_free(body: str, values: Sequence[Any], name: str) -> bool:
    """Whether every tree over `values` (in this order) gives the exact result: every contiguous run of
    finite elements has an exactly representable sum / product (integers and min/max always do)."""
    if class_of(name) not in ("float", "complex") or body not in ("add", "multiply"):
        return True
    parts = [[complex(v).real for v in values], [complex(v).imag for v in values]] if class_of(name) == "complex" \
        else [[float(v) for v in to_f64(np.asarray(values, dtype=np_dtype(name)))]]
    part_name = {"c64": "f32", "c128": "f64"}.get(name, name)
    for xs in parts:
        for i in range(len(xs)):
            exact = Fraction(1) if body == "multiply" else Fraction(0)
            for x in xs[i:]:
                if not np.isfinite(x):
                    break
                exact = exact * Fraction(x) if body == "multiply" else exact + Fraction(x)
                try:
                    if Fraction(float(to_f64(_float_of(exact, part_name)))) != exact:
                        return False
                except (UndefinedResult, OverflowError):
                    return False
    return True


def window_lists(x: np.ndarray, init: np.ndarray, attributes: Mapping[str, Any]) -> dict[tuple, list]:
    """reduce_window's windows: result index -> the window's values (padding and holes hold init)."""
    rank = x.ndim
    dims = attributes["window_dimensions"]
    strides = attributes.get("window_strides", [1] * rank)
    base = attributes.get("base_dilations", [1] * rank)
    wdil = attributes.get("window_dilations", [1] * rank)
    padding = attributes.get("padding", [[0, 0]] * rank)
    padded = _pad(x, init[()], [p[0] for p in padding], [p[1] for p in padding], [b - 1 for b in base])
    out_shape = _windows(padded.shape, dims, strides, wdil)
    return {index: [padded[tuple(i * s + k * d for i, s, k, d in zip(index, strides, offset, wdil))]
                    for offset in np.ndindex(tuple(dims))] for index in np.ndindex(out_shape)}


# --------------------------------------------------------------------------------------------- reduce
@spec_op("reduce", classes=ALL_CLASSES, op_class="reduction", exact=False)
def reduce(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
           results: Sequence[TensorType]) -> Result:
    """spec #reduce: body over an implementation-defined tree of the slice's elements in index order and any
    number of init values. One input; attributes {"dimensions": [...], "body": one of BODIES}."""
    if len(operands) != 2:
        raise ValueError("this reference reduces one input at a time")
    x, init = operands
    dims = [int(d) for d in attributes["dimensions"]]
    keep = [d for d in range(x.ndim) if d not in dims]
    moved = np.transpose(x, keep + dims)
    out_shape = tuple(x.shape[d] for d in keep)
    flat = moved.reshape(out_shape + (-1,))
    name = results[0].dtype
    out = np.empty(out_shape, dtype=np_dtype(name))
    for index in np.ndindex(out_shape):
        out[index] = reduce_values(attributes["body"], list(flat[index]), init[()], name)
    return [out]


def _pad(x: np.ndarray, value: Any, low: Sequence[int], high: Sequence[int], interior: Sequence[int]) -> np.ndarray:
    """spec #pad with non-negative amounts."""
    if min(list(low) + list(high) + list(interior)) < 0:
        raise ValueError("this reference pads by non-negative amounts only")
    shape = tuple(lo + (d - 1) * (i + 1) + 1 + hi if d else lo + hi
                  for d, lo, hi, i in zip(x.shape, low, high, interior))
    out = np.full(shape, value, dtype=x.dtype)
    out[tuple(slice(lo, lo + (d - 1) * (i + 1) + 1 if d else lo, i + 1)
              for d, lo, i in zip(x.shape, low, interior))] = x
    return out


def _windows(shape: Sequence[int], dims: Sequence[int], strides: Sequence[int], dilations: Sequence[int]) -> tuple:
    """The number of windows per dimension (spec #reduce_window (C15) on an already padded shape)."""
    counts = []
    for size, w, s, d in zip(shape, dims, strides, dilations):
        span = (w - 1) * d + 1
        counts.append(0 if size == 0 or span > size else (size - span) // s + 1)
    return tuple(counts)


@spec_op("reduce_window", classes=ALL_CLASSES, op_class="reduction", exact=False)
def reduce_window(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                  results: Sequence[TensorType]) -> Result:
    """spec #reduce_window: pad with init (interior base_dilations - 1), take strided dilated windows and
    reduce each like spec #reduce. One input; attributes window_dimensions, window_strides, base_dilations,
    window_dilations, padding ([[lo, hi], ...]), body."""
    x, init = operands
    windows = window_lists(x, init, attributes)
    shape = max(windows, default=None)
    out_shape = tuple(i + 1 for i in shape) if shape is not None else results[0].shape
    name = results[0].dtype
    out = np.empty(out_shape, dtype=np_dtype(name))
    for index, values in windows.items():
        out[index] = reduce_values(attributes["body"], values, init[()], name)
    return [out]


# ------------------------------------------------------------------------------------------ comparisons
def _total_key(x: float) -> int:
    """IEEE-754 totalOrder as an integer key: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN."""
    bits = int(np.array(x, dtype=np.float64).view(np.uint64))
    magnitude = bits & 0x7FFF_FFFF_FFFF_FFFF
    return -magnitude - 1 if bits >> 63 else magnitude


def compare_values(x: Any, y: Any, cmp: Mapping[str, str], name: str, reading: str = "strict") -> bool:
    """compare(x, y, direction, type) for LT/LE/GT/GE on one element pair (spec #compare).

    TOTALORDER is "the combination of totalOrder and compareQuietEqual": reading "strict" takes the strict
    total order (-0 < +0); reading "quiet" takes totalOrder(x, y) and not compareQuietEqual(x, y)."""
    direction, kind = cmp["direction"], cmp.get("type", "FLOAT")
    if direction in ("GT", "GE"):
        x, y = y, x
    strict = direction in ("LT", "GT")
    cls = class_of(name)
    if cls == "complex" and variants.current().complex_order == "real":
        re_x, re_y = complex(x).real, complex(y).real
        return re_x < re_y if strict else re_x <= re_y
    if cls == "complex":
        a, b = complex(x), complex(y)
        if strict:
            return a.real < b.real or (a.real == b.real and a.imag < b.imag)
        return a.real < b.real or (a.real == b.real and a.imag <= b.imag)
    if cls != "float":
        return int(x) < int(y) if strict else int(x) <= int(y)
    a, b = float(to_f64(np.asarray(x))), float(to_f64(np.asarray(y)))
    if variants.current().compare_flushes_subnormals:
        tiny = float(dtypes.finfo(name).tiny)
        a, b = (math.copysign(0.0, v) if abs(v) < tiny else v for v in (a, b))
    if kind == "FLOAT":
        return a < b if strict else a <= b
    ka, kb = _total_key(a), _total_key(b)
    if reading == "strict":
        return ka < kb if strict else ka <= kb
    return (ka <= kb and not a == b) if strict else (ka <= kb or a == b)


def _is_strict_weak_order(items: Sequence[Any], less: Callable[[Any, Any], bool]) -> bool:
    """Whether `less` strictly weakly orders the slice's elements (compared at distinct positions, as a sort
    compares them: a NaN that is "less" than itself under one TOTALORDER reading is no obstacle)."""
    n = len(items)
    lt = [[i != j and less(items[i], items[j]) for j in range(n)] for i in range(n)]
    if any(lt[i][j] and lt[j][i] for i in range(n) for j in range(n)):
        return False
    for i, j, k in itertools.permutations(range(n), 3):
        if lt[i][j] and lt[j][k] and not lt[i][k]:
            return False
        equiv_ij = not lt[i][j] and not lt[j][i]
        equiv_jk = not lt[j][k] and not lt[k][j]
        if equiv_ij and equiv_jk and (lt[i][k] or lt[k][i]):
            return False
    return True


def _sort_slice(rows: list[tuple], less: Callable[[Any, Any], bool], stable: bool) -> list[tuple]:
    keys = [r[0] for r in rows]
    if not _is_strict_weak_order(keys, less):
        raise UndefinedResult("the comparator is not a strict weak order on this slice")
    def order(a: tuple, b: tuple) -> int:
        return -1 if less(a[0], b[0]) else (1 if less(b[0], a[0]) else 0)

    ordered = sorted(rows, key=functools.cmp_to_key(order))
    if not stable and variants.current().is_spec:  # a deviation's hypothesis: the stable order, the usual one
        for i in range(len(ordered)):
            for j in range(i + 1, len(ordered)):
                a, b = ordered[i], ordered[j]
                if not less(a[0], b[0]) and not less(b[0], a[0]) and \
                        any(np.asarray(u).tobytes() != np.asarray(v).tobytes() for u, v in zip(a, b)):
                    raise UndefinedResult("an unstable sort may order comparator-equal elements either way")
    return ordered


@spec_op("sort", classes=ALL_CLASSES, op_class="exact")
def sort(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Result:
    """spec #sort: 1-D slices along `dimension` (negative counts from the end) sorted together into
    non-descending order of the comparator, which compares operand 0 only here (attributes {"comparator":
    {"direction", "type"}, "dimension", "is_stable"}); a stable sort keeps comparator-equal elements in order."""
    name = results[0].dtype
    rank = operands[0].ndim
    dim = int(attributes["dimension"])
    dim = dim if dim >= 0 else rank + dim
    moved = [np.moveaxis(x, dim, -1) for x in operands]
    readings = ("strict", "quiet") if attributes["comparator"].get("type") == "TOTALORDER" else ("strict",)
    outs = [np.empty_like(m) for m in moved]
    for index in np.ndindex(moved[0].shape[:-1]):
        rows = list(zip(*[m[index] for m in moved]))
        candidates = []
        for reading in readings:
            less = functools.partial(_less_key, cmp=attributes["comparator"], name=name, reading=reading)
            candidates.append(_sort_slice(rows, less, bool(attributes["is_stable"])))
        if any(any(np.asarray(u).tobytes() != np.asarray(v).tobytes() for ra, rb in zip(candidates[0], c)
                   for u, v in zip(ra, rb)) for c in candidates[1:]):
            raise UndefinedResult("TOTALORDER's two readings order this slice differently")
        for k, out in enumerate(outs):
            out[index] = [row[k] for row in candidates[0]]
    return [np.moveaxis(o, -1, dim) for o in outs]


def _less_key(x: Any, y: Any, *, cmp: Mapping[str, str], name: str, reading: str) -> bool:
    return compare_values(x, y, cmp, name, reading)


# -------------------------------------------------------------------------------------- select_and_scatter
@spec_op("select_and_scatter", classes=ALL_CLASSES, op_class="reduction", exact=False)
def select_and_scatter(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                       results: Sequence[TensorType]) -> Result:
    """spec #select_and_scatter: each window of `operand` selects one element by folding
    `select(a, b) ? a : b` (a compare: {"select": {"direction", "type"}}); `source` values are reduced with
    `scatter` (a body name) and init into the selected positions; positions never selected hold init.

    With a compare that is a total preorder (no NaN) every tree selects the same element: GE/LE the first
    extreme in index order, GT/LT the last."""
    operand, source, init = operands
    name = results[0].dtype
    rank = operand.ndim
    dims = attributes["window_dimensions"]
    strides = attributes.get("window_strides", [1] * rank)
    padding = attributes.get("padding", [[0, 0]] * rank)
    select = attributes["select"]
    chosen: dict[tuple, list] = {index: [] for index in np.ndindex(operand.shape)}
    for s_index in np.ndindex(source.shape):
        positions = []
        for offset in np.ndindex(tuple(dims)):
            pos = tuple(i * s + k - p[0] for i, s, k, p in zip(s_index, strides, offset, padding))
            if all(0 <= q < d for q, d in zip(pos, operand.shape)):
                positions.append(pos)
        if not positions:
            raise UndefinedResult("a window of only padding selects nothing (spec: currently unspecified)")
        values = [operand[p] for p in positions]
        if class_of(name) in ("float", "complex") and any(np.isnan(to_f64(np.asarray(v)).astype(
                np.complex128)) for v in values):
            raise UndefinedResult("a window with NaN: the selected element depends on the tree")
        best = 0
        for i in range(1, len(values)):  # the left fold: select(best, v) ? best : v
            if not compare_values(values[best], values[i], select, name):
                best = i
        chosen[positions[best]].append(source[s_index])
    out = np.empty(operand.shape, dtype=np_dtype(name))
    for index, values in chosen.items():
        out[index] = reduce_values(attributes["scatter"], values, init[()], name)
    return [out]


# ---------------------------------------------------------------------------------------- dot products
def dot_product(xs: Sequence[Any], ys: Sequence[Any], in_name: str, out_name: str) -> Any:
    """sum(x * y) per spec #dot_general: reduce(multiply) with init 0 (any number of them) and any tree."""
    cls = class_of(in_name)
    if cls == "bool":
        return any(bool(x) and bool(y) for x, y in zip(xs, ys))
    if cls in ("signed", "unsigned"):
        products = [int(x) * int(y) for x, y in zip(xs, ys)]
        total = sum(products)
        if in_name != out_name:
            lo, hi = int_range(in_name)
            partial = itertools.accumulate(products)
            if any(not lo <= v <= hi for v in list(products) + list(partial)):
                raise UndefinedResult("a product or partial sum leaves the operand type: in which type the "
                                      "spec forms them is not said")
        _no_overflow(sum(p for p in products if p > 0), sum(p for p in products if p < 0), out_name)
        return wrap(np.array(total, dtype=object), out_name)[()]
    if cls == "complex":
        zx, zy = [complex(x) for x in xs], [complex(y) for y in ys]
        if not all(np.isfinite(z.real) and np.isfinite(z.imag) for z in zx + zy):
            raise UndefinedResult("complex dot products with non-finite parts are left out")
        part = "f32" if out_name == "c64" else "f64"
        re = sum((Fraction(a.real) * Fraction(b.real) - Fraction(a.imag) * Fraction(b.imag)
                  for a, b in zip(zx, zy)), Fraction(0))
        im = sum((Fraction(a.real) * Fraction(b.imag) + Fraction(a.imag) * Fraction(b.real)
                  for a, b in zip(zx, zy)), Fraction(0))
        return complex(float(_float_of(re, part)), float(_float_of(im, part)))
    fx = [float(v) for v in to_f64(np.asarray(xs, dtype=np_dtype(in_name)))]
    fy = [float(v) for v in to_f64(np.asarray(ys, dtype=np_dtype(in_name)))]
    terms, negative_zero = zip(*[_product_term(a, b) for a, b in zip(fx, fy)]) if fx else ((), ())
    if terms and all(negative_zero):
        raise UndefinedResult("every product is -0: the sum is -0 without init values, +0 with one")
    return exact_sum(list(terms), [False], out_name)[()]



@spec_op("dot_general", classes=ALL_CLASSES, op_class="matmul", exact=False)
def dot_general(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                results: Sequence[TensorType]) -> Result:
    """spec #dot_general: result[batch, lhs_free, rhs_free] = sum over the contracting dimensions of
    lhs * rhs (integers wrap; booleans: OR of ANDs; floats: exact, rounded once). Attributes
    lhs_batching_dimensions, rhs_batching_dimensions, lhs_contracting_dimensions, rhs_contracting_dimensions;
    precision_config does not change the spec's value."""
    lhs, rhs = operands
    lb, rb = list(attributes.get("lhs_batching_dimensions", [])), list(attributes.get("rhs_batching_dimensions", []))
    lc, rc = list(attributes["lhs_contracting_dimensions"]), list(attributes["rhs_contracting_dimensions"])
    lr = [d for d in range(lhs.ndim) if d not in lb + lc]
    rr = [d for d in range(rhs.ndim) if d not in rb + rc]
    batch = tuple(lhs.shape[d] for d in lb)
    lfree, rfree = tuple(lhs.shape[d] for d in lr), tuple(rhs.shape[d] for d in rr)
    k = int(np.prod([lhs.shape[d] for d in lc], dtype=np.int64))
    lt = np.transpose(lhs, lb + lr + lc).reshape(batch + lfree + (k,))
    rt = np.transpose(rhs, rb + rr + rc).reshape(batch + rfree + (k,))
    in_name, out_name = dtypes.name_of(lhs.dtype), results[0].dtype
    out = np.empty(batch + lfree + rfree, dtype=np_dtype(out_name))
    for index in np.ndindex(out.shape):
        b, i, j = index[:len(batch)], index[len(batch):len(batch) + len(lfree)], index[len(batch) + len(lfree):]
        out[index] = dot_product(list(lt[b + i]), list(rt[b + j]), in_name, out_name)
    return [out]



# --------------------------------------------------------------------------------------------- convolution
@spec_op("convolution", classes=ALL_CLASSES, op_class="matmul", exact=False)
def convolution(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                results: Sequence[TensorType]) -> Result:
    """spec #convolution: dot products of zero-padded, lhs-dilated windows (strided, rhs-dilated) of lhs with
    rhs, split into feature_group_count / batch_group_count groups. Attributes: "dimension_numbers" {
    input_batch, input_feature, input_spatial, kernel_input_feature, kernel_output_feature, kernel_spatial,
    output_batch, output_feature, output_spatial}, window_strides, padding, lhs_dilation, rhs_dilation,
    feature_group_count, batch_group_count (no window_reversal)."""
    lhs, rhs = operands
    dn = attributes["dimension_numbers"]
    lhs_c = np.transpose(lhs, [dn["input_batch"], dn["input_feature"]] + list(dn["input_spatial"]))
    rhs_c = np.transpose(rhs, [dn["kernel_output_feature"], dn["kernel_input_feature"]] + list(dn["kernel_spatial"]))
    out_name = results[0].dtype
    canonical = _grouped_conv(lhs_c, rhs_c, attributes, dtypes.name_of(lhs.dtype), out_name)
    order = [dn["output_batch"], dn["output_feature"]] + list(dn["output_spatial"])
    return [np.transpose(canonical, list(np.argsort(order)))]


def _grouped_conv(lhs: np.ndarray, rhs: np.ndarray, attributes: Mapping[str, Any], in_name: str,
                  out_name: str) -> np.ndarray:
    features, batches = int(attributes.get("feature_group_count", 1)), int(attributes.get("batch_group_count", 1))
    if features > 1:
        parts = zip(np.split(lhs, features, axis=1), np.split(rhs, features, axis=0))
    elif batches > 1:
        parts = zip(np.split(lhs, batches, axis=0), np.split(rhs, batches, axis=0))
    else:
        return _conv(lhs, rhs, attributes, in_name, out_name)
    return np.concatenate([_conv(a, b, attributes, in_name, out_name) for a, b in parts], axis=1)


def _conv(lhs: np.ndarray, rhs: np.ndarray, attributes: Mapping[str, Any], in_name: str,
          out_name: str) -> np.ndarray:
    """One group, canonical layouts: lhs [N, C, S...], rhs [O, C, K...] -> [N, O, W...]."""
    spatial = lhs.ndim - 2
    strides = attributes.get("window_strides", [1] * spatial)
    padding = attributes.get("padding", [[0, 0]] * spatial)
    lhs_dil = attributes.get("lhs_dilation", [1] * spatial)
    rhs_dil = attributes.get("rhs_dilation", [1] * spatial)
    zero = np.zeros((), dtype=lhs.dtype)[()]
    padded = _pad(lhs, zero, [0, 0] + [p[0] for p in padding], [0, 0] + [p[1] for p in padding],
                  [0, 0] + [d - 1 for d in lhs_dil])
    kernel = rhs.shape[2:]
    windows = _windows(padded.shape[2:], kernel, strides, rhs_dil)
    out = np.empty((lhs.shape[0], rhs.shape[0]) + windows, dtype=np_dtype(out_name))
    for n, o in itertools.product(range(lhs.shape[0]), range(rhs.shape[0])):
        for w in np.ndindex(windows):
            xs, ys = [], []
            for c in range(lhs.shape[1]):
                for k in np.ndindex(kernel):
                    xs.append(padded[(n, c) + tuple(i * s + j * d for i, s, j, d in zip(w, strides, k, rhs_dil))])
                    ys.append(rhs[(o, c) + k])
            out[(n, o) + w] = dot_product(xs, ys, in_name, out_name)
    return out


# -------------------------------------------------------------------------------------------------- map
@spec_op("map", classes=ALL_CLASSES, op_class="arith", exact=True)
def map_(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Result:
    """spec #map: result[i] = computation(inputs[0][i], inputs[1][i]); the computation is one binary
    elementwise op ({"computation": "add"}), IEEE-754 correctly rounded for floats, wrapping for integers."""
    a, b = operands
    return [apply_body(attributes["computation"], a, b, results[0].dtype)]


# -------------------------------------------------------------------------------------------------- fft
@spec_op("fft", classes=("float", "complex"), op_class="fft", exact=False)
def fft(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Result:
    """spec #fft: FFT / IFFT (its inverse, 1/n scaled) over the last size(fft_length) dimensions; RFFT keeps
    the first n/2 + 1 outputs of the innermost transform; IRFFT inverts RFFT. Real types: f32 and f64 only
    (the types with a complex counterpart); computed in float64/complex128 and rounded."""
    (x,) = operands
    kind, lengths = attributes["fft_type"], [int(n) for n in attributes["fft_length"]]
    axes = tuple(range(x.ndim - len(lengths), x.ndim))
    wide = to_f64(x) if x.dtype.kind != "c" else x.astype(np.complex128)
    if not np.isfinite(wide).all():
        raise UndefinedResult("FFT of non-finite values is left out")
    out: np.ndarray  # complex for FFT/IFFT/RFFT, real for IRFFT
    if kind == "FFT":
        out = np.fft.fftn(wide, axes=axes)
    elif kind == "IFFT":
        out = np.fft.ifftn(wide, axes=axes)
    elif kind == "RFFT":
        out = np.fft.rfftn(wide, s=lengths, axes=axes)
    else:
        out = np.fft.irfftn(wide, s=lengths, axes=axes)
    return [out.astype(np_dtype(results[0].dtype))]


# ---------------------------------------------------------------------------------------------- batch norm
def _feature_view(shape: tuple[int, ...], feature: int) -> tuple[int, ...]:
    return tuple(d if i == feature else 1 for i, d in enumerate(shape))


def _mean(x: np.ndarray, feature: int) -> np.ndarray:
    axes = tuple(i for i in range(x.ndim) if i != feature)
    return x.sum(axis=axes) / (x.size // x.shape[feature])


def _round_all(values: Sequence[np.ndarray], name: str) -> Result:
    return [round_to(v, name) for v in values]


@spec_op("batch_norm_inference", classes=("float",), op_class="normalization", exact=False)
def batch_norm_inference(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                         results: Sequence[TensorType]) -> Result:
    """spec #batch_norm_inference: scale * (x - mean) / sqrt(variance + epsilon) + offset per feature
    (computed in float64, rounded once)."""
    x, scale, offset, mean, variance = [to_f64(o) for o in operands]
    f, eps = int(attributes["feature_index"]), float(np.float32(attributes["epsilon"]))
    view = _feature_view(x.shape, f)
    stddev = np.sqrt(variance.reshape(view) + eps)
    out = scale.reshape(view) * ((x - mean.reshape(view)) / stddev) + offset.reshape(view)
    return _round_all([out], results[0].dtype)


@spec_op("batch_norm_training", classes=("float",), op_class="normalization", exact=False)
def batch_norm_training(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                        results: Sequence[TensorType]) -> Result:
    """spec #batch_norm_training: batch mean and (biased) variance over all but feature_index, then
    batch_norm_inference with them; results output, batch_mean, batch_var."""
    x, scale, offset = [to_f64(o) for o in operands]
    f, eps = int(attributes["feature_index"]), float(np.float32(attributes["epsilon"]))
    view = _feature_view(x.shape, f)
    mean = _mean(x, f)
    var = _mean((x - mean.reshape(view)) ** 2, f)
    out = scale.reshape(view) * ((x - mean.reshape(view)) / np.sqrt(var.reshape(view) + eps)) + offset.reshape(view)
    return _round_all([out, mean, var], results[0].dtype)


@spec_op("batch_norm_grad", classes=("float",), op_class="normalization", exact=False)
def batch_norm_grad(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                    results: Sequence[TensorType]) -> Result:
    """spec #batch_norm_grad: the spec's decomposition (after XLA's batchnorm_expander), in float64:
    grad_operand = scale / stddev / m * (m * dy - sum(dy) - (x - mean) * sum(dy * (x - mean)) / (var + eps)),
    grad_scale = sum(dy * (x - mean) / stddev), grad_offset = sum(dy); m = elements per feature."""
    x, scale, mean, var, dy = [to_f64(o) for o in operands]
    f, eps = int(attributes["feature_index"]), float(np.float32(attributes["epsilon"]))
    view = _feature_view(x.shape, f)
    axes = tuple(i for i in range(x.ndim) if i != f)
    centered = x - mean.reshape(view)
    var_eps = var.reshape(view) + eps
    stddev = np.sqrt(var_eps)
    m = x.size // x.shape[f]
    i3 = (dy * centered).sum(axis=axes).reshape(view)
    grad_operand = scale.reshape(view) / stddev / m * (dy * m - dy.sum(axis=axes).reshape(view)
                                                       - i3 * centered / var_eps)
    grad_scale = (dy * (centered / stddev)).sum(axis=axes)
    grad_offset = dy.sum(axis=axes)
    return _round_all([grad_operand, grad_scale, grad_offset], results[0].dtype)


# ------------------------------------------------------------------------------------------ linear algebra
def _to_type(values: np.ndarray, name: str) -> np.ndarray:
    if class_of(name) == "complex":
        return values.astype(np_dtype(name))
    return round_to(values.real if np.iscomplexobj(values) else values, name)


@spec_op("cholesky", classes=("float", "complex"), op_class="linalg", exact=False)
def cholesky(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
             results: Sequence[TensorType]) -> Result:
    """spec #cholesky: per batch matrix, L with A = L L^H (lower) or U with A = U^H U (upper). The opposite
    strict triangle is implementation-defined: returned as zeros here (cases mask it in the program).
    Non-Hermitian-positive-definite input is undefined."""
    (a,) = operands
    complex_ = a.dtype.kind == "c"
    wide = a.astype(np.complex128) if complex_ else to_f64(a)
    lower = bool(attributes["lower"])
    out = np.zeros(wide.shape, dtype=wide.dtype)
    for index in np.ndindex(wide.shape[:-2]):
        m = wide[index]
        if not np.allclose(m, m.conj().T, rtol=0, atol=0) or np.any(np.linalg.eigvalsh(m) <= 0):
            raise UndefinedResult("cholesky of a matrix that is not Hermitian positive-definite")
        factor = np.linalg.cholesky(m)
        out[index] = factor if lower else factor.conj().T
    return [_to_type(out, results[0].dtype)]


@spec_op("triangular_solve", classes=("float", "complex"), op_class="linalg", exact=False)
def triangular_solve(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                     results: Sequence[TensorType]) -> Result:
    """spec #triangular_solve: x with op(a) x = b (left_side) or x op(a) = b, op = as-is / transpose /
    conjugate transpose; a is read only in its `lower` (else upper) triangle; unit_diagonal promises a
    diagonal of ones (any other diagonal is undefined)."""
    a, b = operands
    complex_ = a.dtype.kind == "c"
    wa = a.astype(np.complex128) if complex_ else to_f64(a)
    wb = b.astype(np.complex128) if complex_ else to_f64(b)
    lower, unit = bool(attributes["lower"]), bool(attributes["unit_diagonal"])
    out = np.zeros(wb.shape, dtype=np.complex128 if complex_ else np.float64)
    part = {"c64": "f32", "c128": "f64"}.get(results[0].dtype, results[0].dtype)
    for index in np.ndindex(wa.shape[:-2]):
        m = np.tril(wa[index]) if lower else np.triu(wa[index])
        if unit and not np.all(np.diagonal(m) == 1):
            raise UndefinedResult("unit_diagonal with a diagonal that is not 1")
        op = {"NO_TRANSPOSE": m, "TRANSPOSE": m.T, "ADJOINT": m.conj().T}[attributes["transpose_a"]]
        rhs = wb[index] if attributes["left_side"] else wb[index].T
        x = _solve_exact(op if attributes["left_side"] else op.T, rhs)
        x = x if attributes["left_side"] else [list(col) for col in zip(*x)]
        out[index] = [[_complex_value(v, part) if complex_ else float(_float_of(v[0], part)) for v in row]
                      for row in x]
    return [_to_type(out, results[0].dtype)]


def _complex_value(v: tuple[Fraction, Fraction], part: str) -> complex:
    return complex(float(_float_of(v[0], part)), float(_float_of(v[1], part)))


Exact = tuple[Fraction, Fraction]  # an exact complex number (real, imaginary)


def _mul(a: Exact, b: Exact) -> Exact:
    return (a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0])


def _div(a: Exact, b: Exact) -> Exact:
    norm = b[0] * b[0] + b[1] * b[1]
    if norm == 0:
        raise UndefinedResult("a singular triangular matrix")
    return _mul(a, (b[0] / norm, -b[1] / norm))


def _solve_exact(m: np.ndarray, b: np.ndarray) -> list[list[Exact]]:
    """x with m x = b for a triangular m, by substitution in exact rational (complex) arithmetic."""
    n = m.shape[0]
    exact = [[(Fraction(complex(v).real), Fraction(complex(v).imag)) for v in row] for row in m]
    rhs = [[(Fraction(complex(v).real), Fraction(complex(v).imag)) for v in row] for row in b]
    lower = all(m[i, j] == 0 for i in range(n) for j in range(i + 1, n))
    order = range(n) if lower else range(n - 1, -1, -1)
    x: list[list[Exact]] = [[(Fraction(0), Fraction(0))] * b.shape[1] for _ in range(n)]
    for i in order:
        for c in range(b.shape[1]):
            acc = rhs[i][c]
            for j in range(n):
                if j != i and (exact[i][j][0] or exact[i][j][1]):
                    p = _mul(exact[i][j], x[j][c])
                    acc = (acc[0] - p[0], acc[1] - p[1])
            x[i][c] = _div(acc, exact[i][i])
    return x
