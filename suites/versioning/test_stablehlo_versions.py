"""StableHLO portable artifacts across the plugin's compatibility window.

Clause (StableHLO compatibility guarantees, announced through PJRT_Plugin_Attributes): a plugin
accepts portable artifacts from `stablehlo_minimum_version` to `stablehlo_current_version`, and
they mean the same thing at every version. A program from a newer StableHLO than the plugin's
current must be rejected with an error, not a crash.
"""
from __future__ import annotations

import shlex
from typing import Any

import numpy as np
import pytest

from pjrt_cts.fuzz.harness import reproduce_command
from pjrt_cts.fuzz.isolate import child_environment, run_command
from pjrt_cts.fuzz.seeds import BUILTIN_SEEDS, golden_seeds
from pjrt_cts.golden import EXACT, Tolerance, compare
from pjrt_cts.testing import assert_bit_exact, output_dir

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
    reader, so only a plugin that overclaims its version rejects it."""
    seed = VERSION_SEEDS[0]
    current = stablehlo_window.current
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
