"""`pjrt-cts run --quick`: a smoke run for pull requests — a stratified sample of the mandatory contract.

Not a conformance verdict (the verdict of a quick run is never CONFORMANT): it samples at most
`FRACTION` of the collected tests from the levels' mandatory lists, spread over strata so that every mandatory
test function — and, for golden tests, every op family — is represented before any stratum gets a second test,
and no stratum gives more than `PER_STRATUM` (the golden strata are thousands deep: uncapped, their cases, each
compiled as its own program, filled the whole budget and most of a quick run's time).
Deterministic: the same tree gives the same sample on every machine.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable

FRACTION = 0.10
PER_STRATUM = 5
NOTE = "a stratified sample of the mandatory contract for smoke runs: not a conformance verdict"


def stratum(test_id: str) -> str:
    """The test function, plus the op family for golden-parametrized tests (`...[dot.matmul.f32]` -> dot)."""
    function, _, parameter = test_id.partition("[")
    if ".golden" in function and parameter:
        return f"{function}[{parameter.split('.', 1)[0]}"
    return function


def _order(test_id: str) -> bytes:
    return hashlib.sha256(test_id.encode("utf-8")).digest()


def sample(collected: Iterable[str], mandatory: Iterable[str], fraction: float = FRACTION,
           per_stratum: int = PER_STRATUM) -> set[str]:
    """The quick selection: collected mandatory tests, round-robin over strata, at most fraction x collected and
    `per_stratum` from each stratum."""
    collected_ids = set(collected)
    budget = max(1, int(len(collected_ids) * fraction))
    strata: dict[str, list[str]] = {}
    for test_id in sorted(set(mandatory) & collected_ids, key=_order):
        strata.setdefault(stratum(test_id), []).append(test_id)
    chosen: set[str] = set()
    depth = 0
    while len(chosen) < budget and depth < per_stratum and any(depth < len(members) for members in strata.values()):
        for name in sorted(strata):
            if depth < len(strata[name]) and len(chosen) < budget:
                chosen.add(strata[name][depth])
        depth += 1
    return chosen


def mandatory_ids() -> list[str]:
    from pjrt_cts.judgment.levels import LEVELS

    return [test_id for level in LEVELS for test_id in level.mandatory_ids()]
