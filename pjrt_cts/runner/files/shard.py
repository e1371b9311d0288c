"""`pjrt-cts run --shard K/N`: which tests belong to shard K of N.

Every shard process (and every worker in it) computes the same plan from the same collected test ids, so
shards need no coordination: the N shards together run each selected test exactly once.

- Groups: tests of one golden program stay together (the compile test of a grouped program and the execute
  tests of its cases share a shard, so the program is compiled once and its findings are never split); any
  other test is its own group.
- Without durations a group goes to shard `sha256(group key) mod N + 1`: stable across machines, runs
  and Python versions, and independent of which other tests were collected.
- With durations (`--shard-durations PREVIOUS/results.json`) groups are balanced greedily: longest first onto
  the shard with the least time so far; ids the previous run lacks count as its median duration.
"""
from __future__ import annotations

import hashlib
import re
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pjrt_cts.schema import Results

# Test-id prefixes of golden-driven modules: the bracketed parameter is the golden case id.
GOLDEN_PREFIXES = ("compile.golden_programs.", "execute.golden_cases.", "multidevice.golden.")
_LAST_PARAMETER = re.compile(r"\[([^\[\]]*)\]$")
HASH_STRATEGY = "hash"
DURATIONS_STRATEGY = "durations"


@dataclass(frozen=True)
class ShardSpec:
    index: int  # 1-based
    count: int

    @classmethod
    def parse(cls, text: str) -> ShardSpec:
        """`2/3` -> ShardSpec(2, 3); ValueError naming what is wrong otherwise."""
        index_text, _, count_text = text.strip().partition("/")
        try:
            index, count = int(index_text), int(count_text)
        except ValueError:
            raise ValueError(f"--shard expects K/N with whole numbers (e.g. 2/3), got {text!r}") from None
        if not 1 <= index <= count:
            raise ValueError(f"--shard K/N needs 1 <= K <= N, got {text!r}")
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def group_key(test_id: str, golden_units: Mapping[str, str] | None = None) -> str:
    """The unit that is never split across shards: for golden-driven tests the program they compile
    (`golden_units`: case or program id -> program id; without it, the case id), else the test id."""
    if test_id.startswith(GOLDEN_PREFIXES):
        match = _LAST_PARAMETER.search(test_id)
        if match:
            return "golden:" + (golden_units or {}).get(match[1], match[1])
    return test_id


def hash_shard(key: str, count: int) -> int:
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def plan(test_ids: Iterable[str], count: int, durations: Mapping[str, float] | None = None,
         golden_units: Mapping[str, str] | None = None) -> dict[str, int]:
    """test id -> its shard (1..count). Deterministic for the same ids, count, durations and corpus."""
    groups: dict[str, list[str]] = {}
    for test_id in sorted(set(test_ids)):
        groups.setdefault(group_key(test_id, golden_units), []).append(test_id)
    if durations:
        shard_of_group = _balanced(groups, count, durations)
    else:
        shard_of_group = {key: hash_shard(key, count) for key in groups}
    return {test_id: shard_of_group[key] for key, members in groups.items() for test_id in members}


def _balanced(groups: Mapping[str, list[str]], count: int, durations: Mapping[str, float]) -> dict[str, int]:
    known = [seconds for seconds in durations.values() if seconds >= 0]
    fallback = statistics.median(known) if known else 0.0
    cost = {key: sum(durations.get(test_id, fallback) for test_id in members) for key, members in groups.items()}
    load = [0.0] * count
    assigned: dict[str, int] = {}
    for key in sorted(groups, key=lambda k: (-cost[k], k)):  # longest first; ties by key, for determinism
        lightest = min(range(count), key=lambda i: (load[i], i))
        load[lightest] += cost[key]
        assigned[key] = lightest + 1
    return assigned


def plan_digest(assignment: Mapping[str, int]) -> str:
    """Fingerprint of a whole plan: shards of one split share it, and `merge` refuses shards that differ
    (another selection, suites tree or durations file would leave tests in no shard or in two)."""
    text = "\n".join(f"{test_id}\t{shard}" for test_id, shard in sorted(assignment.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def durations_from_results(results: Results) -> dict[str, float]:
    """test id -> recorded seconds from a results.json (records without a usable duration are left out)."""
    return {test.id: float(test.duration) for test in results.tests if test.id and test.duration >= 0}
