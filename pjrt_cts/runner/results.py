"""results.jsonl (streamed, crash-safe) and results.json (schema_version 1) writer and loader."""
from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

from pjrt_cts.verdict import judge_results

SCHEMA_VERSION = 1

# Keys of one test record, in results.json and in every results.jsonl line.
TEST_KEYS = ("id", "nodeid", "layer", "outcome", "duration", "message", "details", "tags", "expected", "repro")
# Extra keys results.jsonl lines may carry; they are folded elsewhere in results.json.
PRIVATE_KEYS = ("compatibility",)



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

    def write(self, record: dict[str, Any]) -> None:
        self._file.write(json.dumps(record, sort_keys=True, default=_json_default) + "\n")
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


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Test records from results.jsonl, last record per nodeid winning; undecodable lines are skipped."""
    if not path.is_file():
        return []
    by_nodeid: dict[str, dict[str, Any]] = {}
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by a killed controller
            if isinstance(record, dict) and "nodeid" in record and "outcome" in record:
                by_nodeid.pop(record["nodeid"], None)
                by_nodeid[record["nodeid"]] = record
    return list(by_nodeid.values())


def public_record(record: dict[str, Any]) -> dict[str, Any]:
    return {key: record.get(key) for key in TEST_KEYS}


def summarize(tests: Iterable[dict[str, Any]], *, complete: bool = True) -> dict[str, Any]:
    """Counts per layer and overall, and the verdict (pjrt_cts.verdict) with its level and waivers."""
    tests = list(tests)
    by_layer: dict[str, Counter[str]] = {}
    totals: Counter[str] = Counter()
    for test in tests:
        by_layer.setdefault(test["layer"], Counter())[test["outcome"]] += 1
        totals[test["outcome"]] += 1
    judged = judge_results({"tests": tests, "summary": {"complete": complete}})
    return {
        "by_layer": {layer: dict(sorted(counts.items())) for layer, counts in sorted(by_layer.items())},
        "totals": dict(sorted(totals.items())),
        "complete": complete,
        "verdict": judged.verdict,
        "level": judged.level,
        "waivers": len(judged.waivers),
        "reasons": judged.reasons,
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
    tests: list[dict[str, Any]],
    complete: bool = True,
) -> dict[str, Any]:
    public = [public_record(test) for test in tests]
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "pjrt-cts", "version": tool_version},
        "started_at": started_at,
        "finished_at": finished_at,
        "wall_seconds": round(wall_seconds, 3),
        "command": command,
        "profile": profile,
        "plugin": plugin,
        "environment": environment,
        "expectations": expectations,
        "compatibility": compatibility,
        "tests": public,
        "summary": summarize(public, complete=complete),
    }


def write_json_atomic(data: dict[str, Any], path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=False, default=_json_default) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def load_results(path: Path | str) -> dict[str, Any]:
    """Read a results.json (schema_version 1); raises ValueError for anything else."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"{path}: not a pjrt-cts results.json with schema_version {SCHEMA_VERSION}")
    missing = [key for key in ("plugin", "tests", "summary") if key not in data]
    if missing:
        raise ValueError(f"{path}: missing keys {missing}")
    return data


def jsonable(value: Any) -> Any:
    """`value` with numpy scalars/arrays, tuples, paths and sets turned into plain JSON types."""
    return json.loads(json.dumps(value, default=_json_default))


def _json_default(value: Any) -> Any:
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return value.tolist()
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    return str(value)
