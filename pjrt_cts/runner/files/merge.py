"""`pjrt-cts merge`: recombine the results.json files of `pjrt-cts run --shard K/N` into one run.

A shard records only its own tests, so the merge is a union of test records. What every shard records for
the whole run (the preflight's finding, a module that failed to collect) appears in each of them and is kept
once. The summary and verdict are recomputed by the same function a run uses (pjrt_cts.judgment.results.summarize via
build_results), so `report`, `gate` and `badge` read the merged file like any other results.json.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pjrt_cts.judgment.results import build_results, load_results
from pjrt_cts.runner.binding import bound_differences
from pjrt_cts.runner.controller.consistency import apply_consistency
from pjrt_cts.runner.controller.expectations import count_usage
from pjrt_cts.runner.controller.preflight import PREFLIGHT_AREA
from pjrt_cts.schema import Results, TestRecord

_MAX_LISTED = 5  # duplicates named in one error message


class MergeError(ValueError):
    """The inputs are not the shards of one split (the message says which input differs and how)."""


@dataclass(frozen=True)
class ShardResults:
    name: str  # how the user named the file, for messages
    results: Results

    @property
    def shard(self) -> dict[str, Any]:
        return self.results.shard or {}

    @property
    def label(self) -> str:
        return f"{self.name} (shard {self.shard.get('index')}/{self.shard.get('count')})"


def merge_shards(inputs: list[ShardResults], *, allow_partial: bool = False) -> Results:
    """One results.json from the shards' (raises MergeError when they do not belong together)."""
    if not inputs:
        raise MergeError("nothing to merge: name the shards' results.json files")
    _check_same_run(inputs)
    _check_same_binding(inputs)
    shards = sorted(inputs, key=lambda part: part.shard["index"])
    missing = _check_shard_set(shards, allow_partial)
    tests = apply_consistency(_union_of_tests(shards))  # a case's support may show in another shard
    first = shards[0].results
    complete = not missing and all((part.results.summary or {}).get("complete") is True for part in shards)
    merged = build_results(
        tool_version=(first.tool or {})["version"],
        started_at=min((part.results.started_at or "" for part in shards), key=_timestamp),
        finished_at=max((part.results.finished_at or "" for part in shards), key=_timestamp),
        wall_seconds=max(float(part.results.wall_seconds or 0.0) for part in shards),
        command=first.command or [],
        profile=first.profile,
        plugin=_plugin_identity(shards),
        environment=first.environment or {},
        expectations=_expectations(shards, tests),
        compatibility=_compatibility(shards),
        tests=tests,
        complete=complete,
        facts={"binding": first.binding, "selection": first.selection,
               "confirmation": _confirmation(shards), "contract": _contract(shards)},
    )
    merged_from = [
        {"file": part.name, "shard": {"index": part.shard["index"], "count": part.shard["count"]},
         "started_at": part.results.started_at, "finished_at": part.results.finished_at,
         "wall_seconds": part.results.wall_seconds, "tests": len(part.results.tests)}
        for part in shards
    ]
    return dataclasses.replace(merged, merged_from=merged_from, missing_shards=missing or None)


# -- checks -------------------------------------------------------------------------------------


def _check_same_run(inputs: list[ShardResults]) -> None:
    """Same plugin binary, profile, pjrt-cts version and expectations file, and every input a shard of one split."""
    facts = {
        "plugin sha256": lambda r: (r.plugin or {}).get("sha256"),
        "profile": lambda r: r.profile,
        "pjrt-cts version": lambda r: (r.tool or {}).get("version"),
        # shards judged by different expectations files would merge into a verdict no file gave
        "expectations file (sha256)": lambda r: (r.expectations or {}).get("sha256"),
        "client create options": lambda r: (r.binding or {}).get("create_options"),
        "suites (sha256)": lambda r: (r.binding or {}).get("suites_sha256"),
        "golden corpus (sha256)": lambda r: (r.binding or {}).get("corpus_sha256"),
        "selection": lambda r: json.dumps(r.selection, sort_keys=True),
    }
    for what, read in facts.items():
        values = {part.name: read(part.results) for part in inputs}
        if len(set(values.values())) > 1:
            listed = ", ".join(f"{name}: {value}" for name, value in values.items())
            raise MergeError(f"the inputs differ in {what} ({listed}); merge only the shards of one run")
    for part in inputs:
        shard = part.shard
        if not isinstance(shard.get("index"), int) or not isinstance(shard.get("count"), int):
            raise MergeError(f"{part.name} is not a shard (its results.json has no `shard`: "
                             f"it was not run with --shard K/N)")
    counts = {part.name: part.shard["count"] for part in inputs}
    if len(set(counts.values())) > 1:
        listed = ", ".join(f"{name}: of {count}" for name, count in counts.items())
        raise MergeError(f"the inputs are shards of different splits ({listed})")
    digests = {part.name: part.shard.get("plan_digest") for part in inputs if part.shard.get("plan_digest")}
    if len(set(digests.values())) > 1:
        listed = ", ".join(f"{name}: {digest}" for name, digest in digests.items())
        raise MergeError(f"the shards split different test sets (plan digests {listed}): run every shard with the "
                         f"same layers, -k/--id selection, suites and --shard-durations file")


def _check_same_binding(inputs: list[ShardResults]) -> None:
    """The same judge (file by file), plugin environment and user settings as the first input: shards judged by
    other code or run under other conditions would merge into records no one run made."""
    first = inputs[0]
    for part in inputs[1:]:
        differences = bound_differences(first.results.binding or {}, part.results.binding or {},
                                        mine=f"in {first.name}", theirs=f"in {part.name}")
        if differences:
            raise MergeError(f"{part.name} is bound to other facts than {first.name} ({'; '.join(differences)}); "
                             "merge only the shards of one run")


def _check_shard_set(shards: list[ShardResults], allow_partial: bool) -> list[int]:
    """Each of 1..N exactly once; returns the missing indexes (an error unless allow_partial)."""
    count = shards[0].shard["count"]
    seen: dict[int, str] = {}
    for part in shards:
        index = part.shard["index"]
        if index in seen:
            raise MergeError(f"shard {index}/{count} given twice: {seen[index]} and {part.name}")
        seen[index] = part.name
    missing = [index for index in range(1, count + 1) if index not in seen]
    if missing and not allow_partial:
        names = ", ".join(f"{index}/{count}" for index in missing)
        raise MergeError(f"shard(s) {names} missing; pass --allow-partial to merge without them "
                         f"(the verdict is then INCOMPLETE)")
    return missing


def _union_of_tests(shards: list[ShardResults]) -> list[TestRecord]:
    tests: list[TestRecord] = []
    owner: dict[str, str] = {}
    duplicates: list[str] = []
    for part in shards:
        for test in part.results.tests:
            test_id = test.id
            if test_id in owner:
                if not is_run_level(test):
                    duplicates.append(f"{test_id} (in {owner[test_id]} and {part.label})")
                continue  # one copy of what every shard records for the whole run
            owner[test_id] = part.label
            tests.append(test)
    if duplicates:
        more = f" and {len(duplicates) - _MAX_LISTED} more" if len(duplicates) > _MAX_LISTED else ""
        raise MergeError(f"{len(duplicates)} test(s) recorded by more than one shard: "
                         f"{'; '.join(duplicates[:_MAX_LISTED])}{more}")
    return tests


def is_run_level(test: TestRecord) -> bool:
    """A record every shard writes for the whole run: a preflight finding (`<layer>.preflight.*`) or the ERROR
    of a module that failed to collect (its node id names the module, no test)."""
    parts = test.id.split(".")
    return (len(parts) > 2 and parts[1] == PREFLIGHT_AREA) or "::" not in (test.nodeid or "::")


# -- merged fields ------------------------------------------------------------------------------


def _timestamp(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _plugin_identity(shards: list[ShardResults]) -> dict[str, Any]:
    """The first shard's identity card, unless another shard's preflight saw the plugin die (keep that one)."""
    cards = [part.results.plugin or {} for part in shards]
    return next((card for card in cards if card.get("failure")), cards[0])


def _confirmation(shards: list[ShardResults]) -> dict[str, Any] | None:
    """The shards' confirmation passes added up (pjrt_cts.runner.controller.confirmation)."""
    parts: list[dict[str, Any]] = [part.results.confirmation for part in shards if part.results.confirmation]
    if not parts:
        return None
    summed: dict[str, Any] = {key: sum((int(part.get(key) or 0) for part in parts), 0)
                              for key in ("rerun", "confirmed", "flaky", "missing", "not_rerun", "by_twin", "in_workers")}
    summed["seconds"] = round(sum((float(part.get("seconds") or 0.0) for part in parts), 0.0), 1)
    summed["flaky_ids"] = [test_id for part in parts for test_id in part.get("flaky_ids") or []][:50]
    return summed


def _contract(shards: list[ShardResults]) -> dict[str, Any] | None:
    """The shards' check of the mandatory lists (runner/controller/contract_check.py): one judge gives one answer, so the
    first that finds the lists wrong or unchecked, else the first shard's; a shard that did not check leaves the
    merged run unchecked."""
    checks = [part.results.contract for part in shards]
    if any(check is None for check in checks):
        return None if all(check is None for check in checks) else {
            "checked": False, "error": "a shard did not check the mandatory lists against the suites"}
    return next((check for check in checks if check and (check.get("problems") or check.get("checked") is not True)),
                checks[0])


def _compatibility(shards: list[ShardResults]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for part in shards:
        merged.update(part.results.compatibility or {})
    return merged


def _expectations(shards: list[ShardResults], tests: list[TestRecord]) -> dict[str, Any]:
    """The file's entries with their usage counted over the merged records (a run-level record kept once is
    counted once); a pattern is unknown only when no shard's collection had a test it matches (each shard
    checks against every collected test, its own and the others')."""
    sections = [part.results.expectations or {} for part in shards]
    unknown = [pattern for pattern in sections[0].get("unknown_patterns", [])
               if all(pattern in section.get("unknown_patterns", []) for section in sections)]
    # Recounted over the merged records, not summed: a run-level record matched in every shard is kept once.
    entries = count_usage(sections[0].get("entries", []), tests)
    return {**sections[0], "unknown_patterns": unknown, "entries": entries}


def read_shards(paths: list[Path]) -> list[ShardResults]:
    """Load each results.json (pjrt_cts.judgment.results: ResultsError for an unreadable one)."""
    return [ShardResults(str(path), load_results(path)) for path in paths]
