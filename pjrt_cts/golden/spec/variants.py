"""Known deviations from the spec that the spec reference can be asked to compute instead of the spec.

The diagnosis (golden/spec/deviations.py) names a plugin's defect by recomputing a case under a deviation and
checking whether that reproduces the plugin's output. The op definitions read `current()` where a deviation
changes their semantics (maximum/minimum and every region body built on them, complex ordering, convert
rounding); the default `Semantics()` is the spec, and nothing but the diagnosis ever sets another.
"""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from typing import Iterator

NAN_MODES = ("propagate", "non_nan", "first", "second")
ZERO_MODES = ("ordered", "first", "second")
COMPLEX_ORDERS = ("lexicographic", "real")
CONVERT_ROUNDINGS = ("exact", "toward_zero")


@dataclasses.dataclass(frozen=True)
class Semantics:
    """How the reference evaluates the ops a known deviation changes."""

    # maximum/minimum with a NaN operand: "propagate" (IEEE-754, the spec), "non_nan" (C fmax/fmin: the other
    # operand), "first"/"second" (that operand whichever is NaN: `b > a ? b : a` / `a > b ? a : b`)
    max_min_nan: str = "propagate"
    # maximum/minimum of equal values (+0 and -0): "ordered" (-0 < +0, the spec) or the first/second operand
    max_min_zero: str = "ordered"
    # clamp as minimum(maximum(min_val, operand), max_val): the bound first (the spec writes the operand first,
    # which only matters where maximum is not commutative, i.e. under the two modes above)
    clamp_bound_first: bool = False
    # order of complex values (compare, maximum/minimum, sort): "lexicographic" (real, imag) or "real" only
    complex_order: str = "lexicographic"
    complex_tie: str = "first"  # which operand maximum/minimum return when "real" finds equal real parts
    # float -> float convert of a value the target does not hold: "exact" (no spec value) or "toward_zero"
    convert_rounding: str = "exact"
    # FLOAT comparisons of sort/select_and_scatter read subnormal values as zeros (sort's data is moved, not
    # flushed: a backend that flushes denormals only changes which elements compare equal)
    compare_flushes_subnormals: bool = False

    def __post_init__(self) -> None:
        for value, allowed in ((self.max_min_nan, NAN_MODES), (self.max_min_zero, ZERO_MODES),
                               (self.complex_order, COMPLEX_ORDERS), (self.complex_tie, ("first", "second")),
                               (self.convert_rounding, CONVERT_ROUNDINGS)):
            if value not in allowed:
                raise ValueError(f"unknown semantics {value!r}; one of {allowed}")

    @property
    def is_spec(self) -> bool:
        return self == SPEC


SPEC = Semantics()
_CURRENT: contextvars.ContextVar[Semantics] = contextvars.ContextVar("spec_semantics", default=SPEC)


def current() -> Semantics:
    """The semantics the op definitions evaluate under (the spec's unless inside `using`)."""
    return _CURRENT.get()


@contextlib.contextmanager
def using(semantics: Semantics) -> Iterator[Semantics]:
    """Evaluate ops under `semantics` within the block."""
    token = _CURRENT.set(semantics)
    try:
        yield semantics
    finally:
        _CURRENT.reset(token)
