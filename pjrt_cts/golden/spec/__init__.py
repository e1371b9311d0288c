"""An independent reference for the StableHLO specification's semantics (numpy and ml_dtypes only, no XLA).

One function per op (`ops/*.py`, registered with `registry.spec_op`), each citing the spec section it
implements. The golden generator computes every `spec.*` case's expected outputs with it and compares XLA
(JAX on CPU) and numpy against them; `pjrt-cts golden check` recomputes them from the stored inputs.
"""
from __future__ import annotations

from pjrt_cts.golden.spec.registry import SPEC_OPS, SpecOp, TensorType, evaluate, spec_op

__all__ = ["SPEC_OPS", "SpecOp", "TensorType", "evaluate", "spec_op"]
