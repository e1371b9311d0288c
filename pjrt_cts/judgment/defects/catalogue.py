"""The defect catalogue: every named defect the diagnosis can attribute a finding to (catalogue.toml beside this).

A defect is what a vendor acts on: one behaviour, named once (`subnormals-flushed`), explained, scoped (`xla`:
XLA itself behaves so and every plugin built on it inherits it; `plugin`: one plugin's own; `unknown`), with the
spec rule or C API contract it breaks. A record is attributed to a defect in one of two ways:

- `deviation`: the test recomputed the spec reference under the defect's variant and it reproduced the plugin's
  output (pjrt_cts.golden.spec.deviations); the test writes the id to the record's details;
- `match` rules: test-id patterns, the outcomes the defect shows, and the evidence specific to it
  (pjrt_cts.judgment.defects.evidence): a regular expression searched in the message, the kinds of every differing
  element of a wrong value, the signal and PJRT function of a crash or hang.

A waiver of a defect (an expectations file's `defect = ...`) accepts exactly what its rules describe, so the rules
are held to what a per-test cause is held to. When the catalogue is read, a rule is rejected when it names no
outcome; pins nothing (no message, no value evidence, no signal or function); accepts one of the generic failures
its tests can show whatever the defect (evidence.generic_failures: all zeros, garbage, NaN, a PjrtError of no
particular meaning, a crash or hang nowhere in particular); or pins only a message -- text the plugin writes --
over a whole family of tests (`*`, `*[spec.*]`, `execute.*`), unless its defect says `waivable = false`
(named for triage, never waived).
"""
from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from msgspec import Meta, Struct

from pjrt_cts.judgment.defects.evidence import (SIGNALS, ValuePins, instances, test_free_failures, valid_kind_pattern,
                                                value_failures)
from pjrt_cts.judgment.outcomes import Outcome, id_matches
from pjrt_cts.schema import convert_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CATALOGUE_PATH = Path(__file__).resolve().parent / "catalogue.toml"
SCOPES = ("xla", "plugin", "unknown")
UNCLASSIFIED = "unclassified"
_KEBAB = "^[a-z0-9]+(-[a-z0-9]+)*$"
# Outcomes a waiver turns into XFAIL (a rule of only SHARED_DEVIATION names a deviation and waives nothing).
WAIVABLE = frozenset({Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.ERROR})
_VALUE_OUTCOMES = frozenset({Outcome.FAIL, Outcome.SHARED_DEVIATION})
_DEATH_OUTCOMES = frozenset({Outcome.CRASH, Outcome.TIMEOUT})
_PJRT_FUNCTION = re.compile(r"^PJRT_[A-Za-z0-9_]+$")
# A whole family: every test (`*`), every case of a family in any test (`*[spec.*]`) or a layer (`execute.*`).
_FAMILY_PARAMETER = re.compile(r"^(\*|[a-z0-9_]+\.\*)$")
_LAYER_PATTERN = re.compile(r"^[a-z0-9_]*\*?(\.\*)?$")


class CatalogueError(ValueError):
    """The catalogue file is malformed."""


# ---- catalogue.toml as its TOML parser gives it (docs/schema/catalogue.schema.json is generated from these) -------
Text = Annotated[str, Meta(pattern=r"\S")]  # not blank
Name = Annotated[str, Meta(min_length=1)]
Names = Union[Name, list[Name]]  # one, or a list of them
Bound = Annotated[float, Meta(ge=0)]


class RuleEntry(Struct, forbid_unknown_fields=True, kw_only=True):
    """A `[[defect.match]]`: the tests (`id` patterns), the outcomes the defect shows there and the evidence it pins
    (message, value evidence, a crash's signal and function); see the module's docstring."""

    id: Union[Name, Annotated[list[Name], Meta(min_length=1)]]
    outcome: Union[Outcome, Annotated[list[Outcome], Meta(min_length=1)]]
    message: Union[Name, None] = None  # a regular expression searched in the record's message
    mismatch: Names = []  # `actual:expected` element kinds every differing element shows
    mismatch_including: Names = []  # kinds some differing element shows
    reordered: Union[bool, None] = None
    uniform: Union[bool, None] = None
    max_rel_err: Union[Bound, None] = None
    max_scale: Union[Bound, None] = None
    max_share: Union[Bound, None] = None
    offsets: list[int] = []
    signal: Names = []
    function: Names = []


class DefectEntry(Struct, forbid_unknown_fields=True, kw_only=True):
    """A `[[defect]]`: one named defect."""

    id: Annotated[str, Meta(pattern=_KEBAB)]
    title: Text
    scope: Literal["xla", "plugin", "unknown"]
    rule: Text  # the spec rule or C API contract it breaks
    section: str = ""
    upstream: str = ""
    explanation: str = ""
    match: list[RuleEntry] = []
    deviation: bool = False
    waivable: bool = True


class CatalogueFile(Struct, forbid_unknown_fields=True):
    """pjrt_cts/judgment/defects/catalogue.toml: every named defect."""

    defect: list[DefectEntry] = []


@dataclass(frozen=True)
class MatchRule:
    """Records whose id matches one of `ids` (runner id syntax) and whose outcome is one of `outcomes`, showing
    every piece of evidence the rule pins (pjrt_cts.judgment.defects.evidence): `message`, a regular expression
    found in the message; `values`, what every differing element of a wrong value shows (evidence.ValuePins);
    `signal`, a CRASH by one of these signals; `function`, a CRASH or TIMEOUT in one of these PJRT functions."""

    ids: tuple[str, ...]
    outcomes: frozenset[Outcome]
    message: re.Pattern[str] | None = None
    values: ValuePins = ValuePins()
    signal: tuple[str, ...] = ()
    function: tuple[str, ...] = ()

    def matches(self, test_id: str, outcome: Outcome, message: str, details: dict[str, Any]) -> bool:
        return any(id_matches(test_id, pattern) for pattern in self.ids) and self.shows(outcome, message, details)

    def shows(self, outcome: Outcome, message: str, details: dict[str, Any]) -> bool:
        """The outcome and evidence the rule pins (whatever the test)."""
        if outcome not in self.outcomes:
            return False
        if self.message is not None and self.message.search(message) is None:
            return False
        if self.signal and details.get("signal") not in self.signal:
            return False
        if self.function and details.get("function") not in self.function:
            return False
        return not self.values.pinned() or self.values.shown_by(details)

    def pins(self) -> bool:
        """It pins some evidence (a rule without any would accept every failure of its tests)."""
        return self.message is not None or self.values.pinned() or bool(self.signal) or bool(self.function)


@dataclass(frozen=True)
class Defect:
    id: str
    title: str
    scope: str  # xla | plugin | unknown
    rule: str  # the spec rule or C API contract it breaks
    section: str = ""  # URL of the spec section or header comment
    upstream: str = ""  # upstream issue, if any
    explanation: str = ""
    match: tuple[MatchRule, ...] = ()
    deviation: bool = False  # the golden tests recompute the spec reference under it (details["deviation"])
    waivable: bool = True  # false: named for triage, never waived (its rules pin only text the plugin writes)

    @property
    def outcomes(self) -> frozenset[Outcome]:
        """The outcomes the defect shows: its rules', and a wrong value's when the tests recompute it."""
        shown = frozenset(outcome for rule in self.match for outcome in rule.outcomes)
        return shown | _VALUE_OUTCOMES if self.deviation else shown

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "scope": self.scope, "rule": self.rule, "section": self.section,
                "upstream": self.upstream, "explanation": self.explanation}


@functools.lru_cache(maxsize=4)
def load_catalogue(path: Path = CATALOGUE_PATH) -> tuple[Defect, ...]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CatalogueError(f"{path}: {exc}") from exc
    catalogue = convert_file(data, CatalogueFile, str(path), CatalogueError)
    defects = tuple(_defect(path, index, entry) for index, entry in enumerate(catalogue.defect))
    seen: set[str] = set()
    for defect in defects:
        if defect.id in seen:
            raise CatalogueError(f"{path}: defect {defect.id!r} is defined twice")
        seen.add(defect.id)
    return defects


def catalogue_by_id() -> dict[str, Defect]:
    return {defect.id: defect for defect in load_catalogue()}


def defect_ids() -> tuple[str, ...]:
    return tuple(defect.id for defect in load_catalogue())


def _defect(path: Path, index: int, entry: DefectEntry) -> Defect:
    where = f"{path}: defect #{index + 1} ({entry.id})"
    rules = tuple(_rule(f"{where} match #{n + 1}", rule, entry.waivable) for n, rule in enumerate(entry.match))
    return Defect(id=entry.id, title=entry.title, scope=entry.scope, rule=entry.rule, section=entry.section,
                  upstream=entry.upstream, explanation=entry.explanation, match=rules, deviation=entry.deviation,
                  waivable=entry.waivable)


def _rule(where: str, entry: RuleEntry, waivable: bool) -> MatchRule:
    try:
        pattern = re.compile(entry.message, re.DOTALL) if entry.message else None
    except re.error as exc:
        raise CatalogueError(f"{where}: 'message' is not a regular expression: {exc}") from exc
    values = ValuePins(kinds=_listed(entry.mismatch), including=_listed(entry.mismatch_including),
                       reordered=entry.reordered, uniform=entry.uniform, max_rel_err=entry.max_rel_err,
                       max_scale=entry.max_scale, max_share=entry.max_share,
                       offsets=tuple(float(offset) for offset in entry.offsets))  # as the evidence carries them
    rule = MatchRule(ids=_listed(entry.id), outcomes=frozenset(_listed(entry.outcome)), message=pattern,
                     values=values, signal=_listed(entry.signal), function=_listed(entry.function))
    _check_rule(where, rule, waivable)
    return rule


def _listed(value: Any) -> tuple[Any, ...]:
    """A key that takes one value or a list of them, as a tuple."""
    return tuple(value) if isinstance(value, list) else (value,)


def _check_rule(where: str, rule: MatchRule, waivable: bool) -> None:
    """A rule pins what its defect shows and nothing any failure of its tests shows (the module's docstring)."""
    bad_kinds = [kind for kind in rule.values.kinds + rule.values.including if not valid_kind_pattern(kind)]
    if bad_kinds:
        raise CatalogueError(f"{where}: 'mismatch' patterns are actual:expected element kinds, got {bad_kinds}")
    if rule.values.pinned() and not rule.outcomes <= _VALUE_OUTCOMES:
        raise CatalogueError(f"{where}: value evidence (mismatch, reordered, ...) is for FAIL and SHARED_DEVIATION")
    if (rule.signal or rule.function) and not rule.outcomes <= _DEATH_OUTCOMES:
        raise CatalogueError(f"{where}: 'signal' and 'function' are for CRASH and TIMEOUT")
    unknown_signals = set(rule.signal) - set(SIGNALS)
    if unknown_signals or not all(_PJRT_FUNCTION.match(name) for name in rule.function):
        raise CatalogueError(f"{where}: 'signal' names signals ({', '.join(SIGNALS)}), 'function' PJRT functions")
    if not rule.pins():
        raise CatalogueError(f"{where}: the rule pins nothing: add a 'message', value evidence ('mismatch', "
                             "'reordered', ...) or a crash's 'signal' and 'function' specific to the defect")
    if Outcome.CRASH in rule.outcomes and rule.message is None and not (rule.signal and rule.function):
        raise CatalogueError(f"{where}: a CRASH rule pins the crash: a 'message' (the CHECK that fails) or its "
                             "'signal' and 'function'")
    if Outcome.TIMEOUT in rule.outcomes and rule.message is None and not rule.function:
        raise CatalogueError(f"{where}: a TIMEOUT rule names the hang point ('function') or a 'message'")
    candidates = test_free_failures() + [failure for test_id in instances(rule.ids) for failure in value_failures(test_id)]
    for failure in candidates:
        if failure.outcome in rule.outcomes & WAIVABLE and rule.shows(failure.outcome, failure.message, failure.details):
            raise CatalogueError(f"{where}: the rule accepts a failure any test can show ({failure.what}: "
                                 f"{failure.message.splitlines()[0][:160]!r}); pin what only the defect shows")
    only_text = rule.message is not None and not (rule.values.pinned() or rule.signal or rule.function)
    family = next((pattern for pattern in rule.ids if _whole_family(pattern)), None)
    if waivable and only_text and family is not None and rule.outcomes & WAIVABLE:
        raise CatalogueError(f"{where}: the rule pins only message text (which the plugin writes) over the whole "
                             f"family {family!r}: name the tests the defect concerns (element types, ops), pin value "
                             "evidence, or mark the defect `waivable = false`")


def _whole_family(pattern: str) -> bool:
    """`*`, `*[spec.*]`, `compile.golden_programs.*[conv.*]`, `execute.*`: every test, every case of a family in
    any test, a whole layer (one test function's parameters, `layer.area.test_x[*]`, are one test's)."""
    if "[" in pattern:
        function, parameter = pattern.split("[", 1)
        if not any(char in function for char in "*?"):
            return False
        return _FAMILY_PARAMETER.match(parameter[:-1] if parameter.endswith("]") else "*") is not None
    return _LAYER_PATTERN.match(pattern) is not None
