"""The tolerance model: one rule per (element type, op class), documented in golden/README.md.

- `exact`: integers, booleans, bitwise ops and data movement. Floats must be equal, with the sign of
  zero; any NaN matches any NaN.
- `ulp`: |actual - expected| <= ulps * ulp(expected) in the element type (basic arithmetic).
- `rel`: |actual - expected| <= atol + rtol * |expected| (transcendental, reductions, dot/conv, fft,
  linear algebra). rtol/atol are multiples of the type's machine epsilon.
In `ulp` and `rel`, +0.0 and -0.0 are equal, and a subnormal expected value may come back as zero
(flush-to-zero); infinities must match exactly; NaN matches NaN only.
Complex values are checked per component.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from pjrt_cts.golden import dtypes

OP_CLASSES = ("exact", "arith", "transcendental", "reduction", "matmul", "fft", "linalg")

# op class -> (kind, multiplier of eps for rtol, multiplier of eps for atol, ulps)
_RULES: dict[str, tuple[str, float, float, int]] = {
    "exact": ("exact", 0.0, 0.0, 0),
    "arith": ("ulp", 0.0, 0.0, 2),
    "transcendental": ("rel", 8.0, 8.0, 0),
    "reduction": ("rel", 32.0, 64.0, 0),
    "matmul": ("rel", 32.0, 64.0, 0),
    "fft": ("rel", 64.0, 256.0, 0),
    "linalg": ("rel", 256.0, 256.0, 0),
}


@dataclasses.dataclass(frozen=True)
class Tolerance:
    kind: str  # "exact" | "ulp" | "rel"
    ulps: int = 0
    rtol: float = 0.0
    atol: float = 0.0
    op_class: str = "exact"

    def __post_init__(self) -> None:
        if self.kind not in ("exact", "ulp", "rel"):
            raise ValueError(f"unknown tolerance kind {self.kind!r}")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "ulps": self.ulps, "rtol": self.rtol, "atol": self.atol, "op_class": self.op_class}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Tolerance":
        return cls(kind=data["kind"], ulps=int(data.get("ulps", 0)), rtol=float(data.get("rtol", 0.0)),
                   atol=float(data.get("atol", 0.0)), op_class=data.get("op_class", data["kind"]))

    def __str__(self) -> str:
        if self.kind == "exact":
            return "exact"
        if self.kind == "ulp":
            return f"{self.ulps} ulp ({self.op_class})"
        return f"rtol={self.rtol:.3g} atol={self.atol:.3g} ({self.op_class})"


EXACT = Tolerance("exact")


def tolerance_for(dtype_name: str, op_class: str, reduced_elements: int = 1) -> Tolerance:
    """The tolerance for results of element type `dtype_name` produced by an op of `op_class`.

    `reduced_elements` is how many inputs feed one output of a reduction.
    """
    if op_class not in _RULES:
        raise ValueError(f"unknown op class {op_class!r}; known: {OP_CLASSES}")
    kind, rtol_eps, atol_eps, ulps = _RULES[op_class]
    if kind == "exact" or not (dtypes.is_floating(dtype_name) or dtypes.is_complex(dtype_name)):
        return Tolerance("exact", op_class="exact")
    eps = float(dtypes.finfo(dtype_name).eps)
    if kind == "ulp":
        return Tolerance("ulp", ulps=ulps, op_class=op_class)
    if eps >= 2.0**-10:
        # Low-precision types: elementwise results are computed wide and rounded once (two ulps suffice),
        # but a reduce body adds in the element type itself, so an implementation may round after every
        # step (XLA:GPU does for bf16): the classic (n - 1) * eps bound of recursive summation.
        steps = max(2, reduced_elements - 1) if op_class == "reduction" else 2
        rtol_eps, atol_eps = float(steps), float(steps)
    return Tolerance("rel", rtol=rtol_eps * eps, atol=atol_eps * eps, op_class=op_class)
