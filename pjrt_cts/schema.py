"""The typed shapes of what crosses a process or file boundary (issue 30).

Inside a process the code is typed; the moment data crosses a process or file boundary it used to become
strings and dicts. This module is the one place those shapes are declared, as frozen dataclasses checked with mypy's strict flags,
and the one codec that turns them into JSON and back: msgspec (chosen by measurement, docs/bench.md "The codec"),
which also generates their JSON Schemas (pjrt_cts.cli.schema, docs/schema/). `to_json` / `from_json` on every shape
are the codec's, not hand-written:

- the run context: what a worker, an isolated child, a robustness/fuzz child, a multi-process node, a framework
  child or the proxy needs to know about the run (one context file, named by one environment variable);
- the test record: one test's outcome, as results.jsonl and results.json store it;
- the results: the whole results.json.

File formats stay compatible: `from_json` reads what earlier versions wrote (`_upgrade_record`).
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, ClassVar, Mapping, TypeVar

import msgspec

from pjrt_cts.judgment.outcomes import Outcome, layer_of

# -- the codec ----------------------------------------------------------------------------------------------
# Every JSON file the suite writes or reads goes through these functions (msgspec; docs/bench.md "The codec").

T = TypeVar("T")
S = TypeVar("S", bound="Shape")
# How a non-finite float is written: the token Python's json module wrote for it, as a string (strict JSON has no
# such numbers; `float(text)` reads each back).
_NON_FINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}


def _enc_hook(value: Any) -> Any:
    """What JSON holds for a value msgspec does not encode by itself."""
    if isinstance(value, Tally):
        return value.to_json()
    return str_or_list(value)


def str_or_list(value: Any) -> Any:
    """A numpy scalar or array as its Python value, anything else (a path ...) as its text."""
    return value.tolist() if hasattr(value, "tolist") else str(value)


def _dec_hook(kind: type, value: Any) -> Any:
    if kind is Tally:
        return Tally.from_json(value)
    raise NotImplementedError(kind)


_ENCODER = msgspec.json.Encoder(enc_hook=_enc_hook)
_SORTED_ENCODER = msgspec.json.Encoder(enc_hook=_enc_hook, order="sorted")


def encode(value: Any, *, indent: int = 0, sort_keys: bool = False) -> bytes:
    """`value` (a shape, or plain data) as JSON text; `indent` > 0: one value per line, as the files are written."""
    text = (_SORTED_ENCODER if sort_keys else _ENCODER).encode(value)
    return msgspec.json.format(text, indent=indent) if indent else text


def decode(text: str | bytes, kind: type[T]) -> T:
    """JSON text as `kind`; ValueError (msgspec's DecodeError/ValidationError) says where it does not fit. Files
    that Python's json module wrote may hold the non-standard tokens NaN and Infinity: read through it."""
    try:
        return msgspec.json.decode(text, type=kind, dec_hook=_dec_hook)
    except msgspec.ValidationError:
        raise
    except msgspec.DecodeError:
        return convert(json.loads(text), kind)


def convert(data: Any, kind: type[T]) -> T:
    """Plain data (as json.loads or tomllib give it) as `kind`; msgspec.ValidationError (a ValueError) names the
    path of what does not fit (`$.tests[3].outcome`)."""
    return msgspec.convert(data, kind, dec_hook=_dec_hook)


E = TypeVar("E", bound=Exception)


def convert_file(data: Any, kind: type[T], where: str, error: type[E]) -> T:
    """A file's data (a TOML file as tomllib gives it) as `kind`; `error` names the file (`where`), the key's path
    and what it expected (`plugins/x/profile.toml: Expected `int`, got `bool` - at `$.expected_device_count``)."""
    try:
        return convert(data, kind)
    except msgspec.ValidationError as exc:
        raise error(f"{where}: {exc}") from None


def to_builtins(value: Any) -> Any:
    """A shape (or data holding numpy values, paths ...) as plain JSON data: what json.loads gives for its file."""
    return msgspec.json.decode(_ENCODER.encode(value))


def finite(value: Any) -> Any:
    """Plain data with each non-finite float replaced by its text ("NaN", "Infinity", "-Infinity"), each tuple a
    list and bytes their hex digits: what a test records in `details` may hold them, JSON has none (the codec would write null)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else _NON_FINITE.get(value, "NaN")
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(item) for item in value]
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    return value


class Shape:
    """A shape of a file: `to_json` / `from_json` through the codec. A shape lists in LEFT_OUT the keys its file
    leaves out when they hold the given value (a record's empty `api_calls`)."""

    LEFT_OUT: ClassVar[Mapping[str, Any]] = {}

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = to_builtins(self)
        return _leave_out(data, self.LEFT_OUT)

    @classmethod
    def from_json(cls: type[S], data: Any) -> S:
        """`data` as this shape; what does not fit is first upgraded (`upgrade`), then msgspec.ValidationError."""
        try:
            return convert(data, cls)
        except msgspec.ValidationError:
            upgraded = cls.upgrade(data)
            if upgraded is data:
                raise
            return convert(upgraded, cls)

    @classmethod
    def upgrade(cls, data: Any) -> Any:
        """An earlier version's form of the shape in today's; `data` itself when the shape has none."""
        return data


def _leave_out(data: dict[str, Any], left_out: Mapping[str, Any]) -> dict[str, Any]:
    for key, value in left_out.items():
        if key in data and data[key] == value:
            del data[key]
    return data

# -- the run context ----------------------------------------------------------------------------------------
# `pjrt-cts run` writes one context file per run (out/.run/context.json) and names it in one environment variable,
# CONTEXT_ENV, which every process it starts inherits: workers, isolated children, robustness/fuzz children,
# multi-process nodes, framework children. They all read it through `run_context()`; no other environment variable
# carries the run. A bare `pytest suites/...` has no context file and gets the defaults: the bundled plugin with
# DEFAULT_CPU_OPTIONS, out/ as output directory, and the user settings of the environment (UserSettings).

CONTEXT_ENV = "PJRT_CTS_CONTEXT"  # path of the run's context file
CONTEXT_SCHEMA_VERSION = 1
DEFAULT_CPU_OPTIONS: Mapping[str, Any] = {"cpu_device_count": 4}  # the bundled plugin, run without a context file
DEFAULT_FUZZ_SEED = 20260701  # runs are reproducible by default

# Settings a person sets by hand in the environment of `pjrt-cts run` (or of a bare pytest run); read only by
# UserSettings.from_environment, when the run context is made, and recorded in it.
FUZZ_SEED_ENV = "PJRT_CTS_FUZZ_SEED"  # seed of the robustness layer's MLIR mutation fuzzer
NUM_NODES_ENV = "PJRT_CTS_NUM_NODES"  # node processes the multiprocess layer starts
KV_BACKEND_ENV = "PJRT_CTS_KV_BACKEND"  # store behind the multiprocess nodes' KV callbacks: auto | jaxlib | loopback


@dataclass(frozen=True)
class UserSettings(Shape):
    """The user's knobs of the robustness and multiprocess layers (docs/ARCHITECTURE.md, "User settings")."""

    fuzz_seed: int = DEFAULT_FUZZ_SEED
    num_nodes: int = 2
    kv_backend: str = "auto"  # checked where a store is opened (pjrt_cts.kvstore.requested_backend)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> UserSettings:
        """The settings of `environ` (default os.environ); ValueError names the variable of a malformed one."""
        env = os.environ if environ is None else environ
        seed = env.get(FUZZ_SEED_ENV, "").strip()
        nodes = env.get(NUM_NODES_ENV, "").strip()
        try:
            fuzz_seed = int(seed, 0) if seed else DEFAULT_FUZZ_SEED
        except ValueError:
            raise ValueError(f"{FUZZ_SEED_ENV}={seed!r}: not an integer") from None
        try:
            num_nodes = int(nodes) if nodes else 2
        except ValueError:
            raise ValueError(f"{NUM_NODES_ENV}={nodes!r}: not an integer") from None
        kv_backend = (env.get(KV_BACKEND_ENV) or "auto").strip().lower()
        return cls(fuzz_seed=fuzz_seed, num_nodes=num_nodes, kv_backend=kv_backend)



@dataclass(frozen=True)
class TopologySpec(Shape):
    """One topology the run compiles for without a device (the aot layer; docs/levels.md, "The AOT tier"):
    PJRT_TopologyDescription_Create(`name`, `options`). `multi_device_options` (if any) replace `options` for the
    topology the multi-device golden programs compile for (the CUDA plugin's device count is an option)."""

    label: str  # how the run names it: `run --topology LABEL`, test details, the verdict's note
    name: str = ""  # PJRT_TopologyDescription_Create's topology_name ("": the plugin's default)
    options: Mapping[str, Any] = field(default_factory=dict)
    multi_device_options: Mapping[str, Any] | None = None



@dataclass(frozen=True)
class RunContext(Shape):
    """What any process of a run needs to know about it: the plugin under test and how to create its client,
    where the run's files go, and what the controller decided for its workers."""

    schema_version: int = CONTEXT_SCHEMA_VERSION
    plugin_path: str | None = None  # None: the bundled plugin (pjrt_cts.runtime.default_plugin_path)
    create_options: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_CPU_OPTIONS))
    profile: str = ""  # profile name; "" for a bare plugin path
    out_dir: str = "out"  # the run's output directory (reproduction files go below it)
    # PJRT error code names with which the profile documents that PJRT_Client_Create finds no device here
    no_device_codes: frozenset[str] = frozenset()
    blocks_file: str | None = None  # the preflight's and crash storms' blocks (pjrt_cts.runner.blocks)
    settings: UserSettings = field(default_factory=UserSettings)
    # The topologies the aot layer compiles for (the profile's, or `--topology`); none: the plugin's default ("").
    topologies: tuple[TopologySpec, ...] = ()
    device_less: bool = False  # `run --aot`: no client is created, as on a host without the plugin's device

    def write(self, path: Path) -> None:
        """Write the context file atomically (a child may start reading it at any moment)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        partial.write_bytes(encode(self, indent=1, sort_keys=True))
        partial.replace(path)

    def __post_init__(self) -> None:
        if self.schema_version != CONTEXT_SCHEMA_VERSION:
            raise ValueError(f"run context schema_version {self.schema_version!r}: this pjrt-cts reads "
                             f"{CONTEXT_SCHEMA_VERSION}")

    @classmethod
    def read(cls, path: Path) -> RunContext:
        return decode(path.read_bytes(), cls)


def context_environment(path: Path) -> dict[str, str]:
    """The one variable a process started for a run needs: the run's context file, written at `path`."""
    return {CONTEXT_ENV: str(path)}


def run_context() -> RunContext:
    """The context of the run this process belongs to: the file CONTEXT_ENV names, else the defaults of a bare
    pytest run (the bundled plugin, out/, the user settings of the environment). The one reader of the run."""
    path = os.environ.get(CONTEXT_ENV)
    if path:
        return RunContext.read(Path(path))
    return RunContext(settings=UserSettings.from_environment())


# -- test records and results -------------------------------------------------------------------------------
#
# One test record is what results.jsonl holds on each line and results.json in its `tests` list; `Results` is the
# whole results.json. Each field's `doc` is the line docs/ARCHITECTURE.md shows for it (`field_table` renders the
# table; tests/house/test_schema_doc.py keeps the two equal).

SCHEMA_VERSION = 1


def _doc(text: str, **kwargs: Any) -> Any:
    """A dataclass field that carries its one-line description for the docs."""
    return field(metadata={"doc": text}, **kwargs)


@dataclass(frozen=True)
class Expected(Shape):
    """What the expectations file said about a test (pjrt_cts.runner.controller.expectations), kept on its record."""

    pattern: str = _doc("the entry's test-id pattern, or `defect:<id>` for a defect waiver")
    outcome: Outcome = _doc("the outcome the entry expects (a defect waiver: the actual failing outcome)")
    cause: str | None = _doc("the regular expression the failure message must match, or null")
    reason: str = _doc("why the plugin fails so (the entry's reason)")
    url: str | None = _doc("where the defect is tracked, or null")
    actual: Outcome = _doc("the outcome the test had before the expectation applied")
    defect: str | None = _doc("a defect waiver's catalogue id (absent otherwise)", default=None)
    intermittent: bool = _doc("the failure does not show on every run (absent when false)", default=False)
    mismatch: str | None = _doc("the test failed otherwise than the entry says: not waived (absent otherwise)",
                                default=None)

    LEFT_OUT: ClassVar[Mapping[str, Any]] = {"defect": None, "intermittent": False, "mismatch": None}

    @classmethod
    def upgrade(cls, data: Any) -> Any:
        return _upgrade_expected(data) if isinstance(data, dict) else data


class _Observed(Shape):
    """An observation's fields may be missing in a file (their defaults apply), its outcome one this version does
    not know (ERROR)."""

    @classmethod
    def upgrade(cls, data: Any) -> Any:
        return {**data, "outcome": _outcome_name(data.get("outcome"))} if isinstance(data, dict) else data


@dataclass(frozen=True)
class Observation(_Observed):
    """One observation of a test (pjrt_cts.runner.controller.confirmation): a FLAKY record keeps both in
    `details.observations`."""

    outcome: Outcome = _doc("the observation's actual outcome", default=Outcome.ERROR)
    message: str = _doc("its message (cut at 2000 characters)", default="")
    duration: float = _doc("its seconds", default=0.0)
    cause: str = _doc("its cause class (the defect, a crash's signal, or the message without numbers)", default="")



@dataclass(frozen=True)
class Confirmation(_Observed):
    """The second observation of a finding, rerun in a fresh process (pjrt_cts.runner.controller.confirmation)."""

    outcome: Outcome = _doc("the rerun's actual outcome", default=Outcome.ERROR)
    message: str = _doc("the rerun's message (cut at 500 characters)", default="")
    duration: float = _doc("the rerun's seconds", default=0.0)
    confirmed: bool = _doc("the same outcome and cause class as the first observation", default=False)


class Tally:
    """One PJRT function's calls in one test (a record's `api_calls`), or summed over tests: `calls` made, `failed`
    of them returned an error, `codes` of those errors in alphabetical order (PJRT_Error_Code names; UNKNOWN_CODE: a
    code outside the enum; NEVER_RETURNED: the process died inside the call; pjrt_cts.runtime.callcount). `calls` 0: the test looked for the function and did not reach it (a missing slot
    or a NULL extension function, a slot it declared it requires). Not a dataclass: the file holds it as one integer
    or one string (`to_json`), the codec's one custom type."""

    __slots__ = ("calls", "failed", "codes")

    def __init__(self, calls: int, failed: int = 0, codes: tuple[str, ...] = ()) -> None:
        self.calls, self.failed, self.codes = calls, failed, codes

    def _key(self) -> tuple[int, int, tuple[str, ...]]:
        return self.calls, self.failed, self.codes

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tally) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Tally(calls={self.calls}, failed={self.failed}, codes={self.codes})"

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.calls + other.calls, self.failed + other.failed, tuple(sorted({*self.codes, *other.codes})))

    def to_json(self) -> int | str:
        """The calls (an integer) when none failed, else `"calls failed CODE,CODE"` (one line of results.json)."""
        if not self.failed and not self.codes:
            return self.calls
        return f"{self.calls} {self.failed} {','.join(self.codes)}".rstrip()

    @classmethod
    def from_json(cls, value: object) -> Tally:
        if isinstance(value, int) and not isinstance(value, bool):
            return cls(value)
        words = str(value).split()
        numbers = [int(word) for word in words[:2] if word.isdigit()]
        return cls(numbers[0] if numbers else 0, numbers[1] if len(numbers) > 1 else 0,
                   tuple(code for code in words[2].split(",") if code) if len(words) > 2 else ())


Tallies = Mapping[str, Tally]
# A tally in the JSON Schemas (pjrt_cts.cli.schema): the calls, or "calls failed CODE,CODE".
TALLY_SCHEMA: Mapping[str, Any] = {"anyOf": [{"type": "integer", "minimum": 0},
                                             {"type": "string", "pattern": "^[0-9]+ [0-9]+( [A-Z_]+(,[A-Z_]+)*)?$"}]}


def merge_tallies(*tables: Tallies) -> dict[str, Tally]:
    """The sum of several tables of tallies (a test's phases, a process and its children, the tests of a run)."""
    total: dict[str, Tally] = {}
    for table in tables:
        for name, tally in table.items():
            known = total.get(name)
            total[name] = tally if known is None else known + tally
    return total


def tallies_to_json(tallies: Tallies) -> dict[str, int | str]:
    """A table of tallies as a file holds it, functions in alphabetical order."""
    return {name: tallies[name].to_json() for name in sorted(tallies)}


def decode_tallies(data: object) -> dict[str, Tally]:
    return convert(data, dict[str, Tally]) if isinstance(data, dict) else {}


@dataclass(frozen=True)
class TestRecord(Shape):
    """One test's result: a line of results.jsonl, an entry of results.json `tests`. Update one with
    `dataclasses.replace`."""

    __test__ = False  # not a pytest test class, whatever its name

    id: str = _doc("the stable test id (`client.devices.test_lookup[3]`): expectation files and baselines name it")
    nodeid: str = _doc("pytest's node id (`suites/client/test_devices.py::test_lookup[3]`)", default="")
    layer: str = _doc("the suite layer (`client`)", default="")
    outcome: Outcome = _doc("the final outcome, after confirmation, consistency rules and expectations",
                            default=Outcome.ERROR)
    duration: int | float = _doc("seconds, setup to teardown", default=0.0)  # an integer as written
    message: str = _doc("why (the failure, the skip reason); empty for a PASS", default="")
    details: dict[str, Any] = _doc("what the test recorded (numeric diffs, `blocked_by`, `unsupported_by`, "
                                   "`observations`, `consistency`, `deselected_by`, ...)", default_factory=dict)
    tags: tuple[str, ...] = _doc("the test's tags (`isolated`, `nondeterministic`, ...)", default=())
    expected: Expected | None = _doc("what the expectations file said about the test, or null", default=None)
    repro: str = _doc("a command that runs the test again", default="")
    defect: str | None = _doc("the catalogue id of the defect its finding is attributed to, `unclassified`, or null "
                              "when the test is no finding", default=None)
    confirmation: Confirmation | None = _doc("the second observation of a finding, or null when not rerun",
                                             default=None)
    compatibility: dict[str, Any] = _doc("version facts the test learned (results.jsonl only; merged into "
                                         "results.json `compatibility`)", default_factory=dict)
    api_calls: dict[str, Tally] = _doc("the PJRT functions the test called (`Client_Compile`, extension functions as "
                                       "`LAYOUTS.Client_GetDefaultLayout`) and how: the calls, or `\"calls failed "
                                       "CODE,...\"` when some returned an error (0 calls: looked for, not reached); "
                                       "absent when it called none", default_factory=dict)

    @property
    def actual_outcome(self) -> Outcome:
        """What happened, before the expectations file turned it into XFAIL / XPASS."""
        return self.expected.actual if self.expected is not None else self.outcome

    def __post_init__(self) -> None:
        if not self.layer and self.id:  # a slim gate baseline's entry or an early record: the id says
            object.__setattr__(self, "layer", layer_of(self.id))

    def to_json(self, *, private: bool = False) -> dict[str, Any]:
        """The results.json entry; `private`: as a results.jsonl line (with `compatibility` when it has any)."""
        return _record_json(to_builtins(self), private)

    def to_slim_json(self) -> dict[str, Any]:
        """A gate baseline's entry (`pjrt-cts gate --write-baseline`): id, layer, outcome and a finding's defect."""
        data: dict[str, Any] = {"id": self.id, "layer": self.layer, "outcome": self.outcome.value}
        if self.defect:
            data["defect"] = self.defect
        return data

    @classmethod
    def upgrade(cls, data: Any) -> Any:
        """A record as any version wrote it (results.json, results.jsonl, a slim gate baseline)."""
        return _upgrade_record(data)


def _record_json(data: dict[str, Any], private: bool) -> dict[str, Any]:
    """A record's builtins as the files hold them: `api_calls` only when the test called something (functions in
    alphabetical order), `compatibility` only in results.jsonl, an expectation's optional keys only when set,
    (a test's `details` and `compatibility` are plain JSON data already: pjrt_cts.judgment.results.jsonable)."""
    compatibility = data.pop("compatibility")
    calls = data["api_calls"]
    if calls:
        data["api_calls"] = dict(sorted(calls.items()))
    else:
        del data["api_calls"]
    if private and compatibility:
        data["compatibility"] = compatibility
    if data["expected"] is not None:
        _leave_out(data["expected"], Expected.LEFT_OUT)
    return data


_OUTCOMES = frozenset(outcome.value for outcome in Outcome)
_RECORD_TEXT = ("id", "nodeid", "message", "repro")  # an early record may hold null for these


def _upgrade_record(data: Any) -> Any:
    """A record of an earlier version (or a partial one a test writes) in today's shape: an unknown outcome is the
    suite's own problem (ERROR), null text is empty, an expectation's `status` is its `outcome` (the first files'
    name) and its `actual` defaults to it."""
    if not isinstance(data, dict):
        return data
    data = {key: value for key, value in data.items() if value is not None or key not in _RECORD_TEXT}
    data["id"] = data.get("id", "")
    data["outcome"] = _outcome_name(data.get("outcome"))
    if not isinstance(data.get("duration", 0.0), (int, float)):
        del data["duration"]
    for key in ("details", "compatibility", "api_calls"):
        if not isinstance(data.get(key, {}), dict):
            del data[key]
    for key in ("expected", "confirmation"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            data[key] = None
    if isinstance(data.get("expected"), dict):
        data["expected"] = _upgrade_expected(data["expected"])
    if isinstance(data.get("confirmation"), dict):
        data["confirmation"] = {**data["confirmation"], "outcome": _outcome_name(data["confirmation"].get("outcome"))}
    return data


def _upgrade_expected(data: dict[str, Any]) -> dict[str, Any]:
    outcome = _outcome_name(data.get("outcome") or data.get("status"))
    upgraded = {"pattern": "", "cause": None, "reason": "", "url": None, **data, "outcome": outcome,
                "actual": _outcome_name(data["actual"]) if data.get("actual") else outcome}
    upgraded.pop("status", None)
    return upgraded


def _outcome_name(value: object) -> str:
    return value if isinstance(value, str) and value in _OUTCOMES else Outcome.ERROR.value


@dataclass(frozen=True)
class PhaseInfo(Shape):
    """What a worker adds to one phase report of a test (pytest's report carries it to the controller, which folds
    the phases into the test's record: pjrt_cts.runner.records). Every field is optional."""

    outcome: Outcome | None = None  # decided by the worker (NOT_SUPPORTED, WARNING, ...), else from pytest's report
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    compatibility: dict[str, Any] = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    api_calls: dict[str, Tally] = field(default_factory=dict)  # the test's calls (its teardown report carries them)

    LEFT_OUT: ClassVar[Mapping[str, Any]] = {"outcome": None, "message": "", "details": {}, "compatibility": {},
                                             "tags": [], "api_calls": {}}

    @classmethod
    def from_json(cls, data: Any) -> PhaseInfo:
        """The info a phase report carries; a report without any (None) gets none."""
        return convert(data, cls) if isinstance(data, dict) else cls()


# Run-level facts results.json carries beside the tests (written by the runner; the verdict reads selection, shard,
# quick and contract): what the records are bound to, what was selected, what confirming them cost, whether the
# mandatory lists agree with the suites.
RUN_FACTS = ("binding", "selection", "confirmation", "shard", "quick", "contract")


@dataclass(frozen=True)
class Results(Shape):
    """results.json (schema_version 1), its fields in the file's key order. Sections other than `tests` are JSON
    objects documented in docs/ARCHITECTURE.md; a section a file lacks is None (a slim gate baseline holds `tests`
    and little else)."""

    schema_version: int = _doc("the schema version: 1", default=SCHEMA_VERSION)
    tool: dict[str, Any] | None = _doc("{name, version} of the pjrt-cts that wrote the file", default=None)
    started_at: str | None = _doc("ISO-8601 start of the run", default=None)
    finished_at: str | None = _doc("ISO-8601 end of the run", default=None)
    wall_seconds: float | None = _doc("the run's wall-clock seconds", default=None)
    command: list[str] | None = _doc("the command line of the run", default=None)
    profile: str | None = _doc("the plugin profile (plugins/<profile>/), or null", default=None)
    plugin: dict[str, Any] | None = _doc("the plugin's identity card (preflight probe)", default=None)
    environment: dict[str, Any] | None = _doc("python, platform, cpu_count, packages", default=None)
    expectations: dict[str, Any] | None = _doc("the expectations file, its digest, unknown patterns and per-entry "
                                               "usage", default=None)
    compatibility: dict[str, Any] | None = _doc("version facts the tests learned", default=None)
    binding: dict[str, Any] | None = _doc("what `--resume` and `merge` require to be equal", default=None)
    selection: dict[str, Any] | None = _doc("what the user asked to run", default=None)
    confirmation: dict[str, Any] | None = _doc("what confirming the findings cost and found", default=None)
    shard: dict[str, Any] | None = _doc("`run --shard K/N` only: which shard", default=None)
    quick: dict[str, Any] | None = _doc("`run --quick` only: the sample", default=None)
    contract: dict[str, Any] | None = _doc("a run that could be CONFORMANT only: whether the mandatory lists agree "
                                           "with the suites it ran", default=None)
    tests: tuple[TestRecord, ...] = _doc("one record per test", default=())
    summary: dict[str, Any] | None = _doc("counts by layer and in total, and the verdict", default=None)
    defects: list[dict[str, Any]] | None = _doc("the findings as named defects (`pjrt-cts triage`)", default=None)
    api_coverage: dict[str, Any] | None = _doc("the PJRT functions the plugin offers and the tests called: calls, "
                                               "tests, worst outcome, why not reached (`pjrt-cts coverage`)",
                                               default=None)
    merged_from: list[dict[str, Any]] | None = _doc("`pjrt-cts merge` only: the shards", default=None)
    missing_shards: list[int] | None = _doc("`merge --allow-partial` only: the shards not given", default=None)
    others: dict[str, Any] = _doc("keys this version does not know, kept as read", default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The file's object, keys in the order the runner has always written them; absent sections left out."""
        data: dict[str, Any] = to_builtins(self)
        others = data.pop("others")
        for name in _RESULTS_ORDER:
            if data[name] is None and name not in _RESULTS_ALWAYS:
                del data[name]
        data["tests"] = [_record_json(test, False) for test in data["tests"]]
        data.update(others)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Results:
        """Any version-1 results.json or slim gate baseline; the caller checks the schema (pjrt_cts.judgment.results)."""
        known = {key: value for key, value in data.items() if key in _RESULTS_ORDER}
        others = {key: value for key, value in data.items() if key not in _RESULTS_ORDER and key != "others"}
        try:
            return replace(convert(known, cls), others=others)
        except msgspec.ValidationError:  # an earlier version's records
            tests = [_upgrade_record(test) for test in known.get("tests") or () if isinstance(test, dict)]
            return replace(convert({**known, "tests": tests}, cls), others=others)

    def by_id(self) -> dict[str, TestRecord]:
        return {test.id: test for test in self.tests if test.id}


# -- the run summary ------------------------------------------------------------------------------------------
# summary.json: what `pjrt-cts matrix` needs of a run, small enough to check in (no per-test records). Written by
# `pjrt-cts run` beside results.json and derived from any results.json by pjrt_cts.judgment.summary, which is the
# only place its values are computed (the verdict is judge_results's).

SUMMARY_SCHEMA_VERSION = 1
SUMMARY_FORMAT = "pjrt-cts summary"  # tells a summary.json from a results.json


@dataclass(frozen=True)
class DefectCount(Shape):
    """One named defect of a run (a row of results.json `defects`), its tests counted by how the verdict took
    them."""

    id: str = _doc("the catalogue id (`subnormals-flushed`), or `unclassified`")
    title: str = _doc("the catalogue's one-line description")
    scope: str = _doc("where the catalogue places it: `xla`, `plugin` or `unknown`")
    tests: int = _doc("its tests")
    bad: int = _doc("of them bad (FAIL, CRASH, TIMEOUT, XPASS, ERROR): the plugin's own, unwaived")
    waived: int = _doc("of them XFAIL: accepted by the profile's expectations file")
    shared: int = _doc("of them SHARED_DEVIATION: XLA itself does the same")



@dataclass(frozen=True)
class RunSummary(Shape):
    """summary.json (schema_version 1): a run's identity, verdict and defects."""

    format: str = _doc(f"always `{SUMMARY_FORMAT}`", default=SUMMARY_FORMAT)
    schema_version: int = _doc("the summary's schema version: 1", default=SUMMARY_SCHEMA_VERSION)
    distribution: str | None = _doc("the Python distribution that ships the plugin (`jax-cuda13-pjrt`), null when "
                                    "unknown", default=None)
    distribution_version: str | None = _doc("its version, null when unknown", default=None)
    profile: str | None = _doc("the plugin profile (plugins/<profile>/), or null", default=None)
    plugin_sha256: str | None = _doc("SHA-256 of the plugin binary", default=None)
    api_version: str | None = _doc("the PJRT C API version the plugin reports (`0.115`)", default=None)
    platform_name: str | None = _doc("PJRT_Client_PlatformName, null when no client was created", default=None)
    platform_version: str | None = _doc("PJRT_Client_PlatformVersion", default=None)
    device_kind: str | None = _doc("the first device's kind; kinds joined with `, ` when they differ", default=None)
    device_count: int = _doc("the client's devices", default=0)
    machine: str = _doc("the host, from results.json `environment`: architecture, CPUs, OS", default="")
    python: str | None = _doc("the Python version of the run", default=None)
    suite_version: str | None = _doc("the pjrt-cts version that ran the suite", default=None)
    corpus_sha256: str | None = _doc("the golden corpus's hash (results.json `binding`)", default=None)
    finished_at: str | None = _doc("ISO-8601 end of the run", default=None)
    wall_seconds: float | None = _doc("the run's wall-clock seconds", default=None)
    tests: int = _doc("tests in the run", default=0)
    layers_run: tuple[str, ...] = _doc("the suite layers the run has tests of", default=())
    outcomes: dict[str, int] = _doc("tests per final outcome", default_factory=dict)
    verdict: str = _doc("CONFORMANT, NON_CONFORMANT or INCOMPLETE (pjrt_cts.judgment.verdict)", default="INCOMPLETE")
    level: str | None = _doc("the highest level reached by a CONFORMANT run; null for any other verdict",
                             default=None)
    levels: tuple[str, ...] = _doc("every level a CONFORMANT run reached, lowest first; empty for any other verdict",
                                   default=())
    spec_mark: str | None = _doc("`spec ✓` / `spec ✗`, null when no spec case ran", default=None)
    line: str = _doc("the verdict line as `pjrt-cts run` prints it", default="")
    reasons: tuple[str, ...] = _doc("why NON_CONFORMANT or INCOMPLETE", default=())
    defects: tuple[DefectCount, ...] = _doc("the run's named defects, as results.json `defects` orders them",
                                            default=())
    api_slots: tuple[int, int] | None = _doc("[reached, offered]: of the PJRT_Api functions the plugin offers, how "
                                             "many the tests called (`pjrt-cts coverage`); absent when the records "
                                             "do not say", default=None)
    api_extension_functions: tuple[int, int] | None = _doc("[reached, offered]: the same for the functions of the "
                                                           "extensions it advertises that the probe found non-NULL "
                                                           "(results.json `plugin.extension_functions`); absent as "
                                                           "`api_slots`",
                                                           default=None)

    @property
    def own_defects(self) -> int:
        """Defects with a bad test: the plugin's own findings, neither waived nor shared with XLA."""
        return sum(1 for defect in self.defects if defect.bad)

    @property
    def shared_defects(self) -> int:
        """Defects with a SHARED_DEVIATION test: the verdict line's "deviations shared with XLA"."""
        return sum(1 for defect in self.defects if defect.shared)

    @property
    def waived_defects(self) -> int:
        """Defects with an XFAIL test: the verdict line's "waived defects" (each waived unclassified test is a defect
        of its own: no catalogued defect groups them)."""
        return sum(defect.waived if defect.id == "unclassified" else 1 for defect in self.defects if defect.waived)

    LEFT_OUT: ClassVar[Mapping[str, Any]] = {"api_slots": None, "api_extension_functions": None}  # a run from
    # before the calls were counted: its summary as it was written

    @classmethod
    def from_json(cls, data: Any) -> RunSummary:
        """A summary.json's object; ValueError for another format, schema version or an unknown key."""
        if not isinstance(data, dict) or data.get("format") != SUMMARY_FORMAT:
            raise ValueError(f"not a pjrt-cts summary (format {data.get('format') if isinstance(data, dict) else data!r})")
        if data.get("schema_version") != SUMMARY_SCHEMA_VERSION:
            raise ValueError(f"summary schema_version {data.get('schema_version')!r}: this pjrt-cts reads "
                             f"{SUMMARY_SCHEMA_VERSION}")
        unknown = sorted(set(data) - {item.name for item in fields(cls)})
        if unknown:  # a checked-in summary must validate against the current schema, key by key
            raise ValueError(f"summary keys this pjrt-cts does not know: {', '.join(unknown)}")
        return convert(data, cls)

    def dumps(self) -> str:
        """The file's text: indented, keys in field order, a final newline (byte-identical for equal summaries)."""
        return encode(self.to_json(), indent=1).decode("utf-8") + "\n"



# -- the bundle manifest ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BundleManifest(Shape):
    """manifest.json of a result bundle (docs/bundles.md): what the bundle's digest is the SHA-256 of."""

    format: str = _doc("always `pjrt-cts-bundle`")
    version: int = _doc("the bundle format's version: 1")
    members: dict[str, str] = _doc("each other member's name and SHA-256", default_factory=dict)


# Key order of results.json: the fields' order (the order the runner has always written them); the sections written
# even when null (a run without a profile says so).
_RESULTS_ORDER = tuple(item.name for item in fields(Results) if item.name != "others")
_RESULTS_ALWAYS = frozenset({"profile"})
def schema_constraints() -> dict[str, dict[str, Any]]:
    """What the JSON Schemas (pjrt_cts.cli.schema) add to msgspec's, by shape: the constants a reader requires, a
    field that is no key of the file (`drop`), a shape whose reader refuses unknown keys (`closed`)."""
    return {"Results": {"drop": ["others"], "const": {"schema_version": SCHEMA_VERSION}},
            "RunSummary": {"closed": True, "const": {"format": SUMMARY_FORMAT,
                                                     "schema_version": SUMMARY_SCHEMA_VERSION}}}
