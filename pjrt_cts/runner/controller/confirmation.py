"""Confirm before judging: every finding is observed twice, in two processes, before the verdict.

After the run, each record whose outcome rests on a failure or on a run-time answer of the plugin (CONFIRMED_OUTCOMES,
judged on the actual outcome, so a waived failure is confirmed too; an UNIMPLEMENTED, or an error its declaration was
to explain: pjrt_cts.runner.controller.consistency.RUN_TIME_ANSWERS) runs once more in fresh worker processes
(pjrt_cts.runner.controller.session). The two observations are then folded into one record:

- the same outcome and the same cause class (`cause_class`): confirmed -- the record is the first observation,
  with `confirmation` = the second one's outcome, message and duration;
- anything else: FLAKY, a bad outcome (a conformant plugin is deterministic), whose `details.observations` holds
  both, its message naming both.

Tests that are nondeterministic by design (a race the suite provokes, a timing bound under load) carry the
`nondeterministic` marker (its tag on the record) and keep their own rule: they are not rerun. Records that did
not run (blocked by another finding, not reached because the run stopped, a collection error) are not rerun either:
their finding is confirmed where it happened.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.runner.controller.consistency import RUN_TIME_ANSWERS
from pjrt_cts.schema import Confirmation, Observation, TestRecord
from pjrt_cts.testing.corpus import COMPUTED_AS

# What is rerun (by actual outcome): failures, and NOT_SUPPORTED that rests on an answer at run time.
CONFIRMED_OUTCOMES = frozenset({Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.ERROR})
NONDETERMINISTIC_TAG = "nondeterministic"
_MESSAGE_CHARS = 2000
_CLASS_CHARS = 200
_NUMBER = re.compile(r"0x[0-9a-fA-F]+|[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")
_SPACE = re.compile(r"\s+")
_RAISED = re.compile(r"([A-Za-z_][\w.]*): ")  # "pjrt_cts.native.NativeBuildError: ..."


def needs_confirmation(record: TestRecord) -> bool:
    """Whether `record` is a finding observed once that a second run must confirm."""
    if "::" not in record.nodeid or record.confirmation is not None:
        return False
    details = record.details
    if NONDETERMINISTIC_TAG in record.tags or details.get("not_run") or details.get("blocked_by"):
        return False
    if record.id.endswith(".<collection>"):
        return False
    actual = record.actual_outcome
    if actual is Outcome.NOT_SUPPORTED:
        return details.get("unsupported_by") in RUN_TIME_ANSWERS
    return actual in CONFIRMED_OUTCOMES


def cause_class(record: TestRecord) -> str:
    """What kind of failure an observation is, stable across runs of a deterministic plugin: the defect the
    diagnosis named, else the signal of a crash, else the exception type of an ERROR, else the first line of the
    message with numbers and addresses blanked (a wrong value's magnitude or index may differ; its kind of failure
    may not)."""
    actual = record.actual_outcome
    details = record.details
    if actual is Outcome.TIMEOUT:
        return "timeout"
    if actual is Outcome.CRASH:
        return f"crash:{details.get('signal') or details.get('exit_status') or '?'}"
    if record.defect and record.defect != "unclassified":
        return f"defect:{record.defect}"
    message = record.message.strip()
    raised = _RAISED.match(message)
    if actual is Outcome.ERROR and raised:
        # An ERROR is the suite's setup or teardown raising, not an answer of the plugin under test: its kind is the
        # exception's type (a build failure's message names temporary files that differ from process to process).
        return f"error:{raised.group(1)}"
    first = message.splitlines()[0] if message else ""
    # Which program computed a golden case's outputs (its pack, or its own when the pack could not run in that
    # process) is where the failure was seen, not what kind it is.
    return _SPACE.sub(" ", _NUMBER.sub("#", COMPUTED_AS.sub("", first))).strip()[:_CLASS_CHARS]


def observation(record: TestRecord) -> Observation:
    """The part of a record that one observation contributes (kept on the folded record)."""
    return Observation(outcome=record.actual_outcome, message=record.message[:_MESSAGE_CHARS],
                       duration=record.duration, cause=cause_class(record))


def fold(first: TestRecord, second: TestRecord) -> TestRecord:
    """One record from two observations of the same test (both already diagnosed, neither with expectations)."""
    one, two = observation(first), observation(second)
    confirmed = one.outcome is two.outcome and one.cause == two.cause
    folded = dataclasses.replace(first, confirmation=Confirmation(
        outcome=two.outcome, message=two.message[:500], duration=two.duration, confirmed=confirmed))
    if confirmed:
        return folded
    message = (f"FLAKY: the same test gave two different answers (a conformant plugin is deterministic): "
               f"first run {one.outcome.value}: {_first_line(one.message)} | "
               f"rerun in a fresh process {two.outcome.value}: {_first_line(two.message)}")
    return dataclasses.replace(folded, outcome=Outcome.FLAKY, expected=None, message=message,
                               details=dict(first.details, observations=[one.to_json(), two.to_json()]))


def _first_line(text: str) -> str:
    text = text.strip()
    return (text.splitlines()[0] if text else "")[:300]


@dataclass
class ConfirmationSummary:
    """What confirming cost and found (results.json `confirmation`; the run summary prints it)."""

    rerun: int = 0
    confirmed: int = 0
    flaky: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # selected for a rerun that produced no record
    seconds: float = 0.0
    by_twin: int = 0  # confirmed by the isolated twin test of the same program, without a rerun (twin_observations)
    skipped: int = 0  # findings not rerun because the run said --no-confirmation (the verdict is then INCOMPLETE)
    in_workers: int = 0  # of `rerun`: by workers after their last test, in forked processes (theirs, dead workers')

    def to_dict(self) -> dict[str, Any]:
        found = {"rerun": self.rerun, "confirmed": self.confirmed, "flaky": len(self.flaky),
                 "flaky_ids": self.flaky[:50], "missing": len(self.missing), "seconds": round(self.seconds, 1),
                 "by_twin": self.by_twin, "in_workers": self.in_workers}
        return {**found, "skipped": self.skipped} if self.skipped else found

    def line(self) -> str:
        where = (f" ({self.in_workers} by workers after their last test, {self.rerun - self.in_workers} in a "
                 f"second session of {self.seconds:.1f}s)" if self.in_workers else f" in {self.seconds:.1f}s")
        text = (f"confirmation: {self.rerun} non-PASS test(s) rerun in fresh processes{where}: "
                f"{self.confirmed} confirmed, {len(self.flaky)} FLAKY")
        if self.by_twin:
            text += f"; {self.by_twin} confirmed by the isolated twin test of the same program"
        if self.missing:
            text += f", {len(self.missing)} without a second observation"
        return text


# A program that is one case's own is compiled by two tests: the compile layer's test of the program and the execute
# layer's test of the case (the same bracket parameter). Run isolated (each in a fresh child process), they are two
# observations of one compile in two processes: when both found the same, each confirms the other.
_TWIN_FUNCTIONS = ("compile/test_golden_programs.py::test_golden_program_compiles[",
                   "execute/test_golden_cases.py::test_case_matches_reference[")
ISOLATED_TAG = "isolated"


def twin_of(nodeid: str) -> str | None:
    """The node id of the other test of the same own golden program, or None."""
    for index, function in enumerate(_TWIN_FUNCTIONS):
        prefix, found, parameter = nodeid.partition(function)
        if found:
            return f"{prefix}{_TWIN_FUNCTIONS[1 - index]}{parameter}"
    return None


def twin_observations(records: Iterable[TestRecord]) -> dict[str, TestRecord]:
    """nodeid -> its twin's record, for findings whose twin (`twin_of`) found the same thing, both isolated: those
    need no rerun (the second observation is already there, from another process)."""
    findings = {r.nodeid: r for r in records if needs_confirmation(r) and ISOLATED_TAG in r.tags}
    paired: dict[str, TestRecord] = {}
    for nodeid, record in findings.items():
        twin = findings.get(twin_of(nodeid) or "")
        if twin is not None and twin.actual_outcome is record.actual_outcome \
                and cause_class(twin) == cause_class(record):
            paired[nodeid] = twin
    return paired


def apply_confirmations(records: Iterable[TestRecord], second: dict[str, TestRecord],
                        summary: ConfirmationSummary | None = None) -> list[TestRecord]:
    """`records` with each one that has a second observation (by nodeid; a rerun's, else an isolated twin's) folded
    with it."""
    records = list(records)
    twins = twin_observations(records)
    second = {**twins, **second}
    folded = []
    for record in records:
        nodeid = record.nodeid
        again = second.get(nodeid)
        if again is not None and record.confirmation is None and needs_confirmation(record):
            record = fold(record, again)
            if summary is not None and again is twins.get(nodeid):
                summary.by_twin += 1
            if summary is not None:
                if record.outcome is Outcome.FLAKY:
                    summary.flaky.append(record.id)
                else:
                    summary.confirmed += 1
        folded.append(record)
    return folded
