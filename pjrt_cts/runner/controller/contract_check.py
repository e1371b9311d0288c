"""A full run checks the mandatory lists it judges by against the suites it runs, as `pjrt-cts contract --check`
does (pjrt_cts.judgment.contract.tree_problems), and records the answer as results.json `contract`:
`{"checked": true, "problems": [...]}`, or `{"checked": false, "error": ...}` when the tree could not be collected.
The verdict (pjrt_cts.judgment.verdict) is never CONFORMANT by lists that disagree with the tree or were not
checked: a run whose suites gained, lost or renamed a mandatory test, or whose lists were edited, is INCOMPLETE
(docs/levels.md).

Only a run that could be CONFORMANT checks: every layer, no `--id`, `-k` or `--quick` (a shard is one part of
such a run). Collecting the tree costs seconds of CPU, so the check runs in a thread beside the tests from the run's
start, and its answer is kept per judge (`<cache>/contract/<judge_sha256>.json`, pjrt_cts.native.cache_dir): the
judge's digest covers the suites, the corpus, the lists and the rules, so a tree checked once is collected again
only when one of its files changes.
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from pjrt_cts.judgment.contract import ContractError, tree_problems

# Far beyond a collection on a loaded machine (docs/bench.md); a run's end waits at most this long for the answer.
COLLECTION_TIMEOUT_S = 600.0


class ContractCheck:
    """The check of one run, started at once in a thread; `result()` waits for it."""

    def __init__(self, suites_dir: Path, golden_dir: Path, judge_sha256: str | None) -> None:
        self._suites_dir, self._golden_dir = suites_dir, golden_dir
        self._cache = _cache_file(judge_sha256)
        self._result: dict[str, Any] | None = None
        self._thread = threading.Thread(target=self._check, name="pjrt-cts-contract-check", daemon=True)
        self._thread.start()

    def result(self) -> dict[str, Any]:
        """results.json `contract` (waits for the check)."""
        self._thread.join(COLLECTION_TIMEOUT_S + 60)
        return self._result or {"checked": False, "error": "the check did not finish"}

    def _check(self) -> None:
        cached = _read(self._cache)
        if cached is not None:
            self._result = cached
            return
        try:
            problems = tree_problems(self._suites_dir, self._golden_dir, timeout=COLLECTION_TIMEOUT_S)
        except (ContractError, OSError, KeyError, ValueError) as exc:
            first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self._result = {"checked": False, "error": first_line}
            return
        self._result = {"checked": True, "problems": problems}
        _write(self._cache, self._result)


def _cache_file(judge_sha256: str | None) -> Path | None:
    if not judge_sha256:
        return None
    from pjrt_cts.native import cache_dir

    return cache_dir() / "contract" / f"{judge_sha256}.json"


def _read(path: Path | None) -> dict[str, Any] | None:
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("checked") is not True or not isinstance(data.get("problems"), list):
        return None
    return data


def _write(path: Path | None, result: dict[str, Any]) -> None:
    """Keep the answer for the next run of the same judge (a cache that cannot be written is no error)."""
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # runs of one judge may end together
        temporary.write_text(json.dumps(result), encoding="utf-8")
        temporary.replace(path)
    except OSError:
        pass
