"""Reading results.json (schema_version 1) and the facts every consumer derives from it."""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pjrt_cts.outcomes import LAYERS, Outcome

SCHEMA_VERSION = 1

# Worst first: the order used to pick a cell's colour and to list findings.
SEVERITY_ORDER: tuple[Outcome, ...] = (
    Outcome.CRASH,
    Outcome.TIMEOUT,
    Outcome.FAIL,
    Outcome.ERROR,
    Outcome.XPASS,
    Outcome.WARNING,
    Outcome.XFAIL,
    Outcome.NOT_SUPPORTED,
    Outcome.SKIP,
    Outcome.PASS,
)
_SEVERITY_RANK = {outcome: rank for rank, outcome in enumerate(SEVERITY_ORDER)}

# The verdict strings of results.json's summary.verdict (pjrt_cts.verdict decides them).
from pjrt_cts.verdict import CONFORMANT, INCOMPLETE, NON_CONFORMANT  # noqa: E402,F401 - re-exported


class ResultsError(ValueError):
    """results.json is missing, unreadable or of an unknown schema version."""


def load_results(path: Path) -> dict[str, Any]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ResultsError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        results = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{path} is not JSON: {exc}") from exc
    check_schema(results, str(path))
    return results


def check_schema(results: Any, origin: str = "results") -> None:
    if not isinstance(results, dict) or not isinstance(results.get("tests"), list):
        raise ResultsError(f"{origin} is not a pjrt-cts results file (no 'tests' list)")
    version = results.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ResultsError(f"{origin} has schema_version {version!r}; this pjrt-cts reads {SCHEMA_VERSION}")


def outcome_of(test: dict[str, Any]) -> Outcome:
    """A record's outcome; an unknown string is the suite's own problem, i.e. ERROR."""
    try:
        return Outcome(test.get("outcome"))
    except ValueError:
        return Outcome.ERROR


def severity_rank(outcome: Outcome) -> int:
    return _SEVERITY_RANK[outcome]


def worst(outcomes: Iterable[Outcome]) -> Outcome | None:
    return min(outcomes, key=severity_rank, default=None)


def tests_by_id(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {test["id"]: test for test in results.get("tests", []) if "id" in test}


def layer_of_test(test: dict[str, Any]) -> str:
    return test.get("layer") or str(test.get("id", "")).split(".", 1)[0]


def ordered_layers(names: Iterable[str]) -> list[str]:
    """Known layers in model.LAYERS order, then any others alphabetically."""
    present = set(names)
    known = [layer for layer in LAYERS if layer in present]
    return known + sorted(present - set(LAYERS))


def outcome_counts(tests: Iterable[dict[str, Any]]) -> Counter[Outcome]:
    return Counter(outcome_of(test) for test in tests)


def counts_by_layer(results: dict[str, Any]) -> dict[str, Counter[Outcome]]:
    by_layer: dict[str, Counter[Outcome]] = {}
    for test in results.get("tests", []):
        by_layer.setdefault(layer_of_test(test), Counter())[outcome_of(test)] += 1
    return {layer: by_layer[layer] for layer in ordered_layers(by_layer)}


def verdict_of(results: dict[str, Any]) -> str:
    """The run's verdict as pjrt_cts.verdict judges it (recomputed from the records, never trusted)."""
    from pjrt_cts.verdict import judge_results

    return judge_results(results).verdict


def anchor_for(test_id: str) -> str:
    """A stable, URL-safe fragment id for a test's entry in the report (`#fail-...`)."""
    import hashlib
    import re

    slug = re.sub(r"[^a-z0-9]+", "-", test_id.lower()).strip("-")[:80]
    digest = hashlib.sha1(test_id.encode("utf-8")).hexdigest()[:6]
    return f"fail-{slug}-{digest}"
