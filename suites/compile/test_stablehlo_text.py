"""PJRT_Client_Compile accepts StableHLO text (format "mlir") with minimal, valid CompileOptionsProto bytes."""
from __future__ import annotations

import threading

from pjrt_cts.testing import ADD, PROGRAMS_BY_NAME, assert_matches_program, compiled_program, programs_param, run
from pjrt_cts.runtime import CompileOptions
from pjrt_cts.runtime import protobuf_wire as wire


@programs_param()
def test_program_compiles_from_text(client, program):
    executable = compiled_program(client, program)
    devices = executable.addressable_devices
    assert len(devices) == 1, (
        f"PJRT_Client_Compile of a 1-replica 1-partition program should bind one device "
        f"(PJRT_LoadedExecutable_AddressableDevices), got {len(devices)}"
    )


@programs_param(["add_f32", "two_outputs_f32", "constant_s32", "mixed_outputs"])
def test_compiling_twice_gives_independent_executables(client, program):
    first = client.compile(program.text)
    second = client.compile(program.text)
    try:
        assert first.handle != second.handle, "PJRT_Client_Compile returned the same PJRT_LoadedExecutable twice"
        inputs = program.inputs()
        first.close()  # destroying one must not affect the other
        assert_matches_program(program, run(second, client, inputs), inputs,
                               "PJRT_LoadedExecutable_Execute of the second compile after destroying the first")
    finally:
        first.close()
        second.close()


def _ebo(*fields: bytes) -> bytes:
    return wire.bytes_field(3, b"".join(fields))


# Single-device CompileOptionsProto encodings every plugin must accept (ExecutableBuildOptionsProto = field 3).
MINIMAL_OPTIONS = {
    "ordinal_unset": _ebo(wire.varint_field(4, 1), wire.varint_field(5, 1)),
    "ordinal_minus_one": _ebo(wire.varint_field(1, -1), wire.varint_field(4, 1), wire.varint_field(5, 1)),
    "ordinal_zero": _ebo(wire.varint_field(1, 0), wire.varint_field(4, 1), wire.varint_field(5, 1)),
    "explicit_assignment": CompileOptions(device_assignment=[[0]], device_ordinal=0).to_bytes(),
    "unknown_field": _ebo(wire.varint_field(4, 1), wire.varint_field(5, 1)) + wire.varint_field(1000, 7),
}


def pytest_generate_tests(metafunc):
    if "options_variant" in metafunc.fixturenames:
        metafunc.parametrize("options_variant", list(MINIMAL_OPTIONS), ids=list(MINIMAL_OPTIONS))


def test_minimal_compile_options_are_accepted(client, devices, options_variant):
    options = MINIMAL_OPTIONS[options_variant]
    if options_variant == "explicit_assignment":
        options = CompileOptions(device_assignment=[[devices[0].id]], device_ordinal=0).to_bytes()
    with client.compile(ADD.text, compile_options=options) as executable:
        inputs = ADD.inputs()
        assert_matches_program(ADD, run(executable, client, inputs), inputs,
                               f"PJRT_LoadedExecutable_Execute after PJRT_Client_Compile with options {options_variant}")


def test_compile_from_several_threads(client):
    """PJRT_Client_Compile is thread-safe: 4 threads compile different programs at once."""
    chosen = [PROGRAMS_BY_NAME[name] for name in ("add_f32", "dot_f32", "reduce_sum_f32", "mixed_outputs")]
    results: dict[str, object] = {}

    def compile_one(program):
        try:
            results[program.name] = client.compile(program.text)
        except Exception as error:  # noqa: BLE001 - reported below with the program's name
            results[program.name] = error

    threads = [threading.Thread(target=compile_one, args=(program,)) for program in chosen]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    try:
        for program in chosen:
            result = results.get(program.name)
            assert result is not None and not isinstance(result, Exception), (
                f"PJRT_Client_Compile of {program.name} from a thread failed: {result!r}"
            )
            inputs = program.inputs()
            assert_matches_program(program, run(result, client, inputs), inputs,
                                   f"PJRT_LoadedExecutable_Execute of {program.name} compiled on a thread")
    finally:
        for result in results.values():
            if hasattr(result, "close"):
                result.close()


def test_text_with_leading_comment_and_whitespace_compiles(client):
    text = "// a comment the parser must skip\n\n  " + ADD.text + "\n\n"
    with client.compile(text) as executable:
        inputs = ADD.inputs()
        assert_matches_program(ADD, run(executable, client, inputs), inputs,
                               "PJRT_LoadedExecutable_Execute of StableHLO text with a leading comment")
