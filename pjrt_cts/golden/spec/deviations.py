"""Naming the defect behind a wrong value: recompute a case under each known deviation from the spec and see which
one reproduces the plugin's output.

A hypothesis is the spec reference evaluated with one or more deviations applied: operand/result transforms
(subnormals flushed, f64 carried in f32) around `registry.evaluate`, and op semantics the op definitions read
from `variants.current()` (maximum/minimum with NaN or ±0, complex order, convert rounding), so a reduction,
window or map whose body is maximum gets the deviation too. `explain` tries each deviation alone, then pairs
and triples of them (XLA:CPU's maximum both drops NaN and ignores the sign of zero), and names the smallest
set that reproduces the output under the case's own comparison.

Cases: the spec family (`case.spec`), and XLA-derived cases whose program is one `convert` (the only place a
convert rounds: the spec gives no value to an inexact convert, so spec cases convert exactly).
numpy/ml_dtypes only, like the rest of the spec reference: no runtime, no plugin.
"""
from __future__ import annotations

import dataclasses
import itertools
import warnings
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.compare import matches
from pjrt_cts.golden.spec import registry, variants
from pjrt_cts.golden.spec.numeric import round_to
from pjrt_cts.golden.spec.types import class_of
from pjrt_cts.golden.tolerance import EXACT, Tolerance

DEVIATION_IDS: tuple[str, ...] = (
    "subnormals-flushed",
    "nan-not-propagated-by-max-min",
    "signed-zero-ignored-by-max-min",
    "complex-ordered-by-real-part",
    "f64-computed-in-f32",
    "convert-rounds-toward-zero",
)

# Hypotheses evaluated per explain() at most: each is one evaluation of the spec reference, in Python.
MAX_EVALUATIONS = 128
MAX_COMBINED = 3  # deviations combined in one hypothesis
ALONE = frozenset({"f64-computed-in-f32"})  # a whole other precision: not combined with the op-level deviations

_WIDE_TO_NARROW = {"f64": "f32", "c128": "c64"}
_F32_OVER_F64_EPS = 2.0 ** 29  # eps(f32) / eps(f64): a tolerance in units of eps, moved to f32


@dataclasses.dataclass(frozen=True)
class Hypothesis:
    """One way of computing a case other than the spec's."""

    semantics: variants.Semantics = variants.SPEC
    daz: bool = False  # subnormal float operands read as zeros of their sign
    ftz: bool = False  # subnormal float results flushed to zeros of their sign
    # f64/c128 carried in f32/c64: "compute" (operands rounded to f32, op evaluated in f32) or "store" (the
    # f64 result rounded to f32); results come back widened to f64
    narrow: str | None = None

    def merged(self, other: "Hypothesis") -> "Hypothesis":
        """Both hypotheses at once (deviations change disjoint fields)."""
        semantics = dataclasses.replace(self.semantics, **{
            f.name: getattr(other.semantics, f.name) for f in dataclasses.fields(variants.Semantics)
            if getattr(other.semantics, f.name) != getattr(variants.SPEC, f.name)})
        return Hypothesis(semantics, self.daz or other.daz, self.ftz or other.ftz, self.narrow or other.narrow)


def _semantics(**fields: Any) -> Hypothesis:
    return Hypothesis(semantics=variants.Semantics(**fields))


# Each deviation's variants, tried in this order.
VARIANTS: dict[str, tuple[Hypothesis, ...]] = {
    "subnormals-flushed": (Hypothesis(daz=True), Hypothesis(ftz=True), Hypothesis(daz=True, ftz=True)),
    "nan-not-propagated-by-max-min": tuple(_semantics(max_min_nan=m) for m in ("non_nan", "first", "second")),
    "signed-zero-ignored-by-max-min": tuple(_semantics(max_min_zero=m) for m in ("first", "second")),
    "complex-ordered-by-real-part": tuple(_semantics(complex_order="real", complex_tie=t) for t in ("first", "second")),
    "f64-computed-in-f32": (Hypothesis(narrow="compute"), Hypothesis(narrow="store")),
    "convert-rounds-toward-zero": (_semantics(convert_rounding="toward_zero"),),
}

_MAX_MIN_OPS = frozenset({"maximum", "minimum", "clamp"})
_SELECTING_OPS = frozenset({"sort", "select_and_scatter"})  # move the operand's data, selected by a compare
COMPARE_FLUSHED = _semantics(compare_flushes_subnormals=True)
_ORDERING_OPS = frozenset({"compare", "sort", "select_and_scatter"}) | _MAX_MIN_OPS


@dataclasses.dataclass(frozen=True)
class _Problem:
    """A case as the diagnosis evaluates it."""

    op: str
    attributes: Mapping[str, Any]
    results: tuple[registry.TensorType, ...]
    inputs: tuple[np.ndarray, ...]
    expected: tuple[np.ndarray, ...]
    tolerance: Tolerance  # EXACT where the spec defines every bit
    from_spec: bool  # a spec-family case (else an XLA-derived single convert)


def _problem(case: Any, inputs: Sequence[np.ndarray]) -> _Problem | None:
    """The case to evaluate, or None where the diagnosis has no reference for it."""
    spec = getattr(case, "spec", None)
    if getattr(case, "is_multi_device", False) or getattr(case, "large", None) is not None:
        return None
    if spec is not None:
        results: tuple[registry.TensorType, ...] = tuple(registry.TensorType.from_json(r) for r in spec["results"])
        op, attributes, tolerance = spec["op"], dict(case.attributes), EXACT if spec.get("exact") else case.tolerance
    elif tuple(case.ops) == ("stablehlo.convert",) and len(case.input_specs) == 1 and len(case.output_specs) == 1:
        out = case.output_specs[0]
        results = (registry.TensorType(tuple(out["shape"]), out["dtype"]),)
        op, attributes, tolerance = "convert", {}, case.tolerance
    else:
        return None
    expected = tuple(np.asarray(e) for e in case.expected_rows()[0])
    return _Problem(op, attributes, results, tuple(np.asarray(x) for x in inputs), expected, tolerance, spec is not None)


# ----------------------------------------------------------------------------------------------- value facts
def _cls(array: np.ndarray) -> str | None:
    try:
        return class_of(dtypes.name_of(array.dtype))
    except ValueError:
        return None


def _parts(array: np.ndarray) -> list[np.ndarray]:
    """A float or complex array's components as float64 (none for other types)."""
    cls = _cls(array)
    if cls == "complex":
        return [array.real.astype(np.float64), array.imag.astype(np.float64)]
    if cls == "float":
        return [array.astype(np.float64)]
    return []


def _subnormal(array: np.ndarray) -> np.ndarray:
    """Where a float array's values (complex: either part) are subnormal in its own type."""
    tiny = float(dtypes.finfo(dtypes.name_of(array.dtype)).tiny)
    mask = np.zeros(array.shape, dtype=bool)
    for part in _parts(array):
        with np.errstate(invalid="ignore"):
            mask |= (part != 0) & (np.abs(part) < tiny)
    return mask


def _flush(array: np.ndarray) -> np.ndarray:
    """Subnormal values (each part of a complex) replaced by zeros of their sign (+0 in types without -0)."""
    cls = _cls(array)
    if cls == "complex":
        part = np.float32 if array.dtype == np.complex64 else np.float64
        out = np.empty_like(array)
        out.real = _flush(array.real.astype(part))
        out.imag = _flush(array.imag.astype(part))
        return out
    if cls != "float" or not _subnormal(array).any():
        return array
    mask = _subnormal(array)
    out = array.copy()
    out[mask] = round_to(np.copysign(0.0, array[mask].astype(np.float64)), dtypes.name_of(array.dtype))
    return out


def _narrow(array: np.ndarray) -> np.ndarray:
    """f64 rounded to nearest f32, c128 to c64 (overflow to infinity); other types unchanged."""
    name = dtypes.name_of(array.dtype)
    if name == "f64":
        return round_to(array, "f32")
    if name == "c128":
        with np.errstate(over="ignore"):
            return array.astype(np.complex64)
    return array


def _attribute_strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _attribute_strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _attribute_strings(v)


def _uses_max_min(problem: _Problem) -> bool:
    """maximum/minimum/clamp, or a region (reduce body, map computation, scatter) that is maximum/minimum."""
    return problem.op in _MAX_MIN_OPS or bool({"maximum", "minimum"} & set(_attribute_strings(problem.attributes)))


def _candidates(problem: _Problem) -> dict[str, list[Hypothesis]]:
    """The deviations that can change this case's value, each with its variants that can."""
    floats = [x for x in problem.inputs if _cls(x) in ("float", "complex")]
    types = {dtypes.name_of(x.dtype) for x in problem.inputs} | {r.dtype for r in problem.results}
    out: dict[str, list[Hypothesis]] = {}
    if not problem.from_spec:  # an XLA-derived convert: only the convert's own rounding is in question
        source, target = dtypes.name_of(problem.inputs[0].dtype), problem.results[0].dtype
        if {class_of(source), class_of(target)} <= {"float", "complex"}:
            out["convert-rounds-toward-zero"] = list(VARIANTS["convert-rounds-toward-zero"])
        return out
    subnormal_in = any(_subnormal(x).any() for x in floats)
    subnormal_out = any(_subnormal(e).any() for e in problem.expected if _cls(e) in ("float", "complex"))
    flushes = [h for h in VARIANTS["subnormals-flushed"] if (subnormal_in if h.daz else subnormal_out)]
    if subnormal_in and (problem.op in _SELECTING_OPS or _uses_max_min(problem)):
        # a flushing backend compares subnormals as zeros but may return the operand's bits unchanged (sort
        # only moves data: that is all flushing can do to it)
        flushes = [h for h in flushes if problem.op != "sort"] + [COMPARE_FLUSHED]
    if flushes:
        out["subnormals-flushed"] = flushes
    real_floats = [x.astype(np.float64) for x in floats if _cls(x) == "float"]
    if _uses_max_min(problem) and real_floats:
        if any(np.isnan(x).any() for x in real_floats):
            out["nan-not-propagated-by-max-min"] = list(VARIANTS["nan-not-propagated-by-max-min"])
        if any((x == 0).any() for x in real_floats) or subnormal_in:
            out["signed-zero-ignored-by-max-min"] = list(VARIANTS["signed-zero-ignored-by-max-min"])
    if (problem.op in _ORDERING_OPS or _uses_max_min(problem)) and any(_cls(x) == "complex" for x in floats):
        ties = problem.op != "compare" and problem.op != "sort"  # only maximum/minimum pick an operand on a tie
        out["complex-ordered-by-real-part"] = list(VARIANTS["complex-ordered-by-real-part"][:2 if ties else 1])
    if types & set(_WIDE_TO_NARROW):
        out["f64-computed-in-f32"] = list(VARIANTS["f64-computed-in-f32"])
    if problem.op == "convert" and {class_of(t) for t in types} <= {"float", "complex"}:
        out["convert-rounds-toward-zero"] = list(VARIANTS["convert-rounds-toward-zero"])
    return out


def _orders(problem: _Problem, hypothesis: Hypothesis) -> list[Hypothesis]:
    """The hypothesis, and for clamp under a maximum that does not commute, with maximum's operands swapped
    (maximum(min_val, operand): the spec's formula names the operand first, an implementation may not)."""
    if problem.op != "clamp" or hypothesis.semantics == variants.SPEC:
        return [hypothesis]
    swapped = dataclasses.replace(hypothesis.semantics, clamp_bound_first=True)
    return [hypothesis, dataclasses.replace(hypothesis, semantics=swapped)]


# ------------------------------------------------------------------------------------------------- evaluate
def _evaluate(problem: _Problem, hypothesis: Hypothesis) -> list[np.ndarray] | None:
    """The case's results under `hypothesis` (f64 results as f32 under `narrow`), None where it gives none."""
    inputs = list(problem.inputs)
    results = list(problem.results)
    if hypothesis.daz:
        inputs = [_flush(x) for x in inputs]
    if hypothesis.narrow == "compute":
        inputs = [_narrow(x) for x in inputs]
        results = [registry.TensorType(r.shape, _WIDE_TO_NARROW.get(r.dtype, r.dtype)) for r in results]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)  # parts of complex values read alone
            if hypothesis == Hypothesis(narrow="store"):
                outputs = list(problem.expected)  # the spec's value, only stored narrower
            else:
                with variants.using(hypothesis.semantics):
                    outputs = registry.evaluate(problem.op, inputs, problem.attributes, results)
            if hypothesis.narrow == "store":
                outputs = [_narrow(o) for o in outputs]
    except Exception:  # noqa: BLE001 - a hypothesis that gives no value (UndefinedResult, ...) explains nothing
        return None
    return [_flush(o) for o in outputs] if hypothesis.ftz else outputs


def _at_f32(tolerance: Tolerance) -> Tolerance:
    """The case's tolerance for a result carried in f32 instead of f64: the same number of (f32) eps and ulps."""
    if tolerance.kind != "rel":
        return tolerance  # exact stays exact; ulps are counted in the f32 values compared
    if tolerance.atol_basis == "smallest_normal":
        atol = float(dtypes.finfo("f32").tiny)
    elif tolerance.atol_basis in ("sum_abs_terms", "max_abs_output"):
        atol = tolerance.atol * _F32_OVER_F64_EPS
    else:
        atol = tolerance.atol
    return dataclasses.replace(tolerance, rtol=tolerance.rtol * _F32_OVER_F64_EPS, atol=atol)


def _agrees(problem: _Problem, actual: Sequence[Any], values: Sequence[np.ndarray], narrowed: bool = False) -> bool:
    """Whether `actual` is `values` under the case's comparison; `narrowed`: values of f64/c128 results are
    f32/c64, and the actual f64 values must be f32 values (widened) within the tolerance moved to f32."""
    if len(actual) != len(values):
        return False
    for got, want, declared in zip(actual, values, problem.results):
        got = np.asarray(got)
        tolerance = problem.tolerance
        if narrowed and declared.dtype in _WIDE_TO_NARROW:
            if got.dtype != dtypes.dtype_of(declared.dtype):
                return False
            narrow = _narrow(got)
            with np.errstate(over="ignore"):
                widened = narrow.astype(got.dtype)
            if not matches(got, widened, EXACT):  # carries more than f32 precision or range
                return False
            got, tolerance = narrow, _at_f32(tolerance)
        if not matches(got, np.asarray(want), tolerance):
            return False
    return True


def _hypotheses(problem: _Problem, choices: Sequence[Sequence[Hypothesis]]) -> Iterable[Hypothesis]:
    """Every hypothesis combining one variant of each deviation."""
    for choice in itertools.product(*choices):
        hypothesis = choice[0]
        for other in choice[1:]:
            hypothesis = hypothesis.merged(other)
        yield from _orders(problem, hypothesis)


def applicable(case: Any, inputs: list[np.ndarray]) -> list[str]:
    """The deviations explain() tests on this case (those that can change its value), in DEVIATION_IDS order."""
    problem = _problem(case, inputs)
    if problem is None:
        return []
    with np.errstate(all="ignore"):
        candidates = _candidates(problem)
    return [d for d in DEVIATION_IDS if d in candidates]


def explain(case: Any, inputs: list[np.ndarray], actual: list[np.ndarray]) -> list[str]:
    """Ids of the deviations whose variant of the spec reference reproduces `actual` (under the case's own
    comparison: bit-exact where case.spec['exact'], else the case's tolerance via golden.compare) while the spec
    value does not. [] when none.

    Single deviations are tried first, then combinations of two and three (the smallest set that reproduces
    the output is named; every set of that size that does is included), at most MAX_EVALUATIONS evaluations."""
    problem = _problem(case, inputs)
    if problem is None or len(actual) != len(problem.expected) or any(
            np.asarray(a).dtype != e.dtype or np.shape(a) != e.shape for a, e in zip(actual, problem.expected)):
        return []  # no deviation here changes an element type or a shape
    with np.errstate(all="ignore"):
        return [] if _agrees(problem, actual, problem.expected) else _search(problem, actual)


def _search(problem: _Problem, actual: Sequence[Any]) -> list[str]:
    """The smallest set of deviations (by DEVIATION_IDS order within a size) that reproduces `actual`."""
    candidates = _candidates(problem)
    budget = MAX_EVALUATIONS
    for size in range(1, MAX_COMBINED + 1):
        found: set[str] = set()
        tried = [d for d in DEVIATION_IDS if d in candidates and (size == 1 or d not in ALONE)]
        for combination in itertools.combinations(tried, size):
            for hypothesis in _hypotheses(problem, [candidates[d] for d in combination]):
                if budget <= 0:
                    return [d for d in DEVIATION_IDS if d in found]
                budget -= 1
                values = _evaluate(problem, hypothesis)
                if values is not None and _agrees(problem, actual, values, narrowed=hypothesis.narrow is not None):
                    found.update(combination)
                    break
        if found:
            return [d for d in DEVIATION_IDS if d in found]
    return []
