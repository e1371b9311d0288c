"""The results files of a run: results.jsonl (streamed, crash-safe) and results.json (schema_version 1).

Writing both files, loading and validating them, and the facts every consumer (runner, merge, report, diff, gate,
badge, selftest) derives from the records. The shapes themselves (TestRecord, Results, SCHEMA_VERSION) and their
JSON form (and the codec, msgspec) are pjrt_cts.schema's. The verdict stored in `summary` is pjrt_cts.judgment.verdict.judge_results's, the only
function that decides one; consumers recompute it from the records rather than trusting the file.
Documented in docs/ARCHITECTURE.md ("results.json").
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import replace
import os
import re
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pjrt_cts.judgment.outcomes import LAYERS, Outcome
from pjrt_cts.judgment.api_coverage import api_coverage
from pjrt_cts.judgment.defects import defect_table
import msgspec

from pjrt_cts.schema import RUN_FACTS, SCHEMA_VERSION, Results, TestRecord, decode, encode, finite, str_or_list
from pjrt_cts.judgment.verdict import judge_results


# -- results.jsonl --------------------------------------------------------------------------------


class JsonlWriter:
    """Appends one JSON object per line. Every line reaches the OS before write() returns, so a killed
    controller loses nothing (at worst one partial last line, which read_jsonl drops); fsync runs at
    most every FSYNC_INTERVAL_SECONDS so that a machine crash loses at most that much."""

    FSYNC_INTERVAL_SECONDS = 0.5

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        _drop_partial_last_line(path)
        self._file = open(path, "a", encoding="utf-8")
        self._last_sync = 0.0

    def write(self, record: TestRecord) -> None:
        self._file.write(encode(record.to_json(private=True), sort_keys=True).decode("utf-8") + "\n")
        self._file.flush()
        now = time.monotonic()
        if now - self._last_sync >= self.FSYNC_INTERVAL_SECONDS:
            os.fsync(self._file.fileno())
            self._last_sync = now

    def close(self) -> None:
        if not self._file.closed:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()


def _drop_partial_last_line(path: Path) -> None:
    if not path.is_file():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
        with open(path, "r+b") as handle:
            handle.truncate(keep)


def read_jsonl(path: Path) -> list[TestRecord]:
    """Test records from results.jsonl, last record per nodeid winning; undecodable lines are skipped."""
    if not path.is_file():
        return []
    by_nodeid: dict[str, TestRecord] = {}
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            line = line.strip()
            if not line:
                continue
            try:
                record = decode(line, Any)
            except ValueError:
                continue  # a line cut short by a killed controller
            if isinstance(record, dict) and "nodeid" in record and "outcome" in record:
                test = TestRecord.from_json(record)
                by_nodeid.pop(test.nodeid, None)
                by_nodeid[test.nodeid] = test
    return list(by_nodeid.values())


# -- results.json: writing ------------------------------------------------------------------------


def summarize(tests: Iterable[TestRecord], *, complete: bool = True,
              facts: dict[str, Any] | None = None) -> dict[str, Any]:
    """Counts per layer and overall, and the verdict (pjrt_cts.judgment.verdict) with its level and waivers."""
    tests = tuple(tests)
    by_layer: dict[str, Counter[str]] = {}
    totals: Counter[str] = Counter()
    for test in tests:
        by_layer.setdefault(test.layer, Counter())[test.outcome.value] += 1
        totals[test.outcome.value] += 1
    judged = judge_results(Results(tests=tests, summary={"complete": complete}, **_run_facts(facts)))
    return {
        "by_layer": {layer: dict(sorted(counts.items())) for layer, counts in sorted(by_layer.items())},
        "totals": dict(sorted(totals.items())),
        "complete": complete,
        "verdict": judged.verdict,
        "level": judged.level,
        "waivers": len(judged.waivers),
        "reasons": judged.reasons,
        "line": judged.line(),
        "spec_exact": judged.spec_exact,
        "shared": judged.shared,
        "waived_defects": judged.waived_defects,
    }


def build_results(
    *,
    tool_version: str,
    started_at: str,
    finished_at: str,
    wall_seconds: float,
    command: list[str],
    profile: str | None,
    plugin: dict[str, Any],
    environment: dict[str, Any],
    expectations: dict[str, Any],
    compatibility: dict[str, Any],
    tests: Iterable[TestRecord],
    complete: bool = True,
    facts: dict[str, Any] | None = None,
) -> Results:
    tests = tuple(tests)
    run_facts = _run_facts(facts)
    return Results(
        schema_version=SCHEMA_VERSION,
        tool={"name": "pjrt-cts", "version": tool_version},
        started_at=started_at,
        finished_at=finished_at,
        wall_seconds=round(wall_seconds, 3),
        command=command,
        profile=profile,
        plugin=plugin,
        environment=environment,
        expectations=expectations,
        compatibility=compatibility,
        **run_facts,
        tests=tests,
        summary=summarize(tests, complete=complete, facts=run_facts),
        defects=defect_table(tests),  # the findings as named defects (pjrt_cts.judgment.defects; `pjrt-cts triage`)
        api_coverage=coverage.to_json() if (coverage := api_coverage(tests, plugin)) is not None else None,
    )


def _run_facts(facts: dict[str, Any] | None) -> dict[str, Any]:
    """The run-level facts (RUN_FACTS) a results file carries: those given and not None."""
    return {key: value for key, value in (facts or {}).items() if key in RUN_FACTS and value is not None}


def write_results(results: Results, path: Path) -> None:
    """results.json, replaced atomically."""
    write_json_atomic(results.to_json(), path)


def write_json_atomic(data: dict[str, Any], path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(encode(data, indent=1) + b"\n")
    os.replace(tmp, path)


def jsonable(value: Any) -> Any:
    """`value` with numpy scalars/arrays, tuples, paths and sets turned into plain JSON types, non-finite floats into
    their text (pjrt_cts.schema.finite): what a test records, as its record will hold it."""
    return finite(msgspec.to_builtins(value, builtin_types=(bytes, bytearray), enc_hook=str_or_list))


# -- results.json: loading ------------------------------------------------------------------------


class ResultsError(ValueError):
    """results.json is missing, unreadable or of an unknown schema version."""


def load_results(path: Path | str) -> Results:
    """Read a results.json (or a slim gate baseline, which has the same `tests`); ResultsError otherwise."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ResultsError(f"cannot read {path}: {exc.strerror}") from exc
    return parse_results(text, str(path))


def parse_results(text: str | bytes, origin: str) -> Results:
    """A results.json's text (from a file, a bundle member ...); ResultsError names `origin` otherwise. The records
    are decoded straight into their shapes; a file with the non-standard NaN/Infinity that earlier versions wrote,
    or with an earlier version's records, goes through Python's json module and Results.from_json."""
    try:
        sections = msgspec.json.decode(text, type=dict[str, msgspec.Raw])
        head = {key: msgspec.json.decode(raw) for key, raw in sections.items() if key != "tests"}
        tests = sections.get("tests")
        check_schema({**head, "tests": [] if tests is not None and bytes(tests).startswith(b"[") else None}, origin)
        return replace(Results.from_json(head), tests=decode(bytes(tests or b"[]"), tuple[TestRecord, ...]))
    except msgspec.DecodeError:  # NaN/Infinity, an earlier version's record, or no JSON at all
        pass
    try:
        results = json.loads(text)
    except ValueError as exc:  # JSONDecodeError, and UnicodeDecodeError for bytes
        raise ResultsError(f"{origin} is not JSON: {exc}") from exc
    check_schema(results, origin)
    return Results.from_json(finite(results))  # NaN and Infinity of an earlier version's file: as text, as now


def check_schema(results: Any, origin: str = "results") -> None:
    version = results.get("schema_version") if isinstance(results, dict) else None
    if version is not None and version != SCHEMA_VERSION:  # another version may lay out its tests differently
        raise ResultsError(f"{origin} has schema_version {version!r}; this pjrt-cts reads {SCHEMA_VERSION}")
    if not isinstance(results, dict) or not isinstance(results.get("tests"), list):
        raise ResultsError(f"{origin} is not a pjrt-cts results file (no 'tests' list)")
    if version != SCHEMA_VERSION:
        raise ResultsError(f"{origin} has schema_version {version!r}; this pjrt-cts reads {SCHEMA_VERSION}")


# -- facts derived from the records ---------------------------------------------------------------


def ordered_layers(names: Iterable[str]) -> list[str]:
    """Known layers in outcomes.LAYERS order, then any others alphabetically."""
    present = set(names)
    known = [layer for layer in LAYERS if layer in present]
    return known + sorted(present - set(LAYERS))


def outcome_counts(tests: Iterable[TestRecord]) -> Counter[Outcome]:
    return Counter(test.outcome for test in tests)


def counts_by_layer(tests: Iterable[TestRecord]) -> dict[str, Counter[Outcome]]:
    by_layer: dict[str, Counter[Outcome]] = {}
    for test in tests:
        by_layer.setdefault(test.layer, Counter())[test.outcome] += 1
    return {layer: by_layer[layer] for layer in ordered_layers(by_layer)}


def anchor_for(test_id: str) -> str:
    """A stable, URL-safe fragment id for a test's entry in the report (`#fail-...`)."""
    slug = re.sub(r"[^a-z0-9]+", "-", test_id.lower()).strip("-")[:80]
    digest = hashlib.sha1(test_id.encode("utf-8")).hexdigest()[:6]
    return f"fail-{slug}-{digest}"
