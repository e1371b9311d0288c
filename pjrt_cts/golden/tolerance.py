"""The tolerance model: one rule per (element type, op class), documented in golden/README.md.

- `exact`: integers, booleans, bitwise ops and data movement. Floats must be equal, with the sign of
  zero; any NaN matches any NaN.
- `ulp`: |actual - expected| <= ulps * ulp(expected) in the element type (basic arithmetic).
- `rel`: |actual - expected| <= atol + rtol * |expected|, with a relative and an absolute part that
  are chosen separately per op class:
  * rtol is a multiple of the type's machine epsilon (eps);
  * atol has a *basis*, the magnitude it is scaled by (RULES[...].atol_basis):
    - `smallest_normal`: atol = the type's smallest normal number. Elementwise functions are
      accurate relative to their result; only at the subnormal scale (flush-to-zero, DAZ) may an
      absolute error appear. Tiny results are therefore checked relatively.
    - `sum_abs_terms`: atol = k * eps * S, S = the largest sum of |terms| feeding one output
      (the op evaluated on |inputs|). A sum computed in any order errs by up to ~n * eps * sum|terms|,
      which cancellation can make much larger than the result itself.
    - `max_abs_output`: atol = k * eps * max|expected| (normwise bound of backward-stable
      algorithms, and of composite normalisations whose outputs share one scale).
    - `absolute`: an explicit atol given by a case (documented where it is set).
In `ulp` and `rel`, +0.0 and -0.0 are equal, and a subnormal expected value may come back as zero
(flush-to-zero); infinities must match exactly; NaN matches NaN only.
Complex values are checked per component, the relative part measured against the modulus |expected|
(the error of a complex result is bounded relative to its modulus, not to each component).
"""
from __future__ import annotations

import dataclasses
from typing import Any

from pjrt_cts.golden import dtypes

ATOL_BASES = ("none", "smallest_normal", "sum_abs_terms", "max_abs_output", "absolute")


@dataclasses.dataclass(frozen=True)
class Rule:
    """How one op class is checked in a type with eps < 2**-10 (f32, f64 and their complex types)."""

    kind: str  # "exact" | "ulp" | "rel"
    ulps: int = 0
    rtol_eps: float = 0.0  # rtol in units of eps
    atol_eps: float = 0.0  # atol in units of eps * scale (scaled bases only)
    atol_basis: str = "none"


RULES: dict[str, Rule] = {
    "exact": Rule("exact"),
    "arith": Rule("ulp", ulps=2),
    "transcendental": Rule("rel", rtol_eps=8.0, atol_basis="smallest_normal"),
    "reduction": Rule("rel", rtol_eps=2.0, atol_eps=8.0, atol_basis="sum_abs_terms"),
    "matmul": Rule("rel", rtol_eps=2.0, atol_eps=8.0, atol_basis="sum_abs_terms"),
    "fft": Rule("rel", rtol_eps=2.0, atol_eps=8.0, atol_basis="sum_abs_terms"),
    "linalg": Rule("rel", rtol_eps=32.0, atol_eps=32.0, atol_basis="max_abs_output"),
    "normalization": Rule("rel", rtol_eps=16.0, atol_eps=16.0, atol_basis="max_abs_output"),
}
OP_CLASSES = tuple(RULES)

# In types this coarse (f16, bf16, fp8) the type's own rounding dominates every other error: a result
# computed wide and rounded once is within 2 eps; an op that rounds in the type at each step (a reduce
# body, a map's multiply and add; XLA:GPU does for bf16) within (steps) eps of sum|terms|, steps = n - 1
# for a reduction of n elements and 2 otherwise. rtol and atol (per unit of scale) are both steps * eps.
_LOW_PRECISION_EPS = 2.0**-10


@dataclasses.dataclass(frozen=True)
class Tolerance:
    kind: str  # "exact" | "ulp" | "rel"
    ulps: int = 0
    rtol: float = 0.0
    atol: float = 0.0
    op_class: str = "exact"
    atol_basis: str = ""  # what atol was derived from (see ATOL_BASES); "": none, or absolute for `rel`
    atol_scale: float = 0.0  # the magnitude S of a scaled basis (0 otherwise)

    def __post_init__(self) -> None:
        if self.kind not in ("exact", "ulp", "rel"):
            raise ValueError(f"unknown tolerance kind {self.kind!r}")
        if not self.atol_basis:
            object.__setattr__(self, "atol_basis", "absolute" if self.kind == "rel" else "none")
        if self.atol_basis not in ATOL_BASES:
            raise ValueError(f"unknown atol basis {self.atol_basis!r}; known: {ATOL_BASES}")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "ulps": self.ulps, "rtol": self.rtol, "atol": self.atol, "op_class": self.op_class,
                "atol_basis": self.atol_basis, "atol_scale": self.atol_scale}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Tolerance":
        return cls(kind=data["kind"], ulps=int(data.get("ulps", 0)), rtol=float(data.get("rtol", 0.0)),
                   atol=float(data.get("atol", 0.0)), op_class=data.get("op_class", data["kind"]),
                   atol_basis=data.get("atol_basis", ""), atol_scale=float(data.get("atol_scale", 0.0)))

    def __str__(self) -> str:
        if self.kind == "exact":
            return "exact"
        if self.kind == "ulp":
            return f"{self.ulps} ulp ({self.op_class})"
        basis = {"smallest_normal": "smallest normal", "sum_abs_terms": f"sum|terms| {self.atol_scale:.3g}",
                 "max_abs_output": f"max|expected| {self.atol_scale:.3g}"}.get(self.atol_basis)
        atol = f"atol={self.atol:.3g}" + (f" [{basis}]" if basis else "")
        return f"rtol={self.rtol:.3g} {atol} ({self.op_class})"


EXACT = Tolerance("exact")


def tolerance_for(dtype_name: str, op_class: str, reduced_elements: int = 1, scale: float | None = None,
                  precision_of: str | None = None) -> Tolerance:
    """The tolerance for results of element type `dtype_name` produced by an op of `op_class`.

    `reduced_elements` is how many inputs feed one output of a reduction. `scale` is the magnitude S
    of the class's atol basis (required for `sum_abs_terms` and `max_abs_output`). `precision_of`
    names a type whose precision the op is known to compute at instead of `dtype_name`'s own.
    """
    if op_class not in RULES:
        raise ValueError(f"unknown op class {op_class!r}; known: {OP_CLASSES}")
    rule = RULES[op_class]
    if rule.kind == "exact" or not (dtypes.is_floating(dtype_name) or dtypes.is_complex(dtype_name)):
        return EXACT
    if rule.kind == "ulp":
        return Tolerance("ulp", ulps=rule.ulps, op_class=op_class)
    eps = float(dtypes.finfo(precision_of or dtype_name).eps)
    rtol = rule.rtol_eps * eps
    atol_unit = rule.atol_eps * eps  # atol per unit of scale
    if eps >= _LOW_PRECISION_EPS:
        steps = float(max(2, reduced_elements - 1) if op_class == "reduction" else 2)
        rtol, atol_unit = steps * eps, steps * eps
    if rule.atol_basis == "smallest_normal":
        # The result type's smallest normal, whatever precision the op computes at.
        return Tolerance("rel", rtol=rtol, atol=float(dtypes.finfo(dtype_name).tiny), op_class=op_class,
                         atol_basis="smallest_normal")
    if scale is None:
        raise ValueError(f"op class {op_class!r} scales its atol by {rule.atol_basis}: pass scale=")
    return Tolerance("rel", rtol=rtol, atol=atol_unit * float(scale), op_class=op_class,
                     atol_basis=rule.atol_basis, atol_scale=float(scale))
