"""The op x dtype coverage matrix of the execute layer, and its op x attribute coverage.

A test's op and dtype come, in order of preference, from its `details` (`op`, `dtype`), its tags
(`op:stablehlo.add`, `dtype:f32`) -- unless they list several ops, as the golden suite's details do --,
its case id (`<family>.<op>.<dtype>.<variant>`, taken from
`details.case_id` or the test id's parameter), or the golden manifest entry of that case id (whose
`ops`/`dtypes` list every op and dtype of the program, hence the last resort).
The report works from results.json alone; the manifest only adds cases that did not run.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pjrt_cts.judgment.outcomes import Outcome, worst
from pjrt_cts.judgment.results import anchor_for
from pjrt_cts.schema import TestRecord

EXECUTE_LAYER = "execute"

_DTYPE = re.compile(
    r"^(pred|bool|[siu](?:1|2|4|8|16|32|64)|int(?:8|16|32|64)|uint(?:8|16|32|64)|f[468]e\w*|float8\w*|bf16|bfloat16"
    r"|f(?:16|32|64)|float(?:16|32|64)|c(?:64|128)|complex(?:64|128))$"
)
# Display order of dtype columns; unknown dtypes follow alphabetically.
DTYPE_ORDER = (
    "pred", "bool", "s2", "s4", "s8", "i8", "s16", "i16", "s32", "i32", "s64", "i64",
    "u2", "u4", "u8", "u16", "u32", "u64", "f8e4m3fn", "f8e5m2", "bf16", "f16", "f32", "f64", "c64", "c128",
)  # fmt: skip


@dataclass(frozen=True)
class CaseRef:
    test_id: str
    outcome: Outcome
    case_id: str
    anchor: str


class _CaseOutcomes:
    """The worst outcome and the outcome counts of a collection of case results (`cases`)."""

    cases: list[CaseRef]

    @property
    def outcome(self) -> Outcome | None:
        return worst(case.outcome for case in self.cases)

    @property
    def counts(self) -> Counter[Outcome]:
        return Counter(case.outcome for case in self.cases)


@dataclass
class Cell(_CaseOutcomes):
    op: str
    dtype: str
    cases: list[CaseRef] = field(default_factory=list)

    @property
    def first_problem(self) -> CaseRef | None:
        """The worst non-PASS case: where a click on the cell should lead."""
        problems = [case for case in self.cases if case.outcome is not Outcome.PASS]
        return min(problems, key=lambda case: case.outcome.severity, default=None)


@dataclass
class CoverageMatrix:
    ops: list[str]
    dtypes: list[str]
    cells: dict[tuple[str, str], Cell]
    not_run: set[tuple[str, str]]  # in the golden manifest, but no result in this run
    unmapped: list[str]  # execute-layer test ids whose op/dtype could not be determined
    # per op: where its cases' expected values come from -- "spec" (the StableHLO spec reference, golden family
    # `spec`), "xla" (JAX on CPU, checked with numpy) or "spec+xla" (both)
    sources: dict[str, str] = field(default_factory=dict)

    def cell(self, op: str, dtype: str) -> Cell | None:
        return self.cells.get((op, dtype))

    @property
    def covered_pairs(self) -> int:
        """(op, dtype) pairs with at least one PASS."""
        return sum(1 for cell in self.cells.values() if Outcome.PASS in cell.counts)


def normalize_op(op: str) -> str:
    return op[len("stablehlo."):] if op.startswith("stablehlo.") else op


def parse_case_id(case_id: str) -> tuple[str | None, str | None]:
    """`elementwise.add.f32.r2` -> ("add", "f32"): the dtype is the component that looks like one."""
    parts = case_id.split(".")
    for index, part in enumerate(parts):
        if index >= 1 and _DTYPE.match(part):
            op_parts = parts[1:index] if index >= 2 else parts[:index]
            return (".".join(op_parts) or None), part
    return None, None


def case_id_of(test: TestRecord) -> str | None:
    details = test.details
    if details.get("case_id"):
        return str(details["case_id"])
    match = re.search(r"\[([^\[\]]+)\]$", test.id)
    if match and match.group(1).count(".") >= 2:
        return match.group(1)
    return None


def _tag_value(tags: Iterable[str], key: str) -> str | None:
    for tag in tags:
        if isinstance(tag, str) and tag.startswith(key + ":"):
            return tag[len(key) + 1:]
    return None


def _as_list(value: Any) -> list[str]:
    """A list of names from a list, a comma-separated string or one name."""
    if value is None or value == "":
        return []
    if isinstance(value, (list, tuple)):
        return [str(item) for item in value if item]
    return [part.strip() for part in str(value).split(",") if part.strip()]


def op_dtype_of(test: TestRecord, manifest: dict[str, dict[str, Any]]) -> tuple[list[str], str | None]:
    details = test.details
    tags = test.tags
    case_id = case_id_of(test)
    entry = manifest.get(case_id, {}) if case_id else {}
    parsed_op, parsed_dtype = parse_case_id(case_id) if case_id else (None, None)
    explicit = _as_list(details.get("op")) or _as_list(_tag_value(tags, "op"))
    if entry.get("op") and entry.get("attributes"):  # an attribute-space case: its id names attributes, not the op
        ops = [str(entry["op"])]
    elif len(explicit) == 1 or (explicit and not parsed_op):
        ops = explicit
    else:  # several ops (every op of the program): the case id names the one under test
        ops = _as_list(parsed_op) or _as_list(entry.get("op") or entry.get("ops"))
    dtype = details.get("dtype") or _tag_value(tags, "dtype") or parsed_dtype
    dtype = dtype or _first(entry.get("dtype") or entry.get("dtypes"))
    return sorted({normalize_op(op) for op in ops}), (str(dtype) if dtype else None)


def _first(value: Any) -> str | None:
    items = _as_list(value)
    return items[0] if items else None


def load_golden_manifest() -> dict[str, dict[str, Any]]:
    """The golden manifest's cases if the golden tree is present and readable; {} otherwise."""
    from pjrt_cts.golden.corpus import CorpusError, load_manifest
    from pjrt_cts.resources import golden_dir

    try:  # the manifest the run's consistency check already read (load_manifest keeps it)
        return {case.id: case.raw for case in load_manifest(golden_dir()).cases}
    except (CorpusError, OSError, ValueError, EOFError):
        return {}


def build_matrix(tests: Iterable[TestRecord], manifest: dict[str, dict[str, Any]] | None = None) -> CoverageMatrix:
    manifest = manifest or {}
    cells: dict[tuple[str, str], Cell] = {}
    unmapped: list[str] = []
    for test in tests:
        if test.layer != EXECUTE_LAYER:
            continue
        ops, dtype = op_dtype_of(test, manifest)
        if not ops or not dtype:
            unmapped.append(test.id)
            continue
        test_id = test.id
        ref = CaseRef(test_id, test.outcome, case_id_of(test) or test_id, anchor_for(test_id))
        for op in ops:
            cells.setdefault((op, dtype), Cell(op, dtype)).cases.append(ref)
    not_run: set[tuple[str, str]] = set()
    sources: dict[str, set[str]] = {}
    for case_id, entry in manifest.items():
        ops, dtype = op_dtype_of(TestRecord(id=case_id, details={"case_id": case_id}), {case_id: entry})
        for op in ops:
            sources.setdefault(op, set()).update(str(entry.get("expected_source", "xla")).split("+"))
            if dtype and (op, dtype) not in cells:
                not_run.add((op, dtype))
    pairs = set(cells) | not_run
    ops_sorted = sorted({op for op, _ in pairs})
    dtypes_sorted = sorted({dtype for _, dtype in pairs}, key=_dtype_sort_key)
    labels = {op: "+".join(s for s in ("spec", "xla") if s in found) for op, found in sources.items()}
    return CoverageMatrix(ops_sorted, dtypes_sorted, cells, not_run, unmapped, labels)


def expected_sources(manifest: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Per op (as the matrix names it): where its cases' expected values come from (CoverageMatrix.sources)."""
    return build_matrix((), manifest).sources


def _dtype_sort_key(dtype: str) -> tuple[int, str]:
    return (DTYPE_ORDER.index(dtype), "") if dtype in DTYPE_ORDER else (len(DTYPE_ORDER), dtype)


@dataclass
class AttributeRow(_CaseOutcomes):
    """One (op, attribute) of the corpus's attribute-space cases: the values exercised and how they fared."""

    op: str
    attribute: str
    values: set[str] = field(default_factory=set)
    passed_values: set[str] = field(default_factory=set)
    cases: list[CaseRef] = field(default_factory=list)


def _value_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def build_attribute_coverage(tests: Iterable[TestRecord], manifest: dict[str, dict[str, Any]]) -> list[AttributeRow]:
    """(op, attribute) rows from the execute-layer results of cases that record `attributes` in the manifest;
    values of cases that did not run count as exercised but not passed."""
    rows: dict[tuple[str, str], AttributeRow] = {}
    outcomes: dict[str, CaseRef] = {}
    for test in tests:
        if test.layer != EXECUTE_LAYER:
            continue
        case_id = case_id_of(test)
        if case_id and case_id in manifest:
            outcomes[case_id] = CaseRef(test.id, test.outcome, case_id, anchor_for(test.id))
    for case_id, entry in manifest.items():
        attributes = entry.get("attributes")
        if not isinstance(attributes, dict) or not entry.get("op"):
            continue
        op = normalize_op(str(entry["op"]))
        ref = outcomes.get(case_id)
        for name, value in attributes.items():
            row = rows.setdefault((op, str(name)), AttributeRow(op, str(name)))
            text = _value_text(value)
            row.values.add(text)
            if ref is not None:
                row.cases.append(ref)
                if ref.outcome is Outcome.PASS:
                    row.passed_values.add(text)
    return [rows[key] for key in sorted(rows)]
