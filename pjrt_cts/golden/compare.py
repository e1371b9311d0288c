"""THE compare function: every numeric check of a golden output goes through `compare`.

A mismatch carries its evidence for the diagnosis (pjrt_cts.judgment.defects.evidence): besides the first differing
element, the kind of every differing element's actual and expected value (`0:subnormal`: a zero where a subnormal
was expected), whether the actual output is the expected values reordered, whether every differing element holds one
value (all zeros, one garbage constant), how far the actual values stray beyond the expected ones' magnitude, and a
digest of the differing indices -- so a defect's rule can say "every differing element is a zero where a subnormal
was expected", not only "the first one is".
"""
from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, Iterable

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.tolerance import Tolerance
from pjrt_cts.judgment.defects.evidence import ELEMENT_KINDS, kind_pair, mismatch_text


@dataclasses.dataclass
class Mismatch:
    """Why an actual array is not within tolerance of the expected one."""

    message: str
    dtype: str
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    first_mismatch_index: tuple[int, ...] | None = None
    num_mismatches: int = 0
    num_elements: int = 0
    evidence: dict[str, Any] | None = None  # every differing element's kinds, ... (None: no element compared)

    def __str__(self) -> str:
        return self.message

    def details(self) -> dict[str, Any]:
        """The fields results.json `details` carries for a numeric diff."""
        return {
            "max_abs_err": self.max_abs_err,
            "max_rel_err": self.max_rel_err,
            "first_mismatch_index": list(self.first_mismatch_index) if self.first_mismatch_index is not None else None,
            "dtype": self.dtype,
            "num_mismatches": self.num_mismatches,
        }


def merged_evidence(mismatches: Iterable[tuple[int, Mismatch]]) -> dict[str, Any] | None:
    """The evidence of every mismatching output of one result (output index, its Mismatch), as one record's
    `details["mismatch"]` (pjrt_cts.judgment.defects.evidence reads it); None when an output differs in dtype or
    shape (no element to judge)."""
    outputs, kinds, digest = [], set(), hashlib.sha256()
    differing = elements = 0
    reordered = uniform = True
    scale = 0.0
    max_rel = 0.0
    offsets: set[float] | None = set()
    for index, mismatch in mismatches:
        evidence = mismatch.evidence
        if evidence is None:
            return None
        outputs.append(index)
        kinds.update(evidence["kinds"])
        differing += mismatch.num_mismatches
        elements += mismatch.num_elements
        reordered = reordered and evidence["reordered"]
        uniform = uniform and evidence["uniform"]
        scale = max(scale, evidence["scale"])
        max_rel = max(max_rel, mismatch.max_rel_err or 0.0)
        offsets = None if offsets is None or evidence["offsets"] is None else offsets | set(evidence["offsets"])
        digest.update(f"{index}:{evidence['indices_sha256']};".encode())
    if not outputs:
        return None
    return {"outputs": outputs, "differing": differing, "elements": elements, "kinds": sorted(kinds),
            "reordered": reordered, "uniform": uniform, "scale": scale, "max_rel_err": max_rel,
            "offsets": sorted(offsets) if offsets is not None and len(offsets) <= _MAX_OFFSETS else None,
            "indices_sha256": digest.hexdigest()[:16]}


def _dtype_name(array: np.ndarray) -> str:
    try:
        return dtypes.name_of(array.dtype)
    except ValueError:
        return str(array.dtype)


def _ulp(expected: np.ndarray, dtype_name: str) -> np.ndarray:
    """Spacing of the element type at each expected value (float64), subnormal-aware."""
    info = dtypes.finfo(dtype_name)
    magnitude = np.abs(np.nan_to_num(expected, nan=0.0, posinf=0.0, neginf=0.0))
    with np.errstate(divide="ignore"):
        exponent = np.floor(np.log2(np.where(magnitude > 0, magnitude, 1.0)))
    exponent = np.maximum(exponent, int(info.minexp))
    return np.ldexp(1.0, (exponent - int(info.nmant)).astype(np.int64))


def _components(array: np.ndarray) -> list[np.ndarray]:
    if np.iscomplexobj(array):
        return [array.real.astype(np.float64), array.imag.astype(np.float64)]
    return [array.astype(np.float64)]


def _modulus(expected: np.ndarray) -> np.ndarray | None:
    """|expected| of a complex array (float64, finite where both components are); None for reals."""
    if not np.iscomplexobj(expected):
        return None
    with np.errstate(invalid="ignore", over="ignore"):
        return np.abs(expected.astype(np.complex128))


def compare(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> Mismatch | None:
    """None when `actual` matches `expected` within `tolerance`, else a Mismatch saying how."""
    found = _difference(actual, expected, tolerance)
    if found is None or isinstance(found, Mismatch):
        return found
    return _mismatch(*found, tolerance)


def matches(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> bool:
    """Whether `compare` finds no mismatch, without describing one: the deviation search asks it of many candidate
    values, and a description (its evidence sorts every differing element) costs more than the comparison."""
    return _difference(actual, expected, tolerance) is None


_Elements = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, str]


def _difference(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> Mismatch | _Elements | None:
    """None (a match), a Mismatch of dtype or shape, or what `_mismatch` describes of differing elements."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    dtype_name = _dtype_name(expected)
    if actual.dtype != expected.dtype:
        return Mismatch(f"dtype mismatch: actual {_dtype_name(actual)}, expected {dtype_name}", dtype=dtype_name)
    if actual.shape != expected.shape:
        return Mismatch(f"shape mismatch: actual {list(actual.shape)}, expected {list(expected.shape)} ({dtype_name})",
                        dtype=dtype_name)
    if expected.size == 0:
        return None
    if actual.tobytes() == expected.tobytes():
        return None  # bit-identical is within every tolerance (NaNs, signed zeros and subnormals included)
    floating = dtypes.is_floating(dtype_name) or dtypes.is_complex(dtype_name)
    if not floating:
        bad = actual != expected
        if not bad.any():
            return None
        diff = np.abs(actual.astype(np.float64) - expected.astype(np.float64)) if dtype_name != "pred" else bad.astype(float)
        return actual, expected, bad, diff, np.abs(expected.astype(np.float64)), dtype_name

    bad = np.zeros(expected.shape, dtype=bool)
    abs_err = np.zeros(expected.shape, dtype=np.float64)
    magnitude = np.zeros(expected.shape, dtype=np.float64)
    modulus = _modulus(expected)
    for a, e in zip(_components(actual), _components(expected)):
        a_nan, e_nan = np.isnan(a), np.isnan(e)
        a_inf, e_inf = np.isinf(a), np.isinf(e)
        finite = ~(a_nan | e_nan | a_inf | e_inf)
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.where(finite, np.abs(a - e), 0.0)
        component_bad = a_nan != e_nan
        component_bad |= (a_inf | e_inf) & ~(a_nan | e_nan) & (a != e)
        if tolerance.kind == "exact":
            component_bad |= finite & ((a != e) | (np.signbit(a) != np.signbit(e)))
        else:
            if tolerance.kind == "ulp":
                outside = err > tolerance.ulps * _ulp(e, dtype_name)
            else:
                # Relative to |expected| (for complex values: the modulus, see tolerance.py).
                outside = err > tolerance.atol + tolerance.rtol * (np.abs(e) if modulus is None else modulus)
            # Flushing a subnormal result to zero is allowed (XLA CPU runs with FTZ/DAZ).
            tiny = float(dtypes.finfo(dtype_name).tiny)
            flushed = (a == 0) & (np.abs(e) < tiny)
            component_bad |= finite & outside & ~flushed
        # A NaN or inf where a finite value was expected counts as an infinite error.
        err = np.where(component_bad & ~finite, np.inf, err)
        bad |= component_bad
        abs_err = np.maximum(abs_err, err)
        magnitude = np.maximum(magnitude, np.where(np.isfinite(e), np.abs(e), 0.0))
    if not bad.any():
        return None
    return actual, expected, bad, abs_err, magnitude, dtype_name


def _mismatch(actual: np.ndarray, expected: np.ndarray, bad: np.ndarray, abs_err: np.ndarray,
              magnitude: np.ndarray, dtype_name: str, tolerance: Tolerance) -> Mismatch:
    with np.errstate(divide="ignore", invalid="ignore"):
        rel_err = np.where(magnitude > 0, abs_err / magnitude, np.where(abs_err > 0, np.inf, 0.0))
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    max_abs = float(np.max(abs_err))
    max_rel = float(np.max(rel_err))
    count = int(bad.sum())
    message = mismatch_text(count, int(expected.size), dtype_name, str(tolerance), max_abs, max_rel, list(first),
                            repr(actual[first]), repr(expected[first]))
    return Mismatch(message, dtype=dtype_name, max_abs_err=max_abs, max_rel_err=max_rel,
                    first_mismatch_index=first, num_mismatches=count, num_elements=int(expected.size),
                    evidence=_evidence(actual, expected, bad, dtype_name))


# ------------------------------------------------------------------------------------------------ evidence
_KIND_CODE = {kind: code for code, kind in enumerate(ELEMENT_KINDS)}


def _evidence(actual: np.ndarray, expected: np.ndarray, bad: np.ndarray, dtype_name: str) -> dict[str, Any]:
    """What every differing element shows (pjrt_cts.judgment.defects.evidence names the fields)."""
    got, want = actual[bad], expected[bad]
    codes = np.unique(_kinds(got, dtype_name).astype(np.int64) * len(ELEMENT_KINDS) + _kinds(want, dtype_name))
    kinds = sorted(kind_pair(ELEMENT_KINDS[code // len(ELEMENT_KINDS)], ELEMENT_KINDS[code % len(ELEMENT_KINDS)])
                   for code in codes.tolist())
    indices = np.flatnonzero(bad).astype("<i8")
    return {"kinds": kinds, "reordered": _same_values(actual, expected), "uniform": len(_rows(got)) <= 1,
            "scale": _scale(got, expected, dtype_name), "offsets": _offsets(got, want, dtype_name),
            "indices_sha256": hashlib.sha256(indices.tobytes()).hexdigest()[:16]}


_MAX_OFFSETS = 8


def _offsets(got: np.ndarray, want: np.ndarray, dtype_name: str) -> list[float] | None:
    """The distinct differences actual - expected of an integer output's differing elements, when there are at most
    _MAX_OFFSETS of them; None for other types or more differences (elements off by 2^32: [4294967296.0]). Floats:
    a record crosses execnet, which cannot carry an integer below -2^31 (exact up to 2^53, all a rule pins)."""
    if got.dtype == np.bool_ or dtypes.is_floating(dtype_name) or dtypes.is_complex(dtype_name) or got.size > 1 << 16:
        return None
    differences = sorted({float(int(a) - int(e)) for a, e in zip(got.tolist(), want.tolist())})
    return differences if len(differences) <= _MAX_OFFSETS else None


def _kinds(values: np.ndarray, dtype_name: str) -> np.ndarray:
    """The ELEMENT_KINDS code of each value."""
    code = _KIND_CODE
    if values.dtype == np.bool_:
        return np.where(values, code["true"], code["false"])
    if dtypes.is_complex(dtype_name):
        part = "f32" if dtype_name == "c64" else "f64"
        parts = np.stack([_kinds(values.real, part), _kinds(values.imag, part)])
        quiet = np.isin(parts, [code["0"], code["-0"], code["subnormal"]]).all(axis=0)
        return np.select(
            [(parts == code["nan"]).any(axis=0), np.isin(parts, [code["inf"], code["-inf"]]).any(axis=0),
             np.isin(parts, [code["0"], code["-0"]]).all(axis=0), quiet],
            [code["nan"], code["inf"], code["0"], code["subnormal"]], code["finite"])
    if not dtypes.is_floating(dtype_name):
        wide = values.astype(np.int64) if values.dtype.kind == "i" or values.dtype.itemsize < 8 else values
        info = _integer_range(values.dtype)
        return np.select([wide == 0, wide == 1, wide == info[0], wide == info[1]],
                         [code["0"], code["1"], code["min"], code["max"]], code["int"])
    tiny = float(dtypes.finfo(dtype_name).tiny)
    with np.errstate(invalid="ignore"):  # a narrow type's NaN widens with a warning
        wide = values.astype(np.float64)
        return np.select(
            [np.isnan(wide), wide == np.inf, wide == -np.inf, (wide == 0) & ~np.signbit(wide), wide == 0,
             np.abs(wide) < tiny, wide == 1],
            [code["nan"], code["inf"], code["-inf"], code["0"], code["-0"], code["subnormal"], code["1"]], code["finite"])


def _integer_range(dtype: np.dtype) -> tuple[int, int]:
    try:
        info = np.iinfo(dtype)
        return int(info.min), int(info.max)
    except ValueError:  # ml_dtypes' sub-byte integers
        import ml_dtypes

        sub = ml_dtypes.iinfo(dtype)
        return int(sub.min), int(sub.max)


def _rows(values: np.ndarray) -> np.ndarray:
    """The distinct bit patterns of `values` (one row of bytes each)."""
    flat = np.ascontiguousarray(values).reshape(-1)
    if flat.size == 0:
        return flat.view(np.uint8).reshape(0, max(1, values.dtype.itemsize))
    return np.unique(flat.view(np.uint8).reshape(flat.size, values.dtype.itemsize), axis=0)


def _same_values(actual: np.ndarray, expected: np.ndarray) -> bool:
    """The actual output holds exactly the expected values (bit for bit, each as often), in another order."""
    def counted(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flat = np.ascontiguousarray(values).reshape(-1)
        return np.unique(flat.view(np.uint8).reshape(flat.size, values.dtype.itemsize), axis=0, return_counts=True)

    (rows_a, counts_a), (rows_e, counts_e) = counted(actual), counted(expected)
    return rows_a.shape == rows_e.shape and bool((rows_a == rows_e).all()) and bool((counts_a == counts_e).all())


def _scale(got: np.ndarray, expected: np.ndarray, dtype_name: str) -> float:
    """max |actual| of the differing elements over max |expected| of the output (finite values; inf when the
    expected output is all zeros and a differing element is not): how far the values stray beyond the expected
    ones' range (garbage: 1e30 where values of 1 are expected)."""
    if expected.dtype == np.bool_:
        return 1.0
    def magnitude(values: np.ndarray) -> float:
        wide = np.abs(values.astype(np.complex128 if dtypes.is_complex(dtype_name) else np.float64))
        finite = wide[np.isfinite(wide)]
        return float(finite.max()) if finite.size else 0.0

    top, reference = magnitude(got), magnitude(expected)
    if reference == 0.0:
        return 0.0 if top == 0.0 else float("inf")
    return top / reference
