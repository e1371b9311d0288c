"""PJRT_Executable_Fingerprint: stable for the same program, different for a different program.

UNIMPLEMENTED is allowed by the header ("may be unimplemented") and is NOT_SUPPORTED. A fingerprint returned
with success is a value like any other: the empty string is stable, but two different programs that both get
"" share a fingerprint, which the "different program" clauses FAIL (the 0.115 XLA CPU plugin returns "" for
programs without parameters: constant_s32 and iota_s64).
"""
from __future__ import annotations

from pjrt_cts.testing import ADD, PROGRAMS, compiled_program, programs_param, requires, unsupported_if_unimplemented

SERIALIZED = ["add_f32", "two_outputs_f32", "dot_f32", "mixed_outputs"]
pytestmark = requires("Executable_Fingerprint")


def _fingerprint(plugin, executable) -> str:
    with unsupported_if_unimplemented("PJRT_Executable_Fingerprint"):
        return executable.fingerprint


def _next_program(program):
    index = [p.name for p in PROGRAMS].index(program.name)
    return PROGRAMS[(index + 1) % len(PROGRAMS)]


@programs_param()
def test_fingerprint_is_stable_for_the_same_program(plugin, client, program):
    first = _fingerprint(plugin, compiled_program(client, program))
    with client.compile(program.text) as recompiled:
        second = _fingerprint(plugin, recompiled)
    assert first == second, (
        f"PJRT_Executable_Fingerprint differs between two compiles of {program.name}: {first!r} vs {second!r}"
    )


@programs_param()
def test_fingerprint_is_repeatable_on_one_executable(plugin, client, program):
    executable = compiled_program(client, program)
    values = {_fingerprint(plugin, executable) for _ in range(3)}
    assert len(values) == 1, f"PJRT_Executable_Fingerprint of one executable changes between calls: {sorted(values)}"


@programs_param()
def test_fingerprint_differs_for_a_different_program(plugin, client, program):
    other = _next_program(program)
    mine = _fingerprint(plugin, compiled_program(client, program))
    theirs = _fingerprint(plugin, compiled_program(client, other))
    assert mine != theirs, (
        f"PJRT_Executable_Fingerprint is {mine!r} for both {program.name} and {other.name}"
    )


def test_fingerprints_of_all_programs_are_distinct(plugin, client):
    seen: dict[str, str] = {}
    for program in PROGRAMS:
        value = _fingerprint(plugin, compiled_program(client, program))
        assert value not in seen, (
            f"PJRT_Executable_Fingerprint {value!r} is shared by {seen.get(value)} and {program.name}"
        )
        seen[value] = program.name


@requires("Executable_Serialize", "Executable_DeserializeAndLoad")
@programs_param(SERIALIZED)
def test_fingerprint_survives_serialization(plugin, client, program):
    executable = compiled_program(client, program)
    original = _fingerprint(plugin, executable)
    with client.deserialize_executable(executable.serialize()) as restored:
        again = _fingerprint(plugin, restored)
    assert original == again, (
        f"PJRT_Executable_Fingerprint changes across Serialize/DeserializeAndLoad of {program.name}: {original!r} vs {again!r}"
    )


@requires("LoadedExecutable_Fingerprint")
def test_loaded_executable_fingerprint_matches_executable_fingerprint(plugin, client):
    """PJRT_LoadedExecutable_Fingerprint (deprecated) must agree with PJRT_Executable_Fingerprint if implemented."""
    executable = compiled_program(client, ADD)
    with unsupported_if_unimplemented("PJRT_LoadedExecutable_Fingerprint"):
        loaded_value = executable.fingerprint_loaded
    assert loaded_value == _fingerprint(plugin, executable), (
        "PJRT_LoadedExecutable_Fingerprint and PJRT_Executable_Fingerprint disagree"
    )
