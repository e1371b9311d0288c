"""PJRT_Executable_Serialize -> PJRT_Executable_DeserializeAndLoad gives an executable with identical results,
in this process and in a new one; corrupted bytes are rejected with an error.

Corrupted input is the caller's fault (INVALID_ARGUMENT); another error code is WARNING. Empty bytes are
isolated (a plugin may dereference them).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pjrt_cts
from pjrt_cts.golden import dtypes as golden_dtypes
from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing import (ADD, PROGRAMS, assert_bit_exact, compiled_program, expect_rejection, first_line,
                              programs_param, requires, run)
from pjrt_cts.testing.deserialize_child import from_storable, to_storable

NEW_PROCESS = ["add_f32", "two_outputs_f32", "dot_f32", "mixed_outputs", "negate_bf16"]
CHILD_MODULE = "pjrt_cts.testing.deserialize_child"
pytestmark = requires("Executable_Serialize", "Executable_DeserializeAndLoad")


def _serialized(plugin, client, program) -> bytes:
    data = compiled_program(client, program).serialize()
    assert data, f"PJRT_Executable_Serialize of {program.name} returned no bytes"
    return data


def _assert_identical(program, original, restored, what):
    assert len(original) == len(restored), f"{what}: {len(restored)} outputs, the original executable gives {len(original)}"
    for index, (a, b) in enumerate(zip(original, restored)):
        assert_bit_exact(b, a, f"{what}: output {index} of {program.name}, against the original executable's,")


@programs_param()
def test_serialize_returns_bytes(plugin, client, program):
    _serialized(plugin, client, program)


@programs_param()
def test_deserialize_in_same_process_gives_identical_results(plugin, client, program):
    data = _serialized(plugin, client, program)
    inputs = program.inputs(seed=11)
    original = run(compiled_program(client, program), client, inputs)
    with client.deserialize_executable(data) as restored:
        _assert_identical(program, original, run(restored, client, inputs),
                          "PJRT_Executable_DeserializeAndLoad in the same process")


@programs_param()
def test_deserialized_metadata_matches(plugin, client, program):
    data = _serialized(plugin, client, program)
    original = compiled_program(client, program)
    with client.deserialize_executable(data) as restored:
        for field in ("name", "num_outputs", "output_element_types", "output_dimensions", "num_replicas", "num_partitions"):
            assert getattr(restored, field) == getattr(original, field), (
                f"PJRT_Executable_DeserializeAndLoad changed {field}: {getattr(restored, field)!r}, "
                f"was {getattr(original, field)!r}"
            )


@pytest.mark.own_process
@programs_param(NEW_PROCESS)
def test_deserialize_in_new_process_gives_identical_results(plugin, client, create_options, plugin_path, tmp_path, program):
    data = _serialized(plugin, client, program)
    inputs = program.inputs(seed=12)
    original = run(compiled_program(client, program), client, inputs)
    (tmp_path / "exe.bin").write_bytes(data)
    arguments = {f"arg{i}": to_storable(a) for i, a in enumerate(inputs)}
    np.savez(tmp_path / "inputs.npz", **arguments)  # type: ignore[arg-type]  # numpy's stub reads **kwds as allow_pickle
    (tmp_path / "dtypes.json").write_text(json.dumps([golden_dtypes.name_of(a.dtype) for a in inputs]))
    env = dict(os.environ)
    project_root = str(Path(pjrt_cts.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [project_root, env.get("PYTHONPATH", "")]))
    completed = subprocess.run(
        [sys.executable, "-m", CHILD_MODULE, str(plugin_path), json.dumps(create_options), str(tmp_path / "exe.bin"),
         str(tmp_path / "inputs.npz"), str(tmp_path / "dtypes.json"), str(tmp_path / "outputs.npz")],
        capture_output=True, text=True, timeout=120, env=env,
    )
    errors = [line for line in completed.stderr.splitlines() if line.startswith("PJRT_")]
    assert completed.returncode == 0, (
        f"DeserializeAndLoad+Execute in a new process exited {completed.returncode}: "
        f"{errors[-1] if errors else completed.stderr.strip()[-300:]}"
    )
    with np.load(tmp_path / "outputs.npz", allow_pickle=False) as saved:
        restored = [from_storable(saved[f"out{i}"], golden_dtypes.name_of(o.dtype)) for i, o in enumerate(original)]
    _assert_identical(program, original, restored, "PJRT_Executable_DeserializeAndLoad in a new process")


@programs_param(["add_f32", "mixed_outputs"])
def test_reserialized_executable_loads(plugin, client, program):
    data = _serialized(plugin, client, program)
    with client.deserialize_executable(data) as restored:
        again = restored.serialize()
        assert again, "PJRT_Executable_Serialize of a deserialized executable returned no bytes"
        with client.deserialize_executable(again) as twice:
            inputs = program.inputs(seed=13)
            expected = run(restored, client, inputs)
            try:
                actual = run(twice, client, inputs)
            except PjrtError as error:
                raise AssertionError(
                    f"PJRT_LoadedExecutable_Execute of a re-serialized (Serialize of a deserialized) {program.name} "
                    f"failed with {error.code}: {first_line(error.message)}"
                ) from None
            _assert_identical(program, expected, actual, "DeserializeAndLoad of a re-serialized executable")


CORRUPTIONS = {
    "first_byte_only": lambda data: data[:1],
    "first_8_bytes": lambda data: data[:8],
    "first_half": lambda data: data[: len(data) // 2],
    "all_but_last_byte": lambda data: data[:-1],
    "garbage_prefix": lambda data: b"\xff\xff\xff" + data,
    "ascii_text": lambda data: b"this is not a serialized executable",
    "zero_bytes": lambda data: bytes(64),
}


@pytest.mark.parametrize("corruption", list(CORRUPTIONS), ids=list(CORRUPTIONS))
def test_corrupted_bytes_are_rejected(plugin, client, corruption):
    valid = _serialized(plugin, client, ADD)
    corrupted = CORRUPTIONS[corruption](valid)
    expect_rejection(lambda: client.deserialize_executable(corrupted), control=lambda: client.deserialize_executable(valid),
                     function="PJRT_Executable_DeserializeAndLoad",
                     tolerated=("INTERNAL", "DATA_LOSS", "UNKNOWN", "FAILED_PRECONDITION"),
                     what=f"corrupted serialized bytes ({corruption})")


@pytest.mark.isolated
def test_empty_bytes_are_rejected(plugin, client):
    valid = _serialized(plugin, client, ADD)
    expect_rejection(lambda: client.deserialize_executable(b""), control=lambda: client.deserialize_executable(valid),
                     function="PJRT_Executable_DeserializeAndLoad",
                     tolerated=("INTERNAL", "DATA_LOSS", "UNKNOWN", "FAILED_PRECONDITION"), what="empty serialized bytes")


def test_serialized_programs_are_distinct(plugin, client):
    blobs = {program.name: _serialized(plugin, client, program) for program in PROGRAMS[:4]}
    assert len(set(blobs.values())) == len(blobs), "PJRT_Executable_Serialize returned equal bytes for different programs"
