"""PJRT_Executable_Fingerprint: stable for the same program, different for a different program.

UNIMPLEMENTED is allowed by the header ("may be unimplemented") and is NOT_SUPPORTED. An empty fingerprint
returned with success identifies nothing; it is a WARNING (the 0.115 XLA CPU plugin returns "" for programs
without parameters).
"""
from __future__ import annotations

from _programs import ADD, PROGRAMS, compiled_program, programs_param
from pjrt_cts.model import HardeningWarning
from pjrt_cts.suite_support import require_slot, unimplemented_is_not_supported

SERIALIZED = ["add_f32", "two_outputs_f32", "dot_f32", "mixed_outputs"]


def _fingerprint(plugin, executable) -> str:
    require_slot(plugin, "Executable_Fingerprint")
    value = unimplemented_is_not_supported(lambda: executable.fingerprint)
    if not value:
        raise HardeningWarning(f"PJRT_Executable_Fingerprint of {executable.name} succeeded with an empty fingerprint")
    return value


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


@programs_param(SERIALIZED)
def test_fingerprint_survives_serialization(plugin, client, program):
    require_slot(plugin, "Executable_Serialize")
    executable = compiled_program(client, program)
    original = _fingerprint(plugin, executable)
    with client.deserialize_executable(executable.serialize()) as restored:
        again = _fingerprint(plugin, restored)
    assert original == again, (
        f"PJRT_Executable_Fingerprint changes across Serialize/DeserializeAndLoad of {program.name}: {original!r} vs {again!r}"
    )


def test_loaded_executable_fingerprint_matches_executable_fingerprint(plugin, client):
    """PJRT_LoadedExecutable_Fingerprint (deprecated) must agree with PJRT_Executable_Fingerprint if implemented."""
    require_slot(plugin, "LoadedExecutable_Fingerprint")
    executable = compiled_program(client, ADD)
    loaded_value = unimplemented_is_not_supported(lambda: executable.fingerprint_loaded)
    assert loaded_value == _fingerprint(plugin, executable), (
        "PJRT_LoadedExecutable_Fingerprint and PJRT_Executable_Fingerprint disagree"
    )
