"""The golden corpus as the suites see it: cases as pytest parameters, compiled and run as a framework would.

The manifest is read at collection time. If it cannot be read, every golden-driven test function gets one
placeholder parameter (`golden_corpus_unreadable`) that ERRORs in setup saying what could not be read: the
~6,400 golden tests never disappear silently. A case file that cannot be read while a test runs is an ERROR
too. Parametrizations that are empty although the corpus was read (e.g. no multi-device case) are dropped.

Single-device cases belong to compile/execute/executable; cases needing several devices (num_devices:N,
spmd, replicas) belong to the multidevice layer.
"""
from __future__ import annotations

import contextlib
import math
import re
import weakref
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, TypeVar

import numpy as np
import pytest

from pjrt_cts.testing.outcomes import CorpusUnreadable
from pjrt_cts.testing.programs import compile_cached, run
from pjrt_cts.testing.requirements import first_line, requires, unsupported_if_unimplemented

T = TypeVar("T")
UNREADABLE_MARKER = "golden_corpus_unreadable"
UNREADABLE_ID = "golden_corpus_unreadable"


class _Unreadable:
    """The placeholder parameter value of a golden test whose corpus could not be read."""

    def __repr__(self) -> str:
        return UNREADABLE_ID


UNREADABLE = _Unreadable()

_manifest: Any = None
_load_error: str | None = None


def golden_manifest() -> Any:
    """The corpus manifest, or None when it cannot be read (then `load_error()` says why)."""
    global _manifest, _load_error
    if _manifest is None and _load_error is None:
        from pjrt_cts.golden.corpus import MANIFEST_NAME, default_corpus_dir

        try:
            from pjrt_cts.golden import load_manifest

            _manifest = load_manifest()
        except Exception as error:  # noqa: BLE001 - any failure to read it is reported per golden test function
            _load_error = f"{default_corpus_dir() / MANIFEST_NAME}: {type(error).__name__}: {error}"
    return _manifest


def load_error() -> str | None:
    golden_manifest()
    return _load_error


def _unreadable_param(argnames: int) -> Any:
    reason = f"the golden corpus could not be read: {load_error()}"
    return pytest.param(*([UNREADABLE] * argnames), id=UNREADABLE_ID, marks=pytest.mark.golden_corpus_unreadable(reason))


def single_device_cases() -> list[Any]:
    manifest = golden_manifest()
    return [case for case in manifest.cases if not case.is_multi_device] if manifest is not None else []


def multi_device_cases() -> list[Any]:
    manifest = golden_manifest()
    return [case for case in manifest.cases if case.is_multi_device] if manifest is not None else []


def golden_param(argname: str = "case", cases: Sequence[Any] | None = None) -> Any:
    """`parametrize(argname, ...)` over golden cases (single-device by default), one id per case; a
    multi-device case requires its device count."""
    if golden_manifest() is None:
        return pytest.mark.parametrize(argname, [_unreadable_param(1)])
    chosen = list(single_device_cases() if cases is None else cases)
    params = [pytest.param(case, id=case.id, marks=([requires(devices=case.num_devices)] if case.is_multi_device else [])
                           + _isolation_marks([case]))
              for case in chosen]
    return pytest.mark.parametrize(argname, params)


# spec_vs_xla kinds of a program that killed XLA's own process when the corpus was generated (golden/README.md)
KILLED_XLA = frozenset({"abort", "hang"})


def killed_xla(cases: Sequence[Any]) -> bool:
    """Whether a program of these cases aborted (or hung) XLA itself when the corpus was generated."""
    return any((case.spec_vs_xla or {}).get("kind") in KILLED_XLA for case in cases)


def _isolation_marks(cases: Sequence[Any]) -> list[Any]:
    """A program that aborted (or hung) XLA itself at generation runs in a fresh subprocess (`isolated`): an
    XLA-based plugin may die the same way, and then only that child pays for it, not the worker (whose restart
    re-collects every test) -- and consecutive deaths do not look like a crash storm of the module."""
    return [pytest.mark.isolated] if killed_xla(cases) else []


def one_case_per_family() -> list[Any]:
    first: dict[str, Any] = {}
    for case in sorted(single_device_cases(), key=lambda c: c.id):
        first.setdefault(case.family, case)
    return list(first.values())


def golden_version_param(cases: Sequence[Any], argnames: str = "case,version") -> Any:
    """`parametrize(argnames, ...)`: every portable artifact version each case (or program) ships."""
    from pjrt_cts.golden.corpus import BYTECODE_VERSIONS

    if golden_manifest() is None:
        return pytest.mark.parametrize(argnames, [_unreadable_param(2)])
    return pytest.mark.parametrize(argnames, [
        pytest.param(case, version, id=f"{case.id}-{version}")
        for case in cases for version in BYTECODE_VERSIONS if f"mlirbc.{version}" in case.files])


def single_device_programs() -> list[Any]:
    """What a plugin compiles for the single-device cases: each group's program once, other cases' own."""
    manifest = golden_manifest()
    return [program for program in manifest.programs if not program.is_multi_device] if manifest is not None else []


def multi_device_programs() -> list[Any]:
    """The programs of the multi-device cases (each its own: replicated or SPMD, 2 or 4 devices)."""
    manifest = golden_manifest()
    return [program for program in manifest.programs if program.is_multi_device] if manifest is not None else []


def golden_program_param(argname: str = "program", programs: Sequence[Any] | None = None) -> Any:
    """`parametrize(argname, ...)` over golden programs (single-device by default), one id per program."""
    if golden_manifest() is None:
        return pytest.mark.parametrize(argname, [_unreadable_param(1)])
    chosen = list(single_device_programs() if programs is None else programs)
    return pytest.mark.parametrize(argname, [pytest.param(program, id=program.id,
                                                          marks=_isolation_marks(program.cases))
                                             for program in chosen])


# Not sampled for text / every-version compiles: large cases (64 MiB inputs: the execute layer has them), and
# programs whose result is a known XLA deviation on some plugins (the execute layer reports those per case).
SAMPLE_SKIPS_FAMILIES = frozenset({"large"})
SAMPLE_SKIPS_FEATURES = frozenset({"nan_propagation", "signed_zero", "spec_vs_xla"})


def one_program_per_family() -> list[Any]:
    """The sample that compiles from text and from every artifact version: per family the own program of its
    cheapest case (fewest input elements, then id). A case's own program, not its pack: the sample checks the
    formats, and compiling a whole pack again per format would cost the plugin every member's kernels again."""
    from pjrt_cts.golden.corpus import GoldenProgram

    def cost(case: Any) -> tuple:
        return (sum(math.prod(spec["shape"]) for spec in case.input_specs), case.id)  # not np.prod: 14,000 cases

    cheapest: dict[str, Any] = {}
    for case in sorted(single_device_cases(), key=cost):
        if case.family in SAMPLE_SKIPS_FAMILIES or SAMPLE_SKIPS_FEATURES & set(case.features):
            continue
        if "custom_layout" in case.features or case.donation:
            continue
        cheapest.setdefault(case.family, case)
    return sorted((GoldenProgram.of_case(case) for case in cheapest.values()), key=lambda p: p.id)


def _op_and_types(case: Any) -> tuple[str, tuple[str, ...]]:
    """What a case exercises, for picking representatives: its main op (attribute-space cases name it; else
    every op of its program but constants) and its element types."""
    op = case.raw.get("op") if hasattr(case, "raw") else None
    return (op or "+".join(name for name in case.ops if name != "stablehlo.constant"), tuple(case.dtypes))


REPRESENTED_DTYPE = "f32"  # the element type every level's golden contract is written in


def representative_cases() -> list[Any]:
    """One packed f32 case per op x element types (the first by id): the cases the compile layer also compiles
    as their own programs, so that a pack that compiles can never hide a plugin that rejects an op alone."""
    manifest = golden_manifest()
    if manifest is None:
        return []
    chosen: dict[tuple[str, tuple[str, ...]], Any] = {}
    for case in sorted(single_device_cases(), key=lambda c: c.id):
        program = manifest.program_of(case)
        if program.grouped and REPRESENTED_DTYPE in case.id.split(".")[1:]:
            chosen.setdefault(_op_and_types(case), case)
    return sorted(chosen.values(), key=lambda c: c.id)


def program_of(case: Any) -> Any:
    """The program `case` is compiled as: its group's, or its own."""
    manifest = golden_manifest()
    return manifest.program_of(case) if manifest is not None else None


def raise_if_unreadable(item: pytest.Item) -> None:
    """Setup of a placeholder parameter: ERROR saying what could not be read."""
    __tracebackhide__ = True
    mark = item.get_closest_marker(UNREADABLE_MARKER)
    if mark is not None:
        raise CorpusUnreadable(str(mark.args[0]))


def read_case(case: Any, what: str, read: Callable[[], T]) -> T:
    """`read()` of one of `case`'s files; a file that cannot be read is an ERROR naming the case and file."""
    __tracebackhide__ = True
    try:
        return read()
    except (OSError, ValueError, KeyError, EOFError) as error:
        raise CorpusUnreadable(f"golden case {case.id}: cannot read its {what}: {type(error).__name__}: {error}") from None


def drop_empty_parametrizations(items: list[pytest.Item], layer_dir: Path) -> None:
    """Drop `layer_dir`'s items whose parametrization is empty although the corpus was read (e.g. no
    multi-device case). Removed without `pytest_deselected`: a test with no case is not a result."""
    in_layer: dict[str, bool] = {}  # per test file, not per item

    def is_empty(item: pytest.Item) -> bool:
        file = str(item.path)
        if file not in in_layer:
            in_layer[file] = layer_dir in Path(file).resolve().parents
        if not in_layer[file]:
            return False
        return any(str(mark.kwargs.get("reason", "")).startswith("got empty parameter set")
                   for mark in item.iter_markers("skip"))

    empty = {id(item) for item in items if is_empty(item)}
    # Read the manifest only when something looks empty: an isolated child collecting one test skips the read.
    if not empty or golden_manifest() is None:
        return  # unreadable: every golden test function has its ERROR placeholder, nothing is empty
    items[:] = [item for item in items if id(item) not in empty]


def program_unit_of() -> dict[str, str]:
    """Golden test parameter (case or program id) -> the program it compiles: the unit whose tests should run
    on one worker (and one shard) so that the program is compiled and executed once."""
    manifest = golden_manifest()
    if manifest is None:
        return {}
    units = {program.id: program.id for program in manifest.programs}
    units.update({case.id: program.id for program in manifest.programs for case in program.cases})
    return units


def keep_programs_together(items: list[pytest.Item], golden_files: Sequence[Path]) -> None:
    """Reorder (stably) so that the golden tests of one program follow its first test: xdist's `load`
    scheduling hands consecutive tests to one worker, whose compile cache then serves them all."""
    resolved = {Path(file).resolve() for file in golden_files}
    # per test file, not per item: ~10,000 items share a few dozen files
    in_golden_file = {file: Path(file).resolve() in resolved for file in {str(item.path) for item in items}}
    if not any(in_golden_file.values()):
        return  # no golden program test collected (e.g. an isolated child): no need to read the manifest
    units = program_unit_of()
    if not units:
        return
    by_unit: dict[str, list[pytest.Item]] = {}
    order: list[Any] = []
    for item in items:
        callspec = getattr(item, "callspec", None)
        parameter = callspec.id if callspec is not None else None
        if parameter in units and in_golden_file[str(item.path)]:
            unit = units[parameter]
            if unit not in by_unit:
                by_unit[unit] = []
                order.append(by_unit[unit])
            by_unit[unit].append(item)
        else:
            order.append(item)
    items[:] = [member for entry in order for member in (entry if isinstance(entry, list) else [entry])]


# ---- StableHLO versions: what the plugin declares, used only to explain a failed real attempt ----------


def version_tuple(value: Any) -> tuple[int, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(int(part) for part in value.split("."))
    return tuple(int(part) for part in value)


def _shown(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def plugin_stablehlo_range(plugin: Any) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None]:
    """(stablehlo_minimum_version, stablehlo_current_version) from PJRT_Plugin_Attributes, None if absent."""
    attributes = plugin.attributes
    return (version_tuple(attributes.get("stablehlo_minimum_version")),
            version_tuple(attributes.get("stablehlo_current_version")))


# The first StableHLO version of portable artifacts (VHLO's own first version): no portable artifact is older.
OLDEST_PORTABLE_VERSION = (0, 9, 0)


def declared_window_problem(plugin: Any) -> str | None:
    """Why the StableHLO window the plugin declares cannot be true (None: it may be): a stablehlo_current_version
    older than every portable artifact, or a minimum above the current. Such a window holds no program a framework
    can send, so it explains no rejection: the suite then judges compiles as if nothing were declared."""
    oldest, newest = plugin_stablehlo_range(plugin)
    if newest is not None and newest < OLDEST_PORTABLE_VERSION:
        return (f"PJRT_Plugin_Attributes declares stablehlo_current_version {_shown(newest)}, older than the "
                f"first portable StableHLO version {_shown(OLDEST_PORTABLE_VERSION)}: no portable artifact lies in "
                "its window")
    if oldest is not None and newest is not None and oldest > newest:
        return (f"PJRT_Plugin_Attributes declares stablehlo_minimum_version {_shown(oldest)} above its "
                f"stablehlo_current_version {_shown(newest)}: an empty window")
    return None


def declared_unreadable_reason(plugin: Any, case: Any, version: str) -> str | None:
    """Why the plugin's declared StableHLO window excludes `case`'s `version` artifact (None: it includes it, or
    the window cannot be true: `declared_window_problem`)."""
    if declared_window_problem(plugin) is not None:
        return None
    artifact = version_tuple(case.stablehlo_version(version))
    oldest, newest = plugin_stablehlo_range(plugin)
    if artifact is not None and newest is not None and artifact > newest:
        return (f"{case.id}: the {version} portable artifact is StableHLO {_shown(artifact)}, newer than the plugin's "
                f"declared stablehlo_current_version {_shown(newest)}")
    if artifact is not None and oldest is not None and artifact < oldest:
        return (f"{case.id}: the {version} portable artifact is StableHLO {_shown(artifact)}, older than the plugin's "
                f"declared stablehlo_minimum_version {_shown(oldest)}")
    return None


def framework_artifact_version(plugin: Any, case: Any) -> str:
    """The artifact a framework sends: the newest version the plugin declares it reads.

    When the declared window excludes every artifact the case ships, the oldest one is still tried: the
    declaration alone decides nothing, it only explains a failure of that attempt (see `compiled_golden`).
    """
    from pjrt_cts.golden.corpus import BYTECODE_VERSIONS
    from pjrt_cts.testing.requirements import not_applicable

    shipped = [version for version in BYTECODE_VERSIONS if f"mlirbc.{version}" in case.files]  # newest first
    if not shipped:
        skipped = "; ".join(f"{v}: {case.bytecode_skipped.get(v, 'not generated')}" for v in BYTECODE_VERSIONS)
        not_applicable(f"{case.id} ships no portable artifact ({skipped})")
    readable = [version for version in shipped if declared_unreadable_reason(plugin, case, version) is None]
    return readable[0] if readable else shipped[-1]


def text_declared_unsupported(plugin: Any, case: Any) -> str | None:
    """Why the plugin declares it may not parse the corpus's program text (written by a newer StableHLO); None when
    it does not, or when its window cannot be true (`declared_window_problem`)."""
    if declared_window_problem(plugin) is not None:
        return None
    manifest = golden_manifest()
    written = version_tuple((manifest.stablehlo_versions or {}).get("current")) if manifest else None
    _, newest = plugin_stablehlo_range(plugin)
    if written and newest and newest < written:
        return (f"{case.id}: program text written by StableHLO {_shown(written)}; the plugin declares "
                f"stablehlo_current_version {_shown(newest)} (text is not a compatibility format)")
    return None


# ---- compiling and running cases ----------------------------------------------------------------------


def golden_input(plugin: Any, case: Any, source: str) -> tuple[Any, str | None]:
    """What compiling golden `case` (or program) from `source` ("text", or a portable artifact version) hands the
    plugin, and why the plugin declares it may not read it (None: it does not): (code, declared)."""
    __tracebackhide__ = True
    if source == "text":
        return read_case(case, "program text", case.program_text), text_declared_unsupported(plugin, case)
    code = read_case(case, f"{source} portable artifact", lambda: case.portable_bytecode(source))
    return code, declared_unreadable_reason(plugin, case, source)


def compiled_golden(client: Any, case: Any, source: str = "text") -> Any:
    """A golden case compiled from its text ("text") or a portable artifact version ("current", ...), once
    per worker. UNIMPLEMENTED from PJRT_Client_Compile is NOT_SUPPORTED; so is any compile error of an input
    the plugin declares it does not read (an artifact outside its StableHLO window, newer text)."""
    __tracebackhide__ = True

    def build() -> Any:
        code, declared = golden_input(client.plugin, case, source)
        with unsupported_if_unimplemented("PJRT_Client_Compile", declared_unsupported=declared):
            return client.compile(code)

    return compile_cached(client, ("golden", case.id, source), build)


def compiled_for_topology(topology: Any, unit: Any, source: str | None = None,
                          compile_options: bytes | None = None) -> tuple[Any, str]:
    """`unit` (a case or a program) compiled by PJRT_Compile for `topology` without a client, from `source` (default:
    the artifact a framework sends); (executable, source). Not cached: the caller closes it. UNIMPLEMENTED, or an
    error of an input the plugin declares it does not read, is NOT_SUPPORTED as for compiled_golden."""
    __tracebackhide__ = True
    version = source or framework_artifact_version(topology.plugin, unit)
    code, declared = golden_input(topology.plugin, unit, version)
    with unsupported_if_unimplemented("PJRT_Compile", declared_unsupported=declared):
        return topology.compile(code, compile_options=compile_options), version


def compiled_for_framework(client: Any, unit: Any) -> tuple[Any, str]:
    """`unit` (a case or a program) compiled from the artifact a framework sends; (executable, version)."""
    __tracebackhide__ = True
    version = framework_artifact_version(client.plugin, unit)
    return compiled_golden(client, unit, version), version


# Outputs of grouped programs already run in this worker: one execute serves every member case.
_program_outputs: "weakref.WeakKeyDictionary[Any, dict[str, list[np.ndarray] | None]]" = weakref.WeakKeyDictionary()


def attempt_markers(out: Path) -> Path:
    """Where a run (`--out`) keeps one marker per grouped program attempt: `started` until the attempt ends."""
    return out / ".run" / "golden-programs"


def _attempt_marker(program: Any) -> Path:
    from pjrt_cts.testing.plugin_under_test import output_dir

    directory = attempt_markers(output_dir())
    directory.mkdir(parents=True, exist_ok=True)
    return directory / program.id


# The program-level identity of a grouped program: its compile test (whichever layer's test meets its crash).
_PROGRAM_TEST = "compile/test_golden_programs.py::test_golden_program_compiles"
_CASE_TEST = re.compile(r"^(?P<suites>.*?)execute/test_golden_cases\.py::test_case_matches_reference\[(?P<case>.+)\]$")


def grouped_program_crash(nodeid: str, out: Path) -> str | None:
    """The nodeid of the program-level identity of the grouped program that `nodeid` (a golden case's execute test)
    was running when its process died, or None: the case's group left its attempt marker `started`.

    The crash belongs to the program, not to the member case that happened to meet it first: recorded under the
    program's compile test, it is judged (and waived) the same whichever layers run, and the case itself is run
    again, on its own program (`crashed_before`)."""
    match = _CASE_TEST.match(nodeid)
    if match is None:
        return None
    program = program_unit_of().get(match["case"])
    if program is None or program == match["case"]:
        return None  # the case is its own program: the crash is the case's
    marker = attempt_markers(out) / program
    if not marker.exists() or marker.read_text() == "done":
        return None
    return f"{match['suites']}{_PROGRAM_TEST}[{program}]"


def crashed_before(program: Any) -> bool:
    """An earlier attempt at `program` in this run (compile test or execute) never finished: it killed its worker."""
    marker = _attempt_marker(program)
    return marker.exists() and marker.read_text() != "done"


@contextlib.contextmanager
def attempt(program: Any) -> Iterator[None]:
    """Marks `program` started (in the run's output directory) until the block exits, however it exits: only a
    dead process leaves the mark, and `crashed_before` then steers the program's cases to their own programs."""
    marker = _attempt_marker(program)
    marker.write_text("started")
    try:
        yield
    finally:
        marker.write_text("done")


def grouped_outputs(client: Any, program: Any) -> list[np.ndarray] | None:
    """Every result of grouped `program` (compiled as a framework would, executed once per worker), or None
    when the plugin cannot compile or run it (the member cases then run their own programs, and the
    compile layer's test of the group reports the failure).

    A group whose first attempt killed a worker is not tried again: `<out>/.run/golden-programs/<id>` is
    written before the attempt and marked done after it, so a crash leaves it unfinished and later member
    cases go straight to their own programs instead of crashing one by one."""
    from pjrt_cts.judgment.outcomes import FeatureNotSupported
    from pjrt_cts.runtime import PjrtError, MissingFunction

    per_client = _program_outputs.setdefault(client, {})
    if program.id in per_client:
        return per_client[program.id]
    if crashed_before(program):
        return None
    outputs: list[np.ndarray] | None = None
    try:
        with attempt(program):
            executable, _ = compiled_for_framework(client, program)
            outputs = run(executable, client, read_case(program, "inputs", program.inputs))
    except (PjrtError, MissingFunction, FeatureNotSupported, pytest.skip.Exception, CorpusUnreadable):
        pass  # the member cases' own programs decide (and report) what the plugin does with them
    finally:
        per_client[program.id] = outputs
    return outputs


_own_programs_only = False


def use_own_programs() -> None:
    """From now on golden cases run their own programs, not their packs (`run --quick`: a sample holds a few cases
    of each pack, and a pack compiles every member's kernels)."""
    global _own_programs_only
    _own_programs_only = True


# How golden_case_outputs names the program that computed a case, as the execute test's message shows it ("(as
# grouped program <id>)", "(as its own program (<version> portable artifact))"): where a failure was seen, not what
# kind it is (pjrt_cts.runner.controller.confirmation.cause_class leaves it out).
COMPUTED_AS = re.compile(r" \(as (?:grouped program \S+|its own program \([^)]*\))\)")


def golden_case_outputs(client: Any, case: Any) -> tuple[list[np.ndarray], str]:
    """`case`'s outputs as a framework would get them, and which program produced them.

    A case in a group reads its slice of the group program's results; when the group cannot be compiled or
    run, the case's own program is compiled and run (so one rejected op costs its own cases only)."""
    __tracebackhide__ = True
    program = program_of(case)
    if program is not None and program.grouped and not _own_programs_only:
        outputs = grouped_outputs(client, program)
        if outputs is not None:
            return [outputs[index] for index in program.output_range(case)], f"grouped program {program.id}"
    executable, version = compiled_for_framework(client, case)
    return run_golden(executable, client, case), f"its own program ({version} portable artifact)"


_MAIN_SIGNATURE = re.compile(r"func\.func public @main\((?P<args>.*?)\)\s*->", re.S)
_ARGUMENT = re.compile(r"%arg\d+\s*:")
_LAYOUT_MODE = re.compile(r'mhlo\.layout_mode\s*=\s*"\{(?P<dims>[0-9, ]*)\}"')


def declared_argument_layouts(case: Any) -> list[list[int] | None]:
    """minor_to_major per argument from the program's `mhlo.layout_mode` (None: default row-major).

    Fallback for corpora whose manifest does not record `layouts`."""
    match = _MAIN_SIGNATURE.search(read_case(case, "program text", case.program_text))
    if match is None:
        return []
    pieces = _ARGUMENT.split(match["args"])[1:]
    layouts: list[list[int] | None] = []
    for piece in pieces:
        mode = _LAYOUT_MODE.search(piece)
        layouts.append([int(d) for d in mode["dims"].split(",") if d.strip()] if mode else None)
    return layouts


def case_inputs(case: Any) -> list[np.ndarray]:
    return read_case(case, "inputs", case.inputs)


def case_expected(case: Any) -> list[np.ndarray]:
    return read_case(case, "expected outputs", case.expected)


def case_xla_expected(case: Any) -> list[np.ndarray] | None:
    """XLA's outputs for a spec case XLA computes differently (GoldenCase.xla_expected); None for any other case
    (or a corpus object without them)."""
    read = getattr(case, "xla_expected", None)
    return read_case(case, "XLA's outputs", read) if read is not None else None


def run_golden(executable: Any, client: Any, case: Any) -> list[np.ndarray]:
    """Execute a golden case as a framework would: arguments in the layouts the program declares
    (feature custom_layout; the manifest's `layouts`), outputs read back row-major."""
    inputs = case_inputs(case)
    if "custom_layout" not in case.features:
        return run(executable, client, inputs)
    from pjrt_cts.runtime import MemoryLayout

    device = executable.addressable_devices[0]
    manifest_layouts = getattr(case, "layouts", None) or {}
    layouts = manifest_layouts.get("inputs") or declared_argument_layouts(case)
    buffers = []
    for index, array in enumerate(inputs):
        minor_to_major = layouts[index] if index < len(layouts) else None
        layout = MemoryLayout.tiled(minor_to_major) if minor_to_major is not None else None
        buffers.append(client.buffer_from_numpy(np.asarray(array), device, device_layout=layout))
    outputs = executable.execute(buffers)
    return [out.to_numpy(minor_to_major=list(range(len(out.dims)))[::-1]) for out in outputs]


__all__ = [
    "COMPUTED_AS", "UNREADABLE_ID", "case_expected", "case_inputs", "case_xla_expected", "compiled_for_framework", "compiled_golden",
    "compiled_for_topology", "golden_input", "multi_device_programs",
    "attempt", "attempt_markers", "crashed_before", "grouped_program_crash", "golden_case_outputs", "golden_program_param", "grouped_outputs", "keep_programs_together",
    "one_program_per_family", "program_of", "program_unit_of", "representative_cases",
    "single_device_programs", "declared_unreadable_reason", "declared_window_problem", "OLDEST_PORTABLE_VERSION",
    "use_own_programs",
    "drop_empty_parametrizations", "first_line", "framework_artifact_version", "golden_manifest", "golden_param",
    "golden_version_param", "load_error", "multi_device_cases", "one_case_per_family", "raise_if_unreadable",
    "read_case", "run_golden", "single_device_cases",
]
