"""The verdict of a run — the one function every consumer uses (runner, report, gate, badge, diff, selftest).

- NON_CONFORMANT (exit 1): any bad outcome (FAIL, CRASH, TIMEOUT, XPASS, ERROR, FLAKY) anywhere in the run, or
  records that cannot be trusted: one that contradicts itself (a PASS with a failure message, a defect or a
  numeric mismatch, a confirmation of another outcome: pjrt_cts.judgment.contradictions).
- INCOMPLETE (exit 3): nothing bad, but the plugin was not shown to work: its expectations file has draft entries
  (written by `pjrt-cts triage --write-expectations`, not reviewed), the run was a partial selection (any
  test left out by --layers, --id, -k/-m or a SKIP entry of the expectations file: `INCOMPLETE · partial selection
  (execute): 10143 tests, nothing bad`; a verdict belongs to one complete selection), one shard, a `--quick` sample,
  or interrupted, nothing PASSed, the Core contract is not met (a mandatory test NOT_SUPPORTED, SKIP or missing
  — e.g. no device, a mandatory feature the plugin lacks), or the mandatory lists disagree with the suites the run
  ran (results.json `contract`: contract_unchecked).
- CONFORMANT (exit 0): nothing bad and at least Core's contract met; the level is the highest one reached and
  the waivers (every XFAIL: a failure the profile's expectations file accepts) are listed with their reasons.

A level belongs to a CONFORMANT run only: `level` is None for any other verdict, whatever contracts its records
meet (`contract_level` keeps the highest contract met, which the gate compares with a baseline's).

The line speaks in defects (pjrt_cts.judgment.defects): `CONFORMANT · level Full · spec ✗ (9 deviations shared with XLA,
345 tests) · 4 waived defects (98 tests)`. The spec mark is ✓ when every test of a `spec.*` golden case PASSes
(the plugin equals the StableHLO spec reference), ✗ otherwise; deviations shared with XLA meet the levels but
never the spec mark.

Recomputed from the test records every time, so an edited or merged results file cannot claim more than its
records show. Documented in docs/levels.md.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pjrt_cts.judgment.contradictions import contradicting_records
from pjrt_cts.judgment.defects import UNCLASSIFIED, defect_of
from pjrt_cts.judgment.levels import AOT, LevelResult, evaluate_all_levels, waiver_summary
from pjrt_cts.judgment.outcomes import BAD_OUTCOMES, Outcome
from pjrt_cts.schema import Results, TestRecord

CONFORMANT = "CONFORMANT"
NON_CONFORMANT = "NON_CONFORMANT"
INCOMPLETE = "INCOMPLETE"
VERDICTS = (CONFORMANT, NON_CONFORMANT, INCOMPLETE)

EXIT_CONFORMANT = 0
EXIT_NON_CONFORMANT = 1
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3
# Creates a client with the profile's options without the shared fixture (suites/client/test_client_create.py).
CLIENT_CREATION_TEST = "client.client_create.test_client_creates_with_profile_options"
_EXIT_CODES = {CONFORMANT: EXIT_CONFORMANT, NON_CONFORMANT: EXIT_NON_CONFORMANT, INCOMPLETE: EXIT_INCOMPLETE}


@dataclass
class RunVerdict:
    verdict: str
    level: str | None  # the level awarded: the highest contract met, for a CONFORMANT run only
    levels: list[LevelResult]  # every level's contract, met or not, whatever the verdict
    waivers: list[dict[str, Any]] = field(default_factory=list)  # every XFAIL: {id, actual, reason, url}
    reasons: list[str] = field(default_factory=list)  # why NON_CONFORMANT / INCOMPLETE
    bad: int = 0
    passed: int = 0
    spec_exact: bool | None = None  # every spec.* golden test PASSed; None: no spec case ran
    spec_tests: int = 0  # spec.* tests that did not PASS
    shared: dict[str, int] = field(default_factory=lambda: {"defects": 0, "tests": 0})  # SHARED_DEVIATION
    waived_defects: list[dict[str, Any]] = field(default_factory=list)  # [{defect, tests}] over every XFAIL
    untrusted: list[str] = field(default_factory=list)  # why the records cannot be trusted (records contradicting)
    partial: list[str] = field(default_factory=list)  # of `reasons`, those that say not every test ran

    @property
    def only_partial(self) -> bool:
        """INCOMPLETE for no reason but that not every test ran (a selection, a shard, a --quick sample, an
        interruption): what `pjrt-cts gate --allow-partial` accepts."""
        return self.verdict == INCOMPLETE and bool(self.reasons) and self.reasons == self.partial
    by_report: int = 0  # NOT_SUPPORTED decided by what the plugin reports about itself (unsupported_by "reported")

    @property
    def exit_code(self) -> int:
        return _EXIT_CODES[self.verdict]

    @property
    def contract_level(self) -> str | None:
        """The highest level whose contract the records meet, whatever the verdict: what a run without bad
        outcomes in the level's layers would be awarded. Never printed as the run's level (that is `level`)."""
        met = [result.level.name for result in self.levels if result.reached]
        return met[-1] if met else None

    def levels_reached(self) -> tuple[str, ...]:
        """The levels awarded, lowest first: for a CONFORMANT run the device levels whose contracts are met, or the AOT
        tier alone for a run whose level it is (without a device); none otherwise."""
        if self.verdict != CONFORMANT:
            return ()
        if self.level == AOT.name:
            return (AOT.name,)
        return tuple(result.level.name for result in self.levels if result.reached and result.level is not AOT)

    def line(self) -> str:
        """`CONFORMANT · level Full · spec ✗ (9 deviations shared with XLA, 345 tests) · 4 waived defects (98 tests)`
        / `INCOMPLETE · Core not reached: ...`."""
        if self.verdict == CONFORMANT:
            return " · ".join([f"{CONFORMANT}", f"level {self.level}"] + self.marks())
        reason = f": {self.reasons[0]}" if self.reasons else ""
        return f"{self.verdict}{reason}"

    def spec_mark(self) -> str | None:
        """`spec ✓` / `spec ✗` (None when no spec case ran): the one wording of the mark the line, the report and
        the badge show."""
        return None if self.spec_exact is None else "spec ✓" if self.spec_exact else "spec ✗"

    def marks(self) -> list[str]:
        """The spec mark and the waived defects, as the verdict line shows them."""
        marks = []
        mark = self.spec_mark()
        if mark is not None:
            marks.append(mark if self.spec_exact else f"{mark} ({self.spec_mark_detail()})")
        if self.waivers:
            marks.append(f"{_count(len(self.waived_defects), 'waived defect')} ({_count(len(self.waivers), 'test')})")
        if self.by_report:  # not a SKIP: what the plugin says about itself decided these, so the line says how many
            marks.append(f"{_count(self.by_report, 'test')} NOT_SUPPORTED by what the plugin reports")
        return marks

    def spec_mark_detail(self) -> str:
        parts = []
        if self.shared["tests"]:
            parts.append(f"{_count(self.shared['defects'], 'deviation')} shared with XLA, "
                         f"{_count(self.shared['tests'], 'test')}")
        others = self.spec_tests - self.shared["tests"]
        if others > 0:
            parts.append(f"{_count(others, 'other test')} not equal to the spec")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "level": self.level, "waivers": self.waivers, "reasons": self.reasons,
                "levels": [result.to_dict() for result in self.levels], "spec_exact": self.spec_exact,
                "shared": self.shared, "waived_defects": self.waived_defects}


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def is_spec_test(test: TestRecord) -> bool:
    """A test of one `spec.*` golden case or program (its parameter names it)."""
    return "[spec." in test.id



# SKIP messages the runner wrote before records carried `details.deselected_by` (older results files).
_LEGACY_DESELECTION = (("not selected by --id", "--id"), ("deselected by -k", "-k"), ("deselected by -m", "-m"),
                       ("skipped by the expectations file", "expectations"))


def deselected_by(test: TestRecord) -> str | None:
    """What left `test` out of the run on purpose ("--id", "-k", "-m", "expectations", ...), None if it ran."""
    if test.outcome is not Outcome.SKIP:
        return None
    if test.details.get("deselected_by"):
        return str(test.details["deselected_by"])
    return next((by for prefix, by in _LEGACY_DESELECTION if test.message.startswith(prefix)), None)


def partial_selection(results: Results) -> str | None:
    """`partial selection (execute): 10143 tests` when the run left tests out on purpose, else None."""
    tests = results.tests
    parts: list[str] = []
    selection = results.selection or {}
    if selection and not selection.get("all_layers", True):
        parts.append(",".join(selection.get("layers") or []) or "no layer")
    shard = results.shard or {}
    if shard:
        parts.append(f"shard {shard.get('index')}/{shard.get('count')}")
    # A module no --id pattern can reach is not collected, so its tests have no SKIP record to count: the patterns
    # themselves make the run partial (unless one of them is `*`, which selects everything).
    ids = [str(pattern) for pattern in selection.get("ids") or []]
    if ids and "*" not in ids:
        parts.append(f"{len(ids)} --id pattern{'s' if len(ids) != 1 else ''}")
    kinds = Counter(by for by in map(deselected_by, tests) if by is not None)
    parts += [f"{count} deselected by {by}" for by, count in sorted(kinds.items())]
    if not parts:
        return None
    ran = sum(1 for test in tests if deselected_by(test) is None)
    return f"partial selection ({'; '.join(parts)}): {ran} tests"


def contract_unchecked(results: Results) -> str | None:
    """Why the mandatory lists cannot decide this run's level (results.json `contract`, written by a run that could
    be CONFORMANT: pjrt_cts.runner.controller.contract_check): they disagree with the suites it ran, or could not be checked
    against them. None when they agree, or when the run did not check (a partial selection, never CONFORMANT, or
    a results.json written before runs checked)."""
    contract = results.contract
    if contract is None:
        return None
    problems = contract.get("problems") or []
    if contract.get("checked") is not True:
        return f"the mandatory lists could not be checked against the suites: {contract.get('error') or 'no answer'}"
    if problems:
        return (f"the mandatory lists disagree with the suites ({_count(len(problems), 'problem')}, first: "
                f"{problems[0]}; `pjrt-cts contract --check`)")
    return None


def judge_results(results: Results) -> RunVerdict:
    tests = results.tests
    outcomes = [test.outcome for test in tests]
    bad = [test for test, outcome in zip(tests, outcomes) if outcome in BAD_OUTCOMES]
    passed = outcomes.count(Outcome.PASS)
    levels = evaluate_all_levels(results)
    aot, core = levels[0], levels[1]  # the AOT tier, then the device levels from Core up
    reached = [result for result in levels[1:] if result.reached] or [aot] * aot.reached
    top = reached[-1] if reached else None  # a device level, else the AOT tier
    interrupted = (results.summary or {}).get("complete") is False
    reasons: list[str] = []
    partial = partial_selection(results)
    untrusted = _untrusted(results)
    partly: list[str] = []  # the reasons of an INCOMPLETE run that say only that not every test ran
    if bad or untrusted:
        reasons += untrusted
        if bad:
            kinds = sorted({test.outcome.value for test in bad})
            blocked = sum(1 for test in bad if test.details.get("blocked_by"))
            first = next((test for test in bad if not test.details.get("blocked_by")), bad[0])
            # Tests another finding kept from running are that finding's: the line names the root cause first.
            of_which = f", {blocked} of them blocked by {len(bad) - blocked} finding(s)" if blocked else ""
            reasons.append(f"{len(bad)} bad result(s) ({', '.join(kinds)}){of_which}, first {first.id}")
        if partial:
            reasons.append(partial)
        verdict = NON_CONFORMANT
    else:
        unchecked = contract_unchecked(results)
        if unchecked:  # the level is decided by lists that must be the tree's
            reasons.append(unchecked)
        drafts = draft_waivers(results)
        if drafts:  # waivers nobody reviewed: the run is judged by what triage guessed, never certified
            reasons.append(f"expectations file has {drafts} draft waiver{'s' if drafts != 1 else ''} (written by "
                           "`pjrt-cts triage --write-expectations`): review each, write its reason and remove "
                           "`draft = true`")
        if partial:  # a verdict belongs to one complete selection: a clean partial run reads clean, never CONFORMANT
            partly.append(f"{partial}, nothing bad")
        if results.quick:
            partly.append(f"a --quick run ({results.quick.get('note', 'a sample')})")
        if interrupted:
            partly.append("the run was interrupted before every selected test had a result")
        reasons += partly
        skipped = (results.confirmation or {}).get("skipped")
        if skipped:  # a verdict rests on confirmed findings (pjrt_cts.runner.controller.confirmation)
            reasons.append(f"{skipped} finding(s) not confirmed by a second run (--no-confirmation)")
        if not passed:
            reasons.append("no test passed")
        no_client = next((test for test in tests if test.id == CLIENT_CREATION_TEST
                          and test.outcome is Outcome.NOT_SUPPORTED), None)
        # Without a device (the profile's documented no-device error, or `run --aot`) the AOT tier is what a run can
        # reach: reached, it is the run's level; otherwise the missing device comes first among the reasons.
        # The tier's result comes first there, then why the device levels were not tried.
        device_less_tier = no_client is not None and aot.reached and not core.reached
        floor = aot if no_client is not None else core
        if not core.reached and not device_less_tier and not partial:  # a partial selection misses mandatory tests
            reasons.append(f"level {floor.level.name} not reached: " + "; ".join(floor.reasons))
        if no_client is not None and not device_less_tier:
            reasons.append(f"the plugin could not be exercised: {no_client.message or 'no device'}")
        verdict = INCOMPLETE if reasons else CONFORMANT
    # Every XFAIL is a failure the expectations file accepted: the verdict needed all of them, not only the
    # level's layers (robustness findings waived for CONFORMANT count too).
    waivers = [waiver_summary(test) for test, outcome in zip(tests, outcomes) if outcome is Outcome.XFAIL]
    waived = Counter(_waived_defect(test) for test, outcome in zip(tests, outcomes) if outcome is Outcome.XFAIL)
    shared = Counter(defect_of(test) for test, outcome in zip(tests, outcomes) if outcome is Outcome.SHARED_DEVIATION)
    spec = [outcome for test, outcome in zip(tests, outcomes) if is_spec_test(test)]
    return RunVerdict(verdict=verdict, level=top.level.name if top and verdict == CONFORMANT else None, levels=levels,
                      waivers=waivers, reasons=reasons, bad=len(bad), passed=passed,
                      spec_exact=all(o is Outcome.PASS for o in spec) if spec else None,
                      spec_tests=sum(o is not Outcome.PASS for o in spec),
                      shared={"defects": len(shared), "tests": sum(shared.values())},
                      waived_defects=[_waived_row(d, n) for d, n in sorted(waived.items(), key=lambda i: (-i[1], i[0]))],
                      untrusted=untrusted, partial=partly,
                      by_report=sum(1 for test, outcome in zip(tests, outcomes) if outcome is Outcome.NOT_SUPPORTED
                                    and test.details.get("unsupported_by") == "reported"))


def draft_waivers(results: Results) -> int:
    """Entries of the run's expectations file marked `draft = true` (pjrt_cts.runner.controller.expectations)."""
    entries = (results.expectations or {}).get("entries") or []
    return sum(1 for entry in entries if isinstance(entry, dict) and entry.get("draft"))


def _waived_defect(test: TestRecord) -> str:
    """The defect a waived test counts for: its catalogued defect; an unclassified test is a defect of its own (no
    defect of the catalogue groups it), so `unclassified:<id>`."""
    defect = defect_of(test)
    return f"{UNCLASSIFIED}:{test.id}" if defect == UNCLASSIFIED else defect


def _waived_row(defect: str, tests: int) -> dict[str, Any]:
    if defect.startswith(f"{UNCLASSIFIED}:"):
        return {"defect": UNCLASSIFIED, "tests": tests, "id": defect.split(":", 1)[1]}
    return {"defect": defect, "tests": tests}


AOT_GOLDEN_TESTS = "aot.golden_programs."


def aot_note(tests: list[TestRecord]) -> str | None:
    """What the aot layer compiled without a device, for the run's end: `aot: golden programs compiled for v5e:2x2
    812 of 851, v6e:2x2 812 of 851; 851 golden tests, 1234.5 s of test time` (None when it compiled nothing). The
    topologies each test compiled for are its `details.compiled_for` (suites/aot/test_golden_programs.py)."""
    golden = [test for test in tests if test.id.startswith(AOT_GOLDEN_TESTS) and deselected_by(test) is None]
    per_topology: Counter[str] = Counter()
    for test in golden:
        if test.outcome in (Outcome.PASS, Outcome.WARNING, Outcome.SHARED_DEVIATION):
            per_topology.update(dict(test.details.get("compiled_for") or {}).keys())
    if not per_topology:
        return None
    seconds = sum(test.duration for test in tests if test.layer == "aot")
    counts = ", ".join(f"{label} {count} of {len(golden)}" for label, count in per_topology.items())
    return (f"aot: golden programs compiled for {counts} (passing tests); {len(golden)} golden tests, {seconds:.1f} s "
            "of aot test time")


def _untrusted(results: Results) -> list[str]:
    """Why the records cannot be trusted: records that contradict themselves (pjrt_cts.judgment.contradictions).
    Empty for what the runner writes. (The stored counts are not the verdict's concern: it recomputes them from the
    records; `pjrt-cts verify` holds a claim to them.)"""
    contradictions = contradicting_records(results.tests)
    if not contradictions:
        return []
    test, why = contradictions[0]
    return [f"{len(contradictions)} record(s) contradict themselves, first {test.id}: {why}"]
