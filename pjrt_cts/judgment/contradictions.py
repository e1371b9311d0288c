"""Records that contradict themselves, and stored counts that do not add up (issue 53 item 7).

A record's outcome is one field among many that say what happened: its message, its `defect`, the numeric diff in
its details, the second observation in its `confirmation`, what the expectations file said in `expected`. The
runner writes them together, so they agree; an edited file where only `outcome` changed (a FAIL flipped to PASS)
does not. The verdict (pjrt_cts.judgment.verdict) refuses to trust records that contradict themselves, and
`pjrt-cts verify` names them.

A record contradicts itself when:
- it is no finding (PASS, NOT_SUPPORTED, SKIP) yet carries a finding's evidence: a defect it was attributed to, a
  numeric mismatch or a failure's traceback in its details, or (a PASS) a message: a PASS has none;
- its confirmation disagrees with it: a confirmed second observation of another outcome than the one recorded (the
  outcome the test had before the expectations file or the consistency rule rewrote it), or an unconfirmed one on
  a record that is not FLAKY;
- what the expectations file said disagrees with it: an XFAIL or XPASS without an entry, an XFAIL whose test did
  not fail, an XPASS whose test did not pass, or an entry on any other record that says the test had another
  outcome than the one recorded.

Counts: results.json `summary` repeats the outcome counts in total and by layer; when it has them they must be the
records' counts.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.schema import Results, TestRecord

# Outcomes that are no finding: nothing failed (or nothing ran), so no failure's evidence belongs on the record.
NO_FINDING = frozenset({Outcome.PASS, Outcome.NOT_SUPPORTED, Outcome.SKIP})
# What a failed comparison records (pjrt_cts.golden.compare.Mismatch.details) and what a failed phase keeps
# (pjrt_cts.runner.records): evidence of a failure.
MISMATCH_DETAILS = ("max_abs_err", "max_rel_err", "first_mismatch_index", "num_mismatches")
FAILURE_DETAILS = MISMATCH_DETAILS + ("traceback", "observations")
_FAILED = frozenset({Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.ERROR, Outcome.FLAKY})
_PASSED = frozenset({Outcome.PASS, Outcome.WARNING, Outcome.SHARED_DEVIATION})


def record_contradiction(test: TestRecord) -> str | None:
    """Why `test` contradicts itself (`PASS with a failure message`), None when its fields agree."""
    outcome = test.outcome
    if outcome in NO_FINDING:
        evidence = [key for key in FAILURE_DETAILS if test.details.get(key) is not None]
        if test.defect:
            return f"{outcome.value} attributed to the defect {test.defect}"
        if evidence:
            return f"{outcome.value} with a failure's details ({', '.join(evidence)})"
        if outcome is Outcome.PASS and test.message.strip():
            return f"PASS with a failure message ({_first_line(test.message)})"
    return _expectation_contradiction(test) or _confirmation_contradiction(test)


def _expectation_contradiction(test: TestRecord) -> str | None:
    expected, outcome = test.expected, test.outcome
    if expected is None:
        return f"{outcome.value} without an expectation entry" if outcome in (Outcome.XFAIL, Outcome.XPASS) else None
    if outcome is Outcome.XFAIL and expected.actual not in _FAILED:
        return f"XFAIL of a test that did not fail ({expected.actual.value})"
    if outcome is Outcome.XPASS and expected.actual not in _PASSED:
        return f"XPASS of a test that did not pass ({expected.actual.value})"
    if outcome not in (Outcome.XFAIL, Outcome.XPASS) and expected.actual is not outcome:
        return f"{outcome.value}, yet its expectation entry says the test was {expected.actual.value}"
    return None


def _confirmation_contradiction(test: TestRecord) -> str | None:
    confirmation = test.confirmation
    if confirmation is None:
        return None
    observed = _observed(test)
    if confirmation.confirmed and confirmation.outcome is not observed:
        return f"{observed.value} confirmed by a second observation that was {confirmation.outcome.value}"
    if not confirmation.confirmed and observed is not Outcome.FLAKY:
        return f"{observed.value} whose second observation did not confirm it (a record that is not FLAKY)"
    return None


def _observed(test: TestRecord) -> Outcome:
    """The outcome the first observation had: before the expectations file, and before the consistency rule
    (pjrt_cts.runner.controller.consistency) turned a NOT_SUPPORTED into a FAIL (it keeps what it was in
    `details.consistency.was`)."""
    consistency = test.details.get("consistency")
    if isinstance(consistency, dict) and consistency.get("was"):
        try:
            return Outcome(consistency["was"])
        except ValueError:
            pass
    return test.actual_outcome


def contradicting_records(tests: Iterable[TestRecord]) -> list[tuple[TestRecord, str]]:
    """Each record that contradicts itself, with why."""
    found = []
    for test in tests:
        why = record_contradiction(test)
        if why is not None:
            found.append((test, why))
    return found


def count_problems(results: Results) -> list[str]:
    """Where results.json `summary` counts outcomes (in total, by layer) otherwise than its records."""
    summary = results.summary or {}
    problems = []
    totals: Counter[str] = Counter(test.outcome.value for test in results.tests)
    stored = summary.get("totals")
    if isinstance(stored, dict) and _counts(stored) != totals:
        problems.append(f"summary totals {json.dumps(stored, sort_keys=True)} are not the records' "
                        f"{json.dumps(dict(sorted(totals.items())))}")
    by_layer = summary.get("by_layer")
    if isinstance(by_layer, dict):
        layers: dict[str, Counter[str]] = {}
        for test in results.tests:
            layers.setdefault(test.layer, Counter())[test.outcome.value] += 1
        wrong = sorted(layer for layer in set(by_layer) | set(layers)
                       if _counts(by_layer.get(layer)) != layers.get(layer, Counter()))
        if wrong:
            problems.append(f"summary counts by layer are not the records' in {', '.join(wrong)}")
    return problems


def _counts(value: Any) -> Counter[str]:
    """A stored {outcome: count} object, zero counts dropped as a Counter of the records has none; a count that is
    no integer stays as -1, which no record count equals."""
    if not isinstance(value, dict):
        return Counter()
    counts = {str(key): count if isinstance(count, int) and not isinstance(count, bool) else -1
              for key, count in value.items()}
    return Counter({key: count for key, count in counts.items() if count != 0})


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 120 else line[:119] + "…"
