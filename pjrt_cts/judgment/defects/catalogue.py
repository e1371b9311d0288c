"""The defect catalogue: every named defect the diagnosis can attribute a finding to (catalogue.toml beside this).

A defect is what a vendor acts on: one behaviour, named once (`subnormals-flushed`), explained, scoped (`xla`:
XLA itself behaves so and every plugin built on it inherits it; `plugin`: one plugin's own; `unknown`), with the
spec rule or C API contract it breaks. A record is attributed to a defect in one of two ways:

- `deviation`: the test recomputed the spec reference under the defect's variant and it reproduced the plugin's
  output (pjrt_cts.golden.spec.deviations); the test writes the id to the record's details;
- `match` rules: test-id pattern, outcomes and a regular expression searched in the failure message (crashes,
  rejected compiles, C API contract failures).
"""
from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pjrt_cts.judgment.outcomes import Outcome, id_matches

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CATALOGUE_PATH = Path(__file__).resolve().parent / "catalogue.toml"
SCOPES = ("xla", "plugin", "unknown")
UNCLASSIFIED = "unclassified"
_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class CatalogueError(ValueError):
    """The catalogue file is malformed."""


@dataclass(frozen=True)
class MatchRule:
    """Records whose id matches `ids` (one of; runner id syntax), whose outcome is in `outcomes` and whose
    message contains `message` (a regular expression; None: any message)."""

    ids: tuple[str, ...]
    outcomes: frozenset[Outcome]
    message: re.Pattern[str] | None = None

    def matches(self, test_id: str, outcome: Outcome, message: str) -> bool:
        if outcome not in self.outcomes or not any(id_matches(test_id, pattern) for pattern in self.ids):
            return False
        return self.message is None or self.message.search(message) is not None


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

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "scope": self.scope, "rule": self.rule, "section": self.section,
                "upstream": self.upstream, "explanation": self.explanation}


@functools.lru_cache(maxsize=4)
def load_catalogue(path: Path = CATALOGUE_PATH) -> tuple[Defect, ...]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CatalogueError(f"{path}: {exc}") from exc
    defects = tuple(_parse_defect(path, index, raw) for index, raw in enumerate(data.get("defect", [])))
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


def _parse_defect(path: Path, index: int, raw: Any) -> Defect:
    where = f"{path}: defect #{index + 1}"
    if not isinstance(raw, dict):
        raise CatalogueError(f"{where}: must be a table")
    unknown = set(raw) - {"id", "title", "scope", "rule", "section", "upstream", "explanation", "match"}
    if unknown:
        raise CatalogueError(f"{where}: unknown keys {sorted(unknown)}")
    defect_id = raw.get("id")
    if not isinstance(defect_id, str) or not _ID.match(defect_id):
        raise CatalogueError(f"{where}: 'id' must be kebab-case (got {defect_id!r})")
    for key in ("title", "rule"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise CatalogueError(f"{where} ({defect_id}): '{key}' is required")
    if raw.get("scope") not in SCOPES:
        raise CatalogueError(f"{where} ({defect_id}): 'scope' must be one of {', '.join(SCOPES)}")
    rules = tuple(_parse_rule(f"{where} ({defect_id}) match #{n + 1}", rule)
                  for n, rule in enumerate(raw.get("match", [])))
    return Defect(id=defect_id, title=raw["title"], scope=raw["scope"], rule=raw["rule"],
                  section=str(raw.get("section", "")), upstream=str(raw.get("upstream", "")),
                  explanation=str(raw.get("explanation", "")), match=rules)


def _parse_rule(where: str, raw: Any) -> MatchRule:
    if not isinstance(raw, dict) or set(raw) - {"id", "outcome", "message"}:
        raise CatalogueError(f"{where}: a table of id, outcome, message")
    ids = raw.get("id")
    ids = [ids] if isinstance(ids, str) else ids
    if not ids or not all(isinstance(pattern, str) and pattern for pattern in ids):
        raise CatalogueError(f"{where}: 'id' (a pattern or a list of them) is required")
    outcomes = raw.get("outcome", ["FAIL", "CRASH", "TIMEOUT", "SHARED_DEVIATION"])
    outcomes = [outcomes] if isinstance(outcomes, str) else outcomes
    try:
        parsed = frozenset(Outcome(str(o)) for o in outcomes)
    except ValueError as exc:
        raise CatalogueError(f"{where}: {exc}") from exc
    message = raw.get("message")
    try:
        pattern = re.compile(message, re.DOTALL) if message else None
    except re.error as exc:
        raise CatalogueError(f"{where}: 'message' is not a regular expression: {exc}") from exc
    return MatchRule(ids=tuple(ids), outcomes=parsed, message=pattern)
