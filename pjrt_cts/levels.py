"""Conformance levels: the one place that says what Core, Full and Multi-device require.

A level is reached when, for every layer it requires, the layer ran (at least one test), none
of its tests has a bad outcome (model.BAD_OUTCOMES), and at least one of its tests PASSed; and
when every required test pattern and tag is matched by at least one PASSing test. Levels are
cumulative: a run reaches Full only if it also reaches Core. XFAIL results (failures waived by
the plugin's expectations file) do not block a level but are counted as waivers and shown.
Documented for users in docs/levels.md.
"""
from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pjrt_cts.model import BAD_OUTCOMES, Outcome
from pjrt_cts.report.results import layer_of_test, outcome_of


@dataclass(frozen=True)
class Level:
    name: str
    summary: str
    layers: tuple[str, ...]
    # fnmatch patterns over test ids; each must match at least one PASSing test.
    required_tests: tuple[str, ...] = ()
    # tags (e.g. "op:stablehlo.add"); each must be carried by at least one PASSing test.
    required_tags: tuple[str, ...] = ()


CORE = Level(
    name="Core",
    summary="Load the plugin, create a client, move data, compile StableHLO and execute it on one device "
    "with outputs matching the golden references.",
    layers=("abi", "client", "transfer", "compile", "execute"),
    required_tests=("execute.golden*",),
)
FULL = Level(
    name="Full",
    summary="Core, plus executable introspection and serialization, events, buffer donation, DLPack "
    "interchange and API-version negotiation.",
    layers=CORE.layers + ("executable", "events", "donation", "dlpack", "versioning"),
    required_tests=CORE.required_tests,
)
MULTI_DEVICE = Level(
    name="Multi-device",
    summary="Full, plus execution across several addressable devices (sharded execute, cross-device copies).",
    layers=FULL.layers + ("multidevice",),
    required_tests=FULL.required_tests,
)

LEVELS: tuple[Level, ...] = (CORE, FULL, MULTI_DEVICE)


def level_by_name(name: str) -> Level:
    wanted = _normalize(name)
    for level in LEVELS:
        if _normalize(level.name) == wanted:
            return level
    raise KeyError(f"unknown conformance level {name!r}; known: {', '.join(level.name for level in LEVELS)}")


def _normalize(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "").replace(" ", "")


@dataclass
class LevelResult:
    level: Level
    reached: bool
    reasons: list[str] = field(default_factory=list)  # why not reached (empty when reached)
    waivers: int = 0  # XFAIL results in the level's layers

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level.name, "reached": self.reached, "reasons": self.reasons, "waivers": self.waivers}


def evaluate_level(level: Level, tests: Iterable[dict[str, Any]]) -> LevelResult:
    tests = list(tests)
    reasons: list[str] = []
    waivers = 0
    for layer in level.layers:
        in_layer = [test for test in tests if layer_of_test(test) == layer]
        outcomes = [outcome_of(test) for test in in_layer]
        waivers += outcomes.count(Outcome.XFAIL)
        if not in_layer:
            reasons.append(f"layer {layer} did not run")
            continue
        bad = sorted({outcome.value for outcome in outcomes if outcome in BAD_OUTCOMES})
        if bad:
            count = sum(1 for outcome in outcomes if outcome in BAD_OUTCOMES)
            reasons.append(f"layer {layer} has {count} bad result(s) ({', '.join(bad)})")
        elif Outcome.PASS not in outcomes:
            reasons.append(f"layer {layer} has no passing test (all {', '.join(sorted({o.value for o in outcomes}))})")
    passing = [test for test in tests if outcome_of(test) is Outcome.PASS]
    for pattern in level.required_tests:
        if not any(fnmatch.fnmatchcase(str(test.get("id", "")), pattern) for test in passing):
            reasons.append(f"no passing test matches {pattern}")
    for tag in level.required_tags:
        if not any(tag in (test.get("tags") or []) for test in passing):
            reasons.append(f"no passing test carries tag {tag}")
    return LevelResult(level=level, reached=not reasons, reasons=reasons, waivers=waivers)


def evaluate_levels(results: dict[str, Any]) -> list[LevelResult]:
    """Every level in order; a level whose predecessor is not reached is not reached either."""
    evaluated: list[LevelResult] = []
    tests = results.get("tests", [])
    previous_reasons: set[str] = set()
    for level in LEVELS:
        result = evaluate_level(level, tests)
        own_reasons = list(result.reasons)
        if evaluated and not evaluated[-1].reached:
            # Say once, at the lowest level, what a shared layer lacks; higher levels point down to it.
            result.reasons = [f"level {evaluated[-1].level.name} not reached"] + [
                reason for reason in own_reasons if reason not in previous_reasons
            ]
            result.reached = False
        previous_reasons = set(own_reasons)
        evaluated.append(result)
    return evaluated


def highest_level(results: dict[str, Any]) -> str | None:
    reached = [result.level.name for result in evaluate_levels(results) if result.reached]
    return reached[-1] if reached else None
