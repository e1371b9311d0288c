"""Judging a golden result that is not the spec's: a deviation shared with XLA, a named defect, or a plain FAIL.

The `spec` family's expected values are the StableHLO spec's. Where XLA itself disagrees (the manifest's
`spec_vs_xla`, golden/README.md), the corpus also keeps XLA's answer: its output values for a wrong result, its
rejection for a valid program it cannot compile. A plugin that gives exactly XLA's answer deviates from the spec
as XLA does -- the semantics JAX users get today -- and the test says so with Outcome.SHARED_DEVIATION (not bad,
meets a level, costs the spec mark). For `rng`, whose draws are random, "XLA's value" is how XLA draws: every
element must be one of the values XLA returned, each about as often as XLA returned it (`drawn_alike`: a constant
output of one of XLA's values is not XLA's draw). A rejection is XLA's only when it is the compile's
(PJRT_Client_Compile, or PJRT_Compile without a device): an error at Execute is not "rejected as XLA does". An abort stays a CRASH: a crash on a valid
program is never conformant.

Whatever the outcome, a wrong value is diagnosed: the spec reference is recomputed under each known deviation
(pjrt_cts.golden.spec.deviations) and the first whose variant reproduces the output exactly names the defect
(`details["deviation"]`, read by pjrt_cts.judgment.defects).
"""
from __future__ import annotations

from typing import Any, Callable, NoReturn

import numpy as np

from pjrt_cts.judgment.outcomes import SharedDeviation

# spec_vs_xla kinds: XLA's compile rejected the valid program / XLA computed another value
REJECTED_BY_XLA = "compile_error"
WRONG_RESULT = "wrong_result"
# Ops whose values the spec leaves to chance (only their range is defined): a plugin cannot draw XLA's exact values,
# so it shares XLA's deviation when it draws as XLA does: the same values, in about the same proportions.
RANDOM_OPS = frozenset({"rng"})
# How far apart (in standard errors of the difference of two proportions) one value's share of the plugin's draws and of
# XLA's may be. Two draws of the same distribution differ by more than 5 standard errors about once in 3.5 million
# comparisons; a constant output of 64 elements against an even split of XLA's 64 is ~6.5 apart.
DRAW_SHARE_LIMIT = 5.0
# Where XLA's rejection comes from: the compile (for the client's devices, or without a device), never a later call.
XLA_REJECTS_AT = ("PJRT_Client_Compile", "PJRT_Compile")


def xla_rejection(unit: Any) -> str | None:
    """XLA's rejection of `unit` (a case or a program) when XLA rejects every case it holds, else None."""
    cases = list(getattr(unit, "cases", None) or [unit])
    kinds = [(getattr(case, "spec_vs_xla", None) or {}) for case in cases]
    if cases and all(kind.get("kind") == REJECTED_BY_XLA for kind in kinds):
        return str(kinds[0].get("explanation", "XLA rejects it"))
    return None


def raise_if_rejected_as_by_xla(unit: Any, error: BaseException) -> None:
    """A compile error of a valid program that XLA also rejects: SHARED_DEVIATION naming both rejections. Only an error
    of a compile (XLA_REJECTS_AT) is XLA's rejection (XLA rejects these programs when compiling them)."""
    rejection = xla_rejection(unit)
    if rejection is not None and getattr(error, "function", None) in XLA_REJECTS_AT:
        raise SharedDeviation(f"{error}; the program is valid StableHLO and XLA rejects it too ({rejection}): a "
                              f"deviation from the spec shared with XLA") from None


def diagnose_values(case: Any, inputs: list[np.ndarray], actual: list[np.ndarray]) -> list[str]:
    """Defect ids whose variant of the spec reference reproduces `actual` (explain() itself says [] for a case
    it cannot recompute: a non-spec case other than a single convert)."""
    from pjrt_cts.golden.spec.deviations import explain

    try:
        return list(explain(case, inputs, actual))
    except (ValueError, TypeError, KeyError, NotImplementedError, FloatingPointError, OverflowError):
        return []  # a variant that cannot evaluate this case explains nothing


def judge_mismatch(case: Any, actual: list[np.ndarray], message: str, *, inputs: Callable[[], list[np.ndarray]],
                   xla_expected: Callable[[], list[np.ndarray] | None], record_details: Callable[..., None],
                   mismatch: Callable[[list[np.ndarray], list[np.ndarray]], str | None]) -> NoReturn:
    """`actual` differs from the spec (`message` says how): raise SharedDeviation when it is XLA's value, else
    AssertionError; both name the deviation the diagnosis recognised."""
    __tracebackhide__ = True
    named = diagnose_values(case, inputs(), actual)
    if named:
        record_details(deviation=named[0], deviations_matched=named)
    diagnosis = f"; diagnosis: the spec's value under the deviation {', '.join(named)}" if named else ""
    deviation = getattr(case, "spec_vs_xla", None) or {}
    if deviation.get("kind") == WRONG_RESULT:
        xla = xla_expected()
        if xla is not None and mismatch(actual, xla) is None:
            raise SharedDeviation(f"{message}; the output is exactly XLA's value (XLA deviates from the spec here: "
                                  f"{deviation.get('explanation', '')}){diagnosis}")
        if xla is not None and (case.spec or {}).get("op") in RANDOM_OPS and drawn_alike(actual, xla):
            raise SharedDeviation(f"{message}; the plugin draws as XLA does for this program: the values XLA returns, "
                                  f"each about as often (its draws are random, so XLA's own draws are the evidence: "
                                  f"{deviation.get('explanation', '')}){diagnosis}")
    raise AssertionError(message + diagnosis)


def drawn_from(actual: list[np.ndarray], xla: list[np.ndarray]) -> bool:
    """Every element of each output is bitwise one of the values XLA returned for it (same types and shapes)."""
    if len(actual) != len(xla):
        return False
    for got, theirs in zip(actual, xla):
        if got.dtype != theirs.dtype or got.shape != theirs.shape:
            return False
        bits = np.dtype(f"u{got.dtype.itemsize}")
        if not np.isin(got.view(bits), theirs.view(bits)).all():
            return False
    return True


def drawn_alike(actual: list[np.ndarray], xla: list[np.ndarray]) -> bool:
    """`drawn_from`, and each value's share of every output within DRAW_SHARE_LIMIT standard errors of its share of
    XLA's (a two-proportion test per value, both samples pooled): the plugin's draws look like XLA's draws, not only
    like values XLA can return."""
    if not drawn_from(actual, xla):
        return False
    for got, theirs in zip(actual, xla):
        bits = np.dtype(f"u{got.dtype.itemsize}")
        mine, others = got.view(bits).ravel(), theirs.view(bits).ravel()
        if not mine.size or not others.size:
            continue
        for value in np.union1d(mine, others):
            share, their_share = np.mean(mine == value), np.mean(others == value)
            pooled = (share * mine.size + their_share * others.size) / (mine.size + others.size)
            spread = np.sqrt(pooled * (1 - pooled) * (1 / mine.size + 1 / others.size))
            if abs(share - their_share) > DRAW_SHARE_LIMIT * spread:
                return False
    return True
