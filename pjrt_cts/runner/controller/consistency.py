"""NOT_SUPPORTED must be consistent: a plugin cannot both support a feature and answer UNIMPLEMENTED for it.

The rules judge the NOT_SUPPORTED that rests on an answer of the plugin at run time: an UNIMPLEMENTED error
(`unsupported_by = "unimplemented"`), and an error of an input the plugin declares it does not read (`"declared"`:
an artifact outside its StableHLO window, text newer than its StableHLO, an enum value newer than its API), which is
no more than the plugin's word. Rules over a run's records (after confirmation, before the expectations;
`pjrt-cts merge` applies them again over the union of shards):

1. Same op, same element types. A golden case whose compile answered UNIMPLEMENTED while another golden case of
   the same main op on the same element types ran to an accepted result (PASS, WARNING or SHARED_DEVIATION) is a
   FAIL that names those cases: the plugin implements the op on that type, so this case is a defect of it (e.g. a
   sort along dimension -2 answered "Stable sorting of more than 2^31-1 elements is not implemented" for two
   elements). A grouped program (many cases compiled as one) answered UNIMPLEMENTED is a FAIL when the plugin ran
   some case of every op x type its member cases hold. A declared answer is judged by the same rule against
   evidence of the same input: another case of that op and those types that the same test read from an artifact
   of the same version (or from text; a test of the artifact a framework sends: a case shipping the same
   versions), so that an older plugin rejecting an op's newer encoding is not taken for one rejecting the op; a
   packed program's encoding is not its members', so the grouped-program rule leaves a declared pack alone.
2. Same element type. A test NOT_SUPPORTED because a probe upload of its element type failed (`unsupported_by =
   "element_type"`, `unsupported_subject` the type) while a golden case on that type ran to an accepted result is a
   FAIL: the plugin computes on the type elsewhere.
3. Core is every plugin's floor. An UNIMPLEMENTED (or declared) answer on a test mandatory for level Core is a
   FAIL: a plugin that does not implement what Core holds is not a plugin with fewer features. (Higher levels'
   features may be absent: their NOT_SUPPORTED keeps the level from being reached, and the verdict says so.)

The rules are pure functions of the records and the shipped golden manifest, idempotent (a converted record
keeps what it was in `details.consistency`), so every consumer recomputes the same records.
"""
from __future__ import annotations

import dataclasses
import functools
import threading
from typing import Any, Iterable

from pjrt_cts.golden.corpus import BYTECODE_VERSIONS
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.schema import TestRecord

_GOLDEN_EXECUTE = "execute.golden_cases.test_case_matches_reference"
ACCEPTED = frozenset({Outcome.PASS, Outcome.WARNING, Outcome.SHARED_DEVIATION})
_NAMED = 3  # supporting cases named in the message
_STRUCTURAL_OPS = frozenset({"stablehlo.return", "func.return", "func.func", "stablehlo.tuple",
                             "stablehlo.get_tuple_element"})
# What a judged NOT_SUPPORTED rests on (its details.unsupported_by), as the messages name it.
RUN_TIME_ANSWERS = {"unimplemented": "UNIMPLEMENTED", "declared": "NOT_SUPPORTED on the plugin's declaration"}


Key = tuple[str, tuple[str, ...]]  # (main op, element types) of a golden case
Source = tuple[str, str]  # (test function, which input of the case it read) a golden test read, see source_and_case


_preloading: threading.Thread | None = None


def preload() -> None:
    """Start reading what the rules need (the manifest: slow to read) in a background thread: the run's controller calls
    this once its tests are all recorded, while its workers still rerun findings, so that the serial end does not
    wait for it. Idempotent."""
    global _preloading
    if _preloading is None:
        _preloading = threading.Thread(target=_read_corpus, name="pjrt-cts-consistency-preload", daemon=True)
        _preloading.start()


def judges(record: TestRecord) -> bool:
    """Whether the rules look at `record` (apply_consistency needs the corpus only when some record is one)."""
    return _unimplemented(record) or _element_type_gap(record) is not None


def _await_preload() -> None:
    if _preloading is not None:
        _preloading.join()


def _corpus() -> tuple[dict[str, Key], dict[str, tuple[str, ...]]]:
    _await_preload()
    return _read_corpus()


@functools.lru_cache(maxsize=1)
def _read_corpus() -> tuple[dict[str, Key], dict[str, tuple[str, ...]]]:
    """(golden case id -> its key, grouped program id -> its member cases). Empty when the corpus cannot be read
    (nothing to compare)."""
    from pjrt_cts.golden.corpus import CorpusError, load_manifest

    try:
        manifest = load_manifest()
    except (CorpusError, OSError, ValueError):
        return {}, {}
    keys: dict[str, Key] = {}
    for case in manifest.cases:
        op = str(case.raw.get("op") or "") or "+".join(o for o in case.ops if o not in _STRUCTURAL_OPS)
        if "constant_operands" in case.features:  # computed by the constant folder, not a kernel: another path
            op += " on constant operands"
        keys[case.id] = (op, tuple(case.dtypes))
    groups = {program.id: tuple(case.id for case in program.cases) for program in manifest.programs if program.grouped}
    return keys, groups


def _case_keys() -> dict[str, Key]:
    return _corpus()[0]


def _param(test_id: str) -> str | None:
    return test_id.split("[", 1)[1][:-1] if test_id.endswith("]") and "[" in test_id else None


def case_param(test_id: str) -> str | None:
    """The golden case a test id is parametrized by (its bracketed parameter), if it names one."""
    param = _param(test_id)
    return param if param is not None and param in _case_keys() else None


def source_and_case(test_id: str) -> tuple[Source, str] | None:
    """Which test read which input, and the golden case: `...test_golden_artifact_version_compiles[<case>-current]`
    -> ((that function, "current"), case). A test parametrized by the case alone reads the same input for every case
    that ships the same artifact versions (the artifact a framework sends is chosen among them; text is one):
    -> ((function, "ships current+intermediate"), case)."""
    param = _param(test_id)
    if param is None:
        return None
    function = test_id.split("[", 1)[0]
    if param in _case_keys():
        return (function, "ships " + _shipped_artifacts().get(param, "")), param
    case, _, label = param.rpartition("-")
    return ((function, label), case) if label in BYTECODE_VERSIONS and case in _case_keys() else None


@functools.lru_cache(maxsize=1)
def _shipped_artifacts() -> dict[str, str]:
    """golden case id -> the portable artifact versions it ships ("current+intermediate"); empty when the corpus
    cannot be read."""
    from pjrt_cts.golden.corpus import CorpusError, load_manifest

    try:
        cases = load_manifest().cases
    except (CorpusError, OSError, ValueError):
        return {}
    return {case.id: "+".join(v for v in BYTECODE_VERSIONS if f"mlirbc.{v}" in case.files) for case in cases}


@functools.lru_cache(maxsize=1)
def _core_mandatory() -> frozenset[str]:
    from pjrt_cts.judgment.levels import CORE

    return frozenset(CORE.mandatory_ids())


def _element_type_gap(record: TestRecord) -> str | None:
    """The element type a NOT_SUPPORTED record says the plugin lacks (from its upload probe), if that is its reason."""
    details = record.details
    if record.outcome is not Outcome.NOT_SUPPORTED or details.get("unsupported_by") != "element_type":
        return None
    return str(details.get("unsupported_subject") or "") or None


def _unimplemented(record: TestRecord) -> bool:
    """A NOT_SUPPORTED resting on a run-time answer of the plugin (RUN_TIME_ANSWERS)."""
    return record.actual_outcome is Outcome.NOT_SUPPORTED and record.details.get("unsupported_by") in RUN_TIME_ANSWERS


def apply_consistency(records: Iterable[TestRecord]) -> list[TestRecord]:
    """`records` with every inconsistent NOT_SUPPORTED turned into a FAIL that says why."""
    records = list(records)
    if not any(judges(record) for record in records):
        _await_preload()  # a reader started for a record its rerun has changed ends here, before anything forks
        return records  # nothing the rules judge: the corpus is not read
    keys = _case_keys()
    read: dict[Source, dict[Key, list[str]]] = {}  # what each test read to an accepted result, by op x types
    for record in records:
        found = source_and_case(record.id) if record.outcome in ACCEPTED else None
        if found is not None:
            source, case = found
            read.setdefault(source, {}).setdefault(keys[case], []).append(case)
    supported: dict[Key, list[str]] = {}  # the golden cases that ran, whatever they were compiled from
    for (function, _), ran in read.items():
        for key, cases in ran.items():
            if function == _GOLDEN_EXECUTE:
                supported.setdefault(key, []).extend(cases)
    by_type: dict[str, list[str]] = {}
    for cases in supported.values():
        for case in cases:
            for dtype in keys[case][1]:
                by_type.setdefault(dtype, []).append(case)
    return [_element_type_judged(record, by_type) or _judged(record, keys, supported, read) for record in records]


def _element_type_judged(record: TestRecord, by_type: dict[str, list[str]]) -> TestRecord | None:
    dtype = _element_type_gap(record)
    cases = sorted(by_type.get(dtype or "", []))
    if dtype is None or not cases:
        return None
    names = ", ".join(cases[:_NAMED]) + (f" (+{len(cases) - _NAMED} more)" if len(cases) > _NAMED else "")
    why = (f"NOT_SUPPORTED for element type {dtype}, which the plugin computes on elsewhere: "
           f"{record.message}; {len(cases)} golden case(s) on {dtype} ran: {names}")
    return _as_fail(record, why, {"rule": "element_type", "dtype": dtype, "supported_by": cases[:20]})


def _judged(record: TestRecord, keys: dict[str, Key], supported: dict[Key, list[str]],
            read: dict[Source, dict[Key, list[str]]]) -> TestRecord:
    if not _unimplemented(record):
        return record
    test_id = record.id
    message = record.message
    kind = str(record.details.get("unsupported_by"))
    answer = RUN_TIME_ANSWERS[kind]
    case = case_param(test_id)
    # An UNIMPLEMENTED op is contradicted by any run of it; a declared input only by a read of the same input.
    found = source_and_case(test_id) if kind == "declared" else None
    evidence = read.get(found[0], {}) if found is not None else supported
    case = found[1] if found is not None else case
    others = [other for other in evidence.get(keys[case], []) if other != case] if case is not None else []
    group = _corpus()[1].get(_param(test_id) or "") if case is None and kind != "declared" else None
    if group and all(supported.get(keys[member]) for member in group):
        held = sorted({keys[member] for member in group})
        names = "; ".join(f"{op} on {'/'.join(dtypes)}" for op, dtypes in held[:_NAMED])
        why = (f"{answer} for a packed program of ops the plugin implements on these element types: {message}; "
               f"the plugin ran other cases of every op x type its {len(group)} cases hold ({names}"
               + (f", +{len(held) - _NAMED} more" if len(held) > _NAMED else "") + ")")
        return _as_fail(record, why, {"rule": "grouped_program", "members": list(group)[:20]})
    if others:
        op, dtypes = keys[case]  # type: ignore[index]  # case is not None when others is not empty
        names = ", ".join(sorted(others)[:_NAMED]) + (f" (+{len(others) - _NAMED} more)" if len(others) > _NAMED else "")
        why = (f"{answer} for one case of an op the plugin implements on this element type: {message}; "
               f"the plugin ran {len(others)} other case(s) of {op} on {'/'.join(dtypes)}: {names}")
        return _as_fail(record, why, {"rule": "op_element_type", "op": op, "dtypes": list(dtypes),
                                      "supported_by": sorted(others)[:20]})
    if test_id in _core_mandatory():
        why = f"{answer} on a test mandatory for level Core (every plugin's floor): {message}"
        return _as_fail(record, why, {"rule": "core_mandatory"})
    return record


def _as_fail(record: TestRecord, message: str, why: dict[str, Any]) -> TestRecord:
    details = dict(record.details)
    details["consistency"] = {**why, "was": Outcome.NOT_SUPPORTED.value, "message": record.message}
    details["unsupported_by"] = None  # no longer a NOT_SUPPORTED: the rules do not apply twice
    return dataclasses.replace(record, outcome=Outcome.FAIL, expected=None, message=message, details=details)
