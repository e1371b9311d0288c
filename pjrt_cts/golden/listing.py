"""`pjrt-cts golden list`: the corpus as a table of cases by op and element type."""
from __future__ import annotations

import collections
import fnmatch
from typing import Sequence

from pjrt_cts.golden.corpus import GoldenCase, Manifest


def filter_cases(manifest: Manifest, *, op: str | None = None, dtype: str | None = None,
                 family: str | None = None, pattern: str | None = None) -> list[GoldenCase]:
    cases = []
    for case in manifest.cases:
        if op and not any(o == op or o == f"stablehlo.{op}" for o in case.ops):
            continue
        if dtype and dtype not in case.dtypes:
            continue
        if family and case.family != family:
            continue
        if pattern and not fnmatch.fnmatchcase(case.id, pattern):
            continue
        cases.append(case)
    return cases


def table_by_op(cases: Sequence[GoldenCase]) -> list[tuple[str, int, str]]:
    """(op, number of cases, element types) rows, sorted by op."""
    count: collections.Counter[str] = collections.Counter()
    types: dict[str, set[str]] = collections.defaultdict(set)
    for case in cases:
        for op in case.ops:
            count[op] += 1
            types[op].update(case.dtypes)
    return [(op, count[op], " ".join(sorted(types[op]))) for op in sorted(count)]


def table_by_dtype(cases: Sequence[GoldenCase]) -> list[tuple[str, int, int]]:
    """(element type, number of cases, number of distinct ops) rows."""
    count: collections.Counter[str] = collections.Counter()
    ops: dict[str, set[str]] = collections.defaultdict(set)
    for case in cases:
        for name in case.dtypes:
            count[name] += 1
            ops[name].update(case.ops)
    return [(name, count[name], len(ops[name])) for name in sorted(count)]


def source_of_op(spec_and_xla: int, spec_only: int, xla: int) -> str:
    """Where an op's expected values come from: the spec reference, XLA, or both."""
    sources = (["spec"] if spec_and_xla or spec_only else []) + (["xla"] if xla or spec_and_xla else [])
    return "+".join(sources) or "-"


def table_by_source(cases: Sequence[GoldenCase]) -> list[tuple[str, int, int, int, str]]:
    """(op, cases where spec and XLA agree, cases with the spec's value XLA does not give, XLA-derived cases,
    source) rows: per op, whether its expected values come from the spec reference, XLA or both. A spec
    case counts for its own op (`spec.op`), an XLA-derived case for every op its program contains."""
    counts: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    for case in cases:
        if case.spec is not None:
            counts[f"stablehlo.{case.spec['op']}"][0 if case.expected_source == "spec+xla" else 1] += 1
        else:
            for op in case.ops:
                if op.startswith("stablehlo."):
                    counts[op][2] += 1
    return [(op, a, b, c, source_of_op(a, b, c)) for op, (a, b, c) in sorted(counts.items())]
