"""StableHLO portable artifacts across the plugin's compatibility window.

Clause (StableHLO compatibility guarantees, announced through PJRT_Plugin_Attributes): a plugin
accepts portable artifacts from `stablehlo_minimum_version` to `stablehlo_current_version`, and
they mean the same thing at every version. A program from a newer StableHLO than the plugin's
current must be rejected with an error, not a crash.

The declared window is itself tested: frameworks serialize programs for the declared current version, and the
suite excuses rejections of inputs outside the window (NOT_SUPPORTED "declared"). So one Core case's artifacts
outside the window are compiled: read, they must compute right; and a window no portable artifact can lie in is
false, whatever the plugin does with them.
"""
from __future__ import annotations

import functools
import shlex
from typing import Any

import numpy as np
import pytest

from pjrt_cts.fuzz.harness import reproduce_command
from pjrt_cts.fuzz.isolate import child_environment, run_command
from pjrt_cts.fuzz.seeds import BUILTIN_SEEDS, golden_seeds
from pjrt_cts.golden import EXACT, Tolerance, compare
from pjrt_cts.golden.corpus import BYTECODE_VERSIONS
from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing import (SuiteError, assert_bit_exact, case_expected, mismatch_message, output_dir, read_case,
                              run_golden)
from pjrt_cts.testing.corpus import (OLDEST_PORTABLE_VERSION, declared_window_problem, golden_manifest, load_error,
                                     version_tuple)

LABELS = ("minimum", "intermediate", "current")
_BUILTIN_FOR_VERSIONS = ("add_mul", "reduce_sum", "while_count")
VERSION_SEEDS = (golden_seeds(limit=3, families=("elementwise", "reduce", "control"))
                 or [s for s in BUILTIN_SEEDS if s.name in _BUILTIN_FOR_VERSIONS])
def version_text(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


FLOAT_TOLERANCE = Tolerance("rel", rtol=1e-5, atol=1e-6, op_class="versioning")
CHILD_TIMEOUT = 120.0


def _run(client: Any, code: bytes | str, seed: Any) -> list[np.ndarray]:
    executable = client.compile(code)
    with executable:
        outputs = executable.execute(client.buffers_from_numpy(seed.inputs()))
        return [buffer.to_numpy() for buffer in outputs]


def _check(outputs: list[np.ndarray], expected: list[np.ndarray], what: str, seed: Any) -> None:
    assert len(outputs) == len(expected), f"{what}: {len(outputs)} outputs, expected {len(expected)}"
    for i, (got, want) in enumerate(zip(outputs, expected)):
        assert got.dtype == want.dtype and got.shape == want.shape, (
            f"{what}: output {i} is {got.dtype}{list(got.shape)}, expected {want.dtype}{list(want.shape)}")
        tolerance = seed.tolerance or (FLOAT_TOLERANCE if np.issubdtype(want.dtype, np.floating) else EXACT)
        mismatch = compare(got, want, tolerance)
        assert mismatch is None, f"{what}: output {i}: {mismatch}"


@pytest.mark.parametrize("seed", VERSION_SEEDS, ids=lambda s: s.name)
@pytest.mark.parametrize("label", LABELS)
def test_portable_artifact_compiles_and_runs(client: Any, stablehlo_window: Any, portable_artifact: Any,
                                             label: str, seed: Any, record: Any) -> None:
    target = stablehlo_window.target_for(label, seed)
    artifact = portable_artifact(seed, target)
    record.details(label=label, target=".".join(map(str, target)),
                   serialized_at=".".join(map(str, artifact.version)), source=artifact.source)
    what = (f"PJRT_Client_Compile of {seed.name} as a StableHLO {'.'.join(map(str, artifact.version))} portable "
            f"artifact ({label} of the plugin's window)")
    try:
        outputs = _run(client, artifact.data, seed)
    except Exception as error:  # noqa: BLE001 - the message names the version; PjrtError carries code and message
        raise AssertionError(f"{what} failed: {error}") from None
    _check(outputs, seed.expected(), what, seed)


@pytest.mark.parametrize("seed", VERSION_SEEDS, ids=lambda s: s.name)
def test_every_version_gives_the_same_results(client: Any, stablehlo_window: Any, portable_artifact: Any,
                                              seed: Any) -> None:
    text_outputs = _run(client, seed.text, seed)
    for label in LABELS:
        artifact = portable_artifact(seed, stablehlo_window.target_for(label, seed))
        outputs = _run(client, artifact.data, seed)
        for i, (got, want) in enumerate(zip(outputs, text_outputs)):
            assert_bit_exact(got, want, f"{seed.name}: output {i} of the {label} artifact "
                                        f"({'.'.join(map(str, artifact.version))}), against the text program's,")


def test_artifact_at_exactly_the_declared_current_version_compiles(client: Any, stablehlo_window: Any,
                                                                  portable_artifact: Any, record: Any) -> None:
    """The plugin declares it reads portable artifacts up to stablehlo_current_version: one stamped with exactly
    that version must compile and compute. When the serializer here is older than the declared version, its
    newest artifact is stamped with the declared one: VHLO ops of an older release stay readable by every newer
    reader, so only a plugin that overclaims its version rejects it. A declared version older than every portable
    artifact is no version a framework can serialize a program for."""
    seed = VERSION_SEEDS[0]
    current = stablehlo_window.current
    assert current >= OLDEST_PORTABLE_VERSION, (
        f"PJRT_Plugin_Attributes declares stablehlo_current_version {version_text(current)}, older than the first "
        f"portable StableHLO version {version_text(OLDEST_PORTABLE_VERSION)}: no program can be serialized for it "
        "(frameworks serialize for the declared current version)")
    artifact = portable_artifact(seed, current)
    data, made = artifact.data, f"serialized at {version_text(artifact.version)}"
    if artifact.version != current:
        stamp = b"StableHLO_v" + version_text(artifact.version).encode()
        assert stamp in data, f"{seed.name}: the {version_text(artifact.version)} artifact has no producer stamp"
        data = data.replace(stamp, b"StableHLO_v" + version_text(current).encode())
        made += f", stamped {version_text(current)}"
    record.details(declared_current=version_text(current), artifact=made, source=artifact.source)
    what = (f"PJRT_Client_Compile of {seed.name} as a StableHLO {version_text(current)} portable artifact (the "
            f"plugin's declared stablehlo_current_version; {made})")
    try:
        outputs = _run(client, data, seed)
    except Exception as error:  # noqa: BLE001 - the message names the version; PjrtError carries code and message
        raise AssertionError(f"{what} failed: {error}") from None
    _check(outputs, seed.expected(), what, seed)


# A case mandatory for Core: every plugin reads it, so its artifacts test the declared window.
WINDOW_CASE = "elementwise.add.f32.r1"


def test_no_portable_artifact_beyond_the_declared_window_is_read(client: Any, stablehlo_window: Any,
                                                                 record: Any) -> None:
    """The corpus's artifacts of one Core case that lie outside the declared window are compiled. The plugin may
    reject one (its declaration says it need not read it) or read it (an artifact's stamp is not its content: VHLO
    ops of an older release stay readable), but a program it reads must compute right. A window that no portable
    artifact can lie in (a current version older than StableHLO's first portable one, or a minimum above the
    current) is false: frameworks serialize for the declared version, and no rejection may rest on it."""
    manifest = golden_manifest()
    if manifest is None:
        raise SuiteError(f"the golden corpus cannot be read: {load_error()}")
    case = manifest.case(WINDOW_CASE)
    window = f"[{version_text(stablehlo_window.minimum)}, {version_text(stablehlo_window.current)}]"
    answers: dict[str, str] = {}
    for label in BYTECODE_VERSIONS:
        stamp = case.stablehlo_version(label)
        version = version_tuple(stamp)
        if version is None or stablehlo_window.minimum <= version <= stablehlo_window.current:
            continue
        what = (f"PJRT_Client_Compile of the StableHLO {stamp} portable artifact of {case.id}, outside the declared "
                f"window {window}")
        data = read_case(case, f"{label} portable artifact", functools.partial(case.portable_bytecode, label))
        try:
            executable = client.compile(data)
        except PjrtError as error:
            answers[stamp] = f"rejected: {error.code}"
            continue
        with executable:
            message, _ = mismatch_message(f"{what}, then Execute", run_golden(executable, client, case),
                                          case_expected(case), lambda _dtype: case.tolerance)
        assert message is None, f"{message}: a plugin must reject a program it cannot read, not compute it wrong"
        answers[stamp] = "read and computed right"
    record.details(window=window, case=case.id, outside_the_window=answers)
    problem = declared_window_problem(client.plugin)
    read = [stamp for stamp, answer in answers.items() if answer.startswith("read")]
    assert problem is None, (
        f"{problem}: the declared window is false; " + (
            f"PJRT_Client_Compile read the StableHLO {', '.join(read)} artifact(s) of {case.id} and computed them right"
            if read else f"PJRT_Client_Compile rejected every artifact of {case.id} ({answers}): frameworks have "
                         "nothing to send it"))


# A VHLO op or function version no StableHLO release has yet: what a newer producer would emit.
FUTURE_CONTENT = {"future_op_version": (b"add_v1", b"add_v9"), "future_func_version": (b"func_v1", b"func_v9")}


def _bump(version: tuple[int, int, int]) -> tuple[int, int, int]:
    return (version[0], version[1] + 1, 0)


@pytest.mark.own_process  # the compile runs in a child, where a newer program may crash the plugin
@pytest.mark.parametrize("kind", sorted(FUTURE_CONTENT))
def test_program_from_a_newer_stablehlo_is_rejected_cleanly(plugin_path: Any, create_options: Any, client: Any,
                                                            stablehlo_window: Any, portable_artifact: Any,
                                                            kind: str, record: Any) -> None:
    # `client` makes a plugin that cannot create one NOT_SUPPORTED here (the child compiles with a client).
    seed = next(s for s in BUILTIN_SEEDS if s.name == "add_mul")
    artifact = portable_artifact(seed, stablehlo_window.current)
    old, new = FUTURE_CONTENT[kind]
    assert old in artifact.data, f"{seed.name} artifact lacks {old!r}: cannot make the newer program"
    newer = _bump(stablehlo_window.current)
    data = artifact.data.replace(old, new).replace(
        b"StableHLO_v" + ".".join(map(str, artifact.version)).encode(),
        b"StableHLO_v" + ".".join(map(str, newer)).encode())
    directory = output_dir() / "versioning"
    directory.mkdir(parents=True, exist_ok=True)
    program = directory / f"newer-stablehlo-{kind}.mlirbc"
    program.write_bytes(data)
    outcome = run_command(reproduce_command(plugin_path, create_options, program), timeout=CHILD_TIMEOUT,
                          env=child_environment(), may_fork=True)
    record.details(program=str(program), outcome=outcome.status, result=outcome.result)
    what = (f"PJRT_Client_Compile of a StableHLO {'.'.join(map(str, newer))} program ({kind}; plugin current "
            f"{'.'.join(map(str, stablehlo_window.current))})")
    assert outcome.answered, (
        f"{what} {outcome.describe()}; reproduce: {shlex.join(reproduce_command(plugin_path, create_options, program))}")
    assert outcome.result and outcome.result.get("status") == "error", (
        f"{what} should be rejected, but it compiled (saved {program})")
    program.unlink(missing_ok=True)  # rejected cleanly: nothing to reproduce
