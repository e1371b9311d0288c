"""PJRT_Client_Compile rejects bad programs, formats and options with an error (never success, never a crash).

Contract decisions:
- Invalid MLIR is the caller's fault: INVALID_ARGUMENT. The XLA plugins answer UNKNOWN with the parser's
  diagnostics; that is reported as WARNING (rejected cleanly, but the code is not actionable).
- An unknown program format and undecodable CompileOptionsProto / HloModuleProto bytes: INVALID_ARGUMENT.
- Empty compile options are not tested here: they abort the XLA plugins (num_replicas 0 CHECK failure);
  the robustness layer runs that in a subprocess.
Every rejection has a control: the same compile of a valid program (with valid options) succeeds.
"""
from __future__ import annotations

import pytest

from pjrt_cts.runtime import CompileOptions
from pjrt_cts.runtime import protobuf_wire as wire
from pjrt_cts.testing import ADD, assert_matches_program, expect_rejection, run

COMPILE = "PJRT_Client_Compile"

INVALID_MLIR: dict[str, str | bytes] = {
    "syntax_error": "module {",
    "unknown_op": "module { func.func @main() -> tensor<f32> {\n %0 = stablehlo.bogus : tensor<f32>\n"
                  " return %0 : tensor<f32> } }",
    "operand_type_mismatch": "module { func.func @main(%a: tensor<2xf32>, %b: tensor<2xi32>) -> tensor<2xf32> {\n"
                             " %0 = stablehlo.add %a, %b : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>\n"
                             " return %0 : tensor<2xf32> } }",
    "result_type_mismatch": "module { func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {\n"
                            " return %a : tensor<2xf32> } }",
    "missing_main": "module { func.func @other(%a: tensor<2xf32>) -> tensor<2xf32> {\n return %a : tensor<2xf32> } }",
    "undefined_value": "module { func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n return %b : tensor<2xf32> } }",
    "truncated_text": ADD.text[: len(ADD.text) // 2],
    "bytecode_magic_then_garbage": b"ML\xefR\x00garbage",
    "binary_garbage": bytes(range(256)),
    "empty_program": "",
    "whitespace_only": "   \n\t ",
}

UNKNOWN_FORMATS = {
    "foo": "foo",
    "empty": "",
    "uppercase_mlir": "MLIR",
    "stablehlo": "stablehlo",
    "mlir_with_nul": "mlir\x00",
    "hlo_text": "hlo_text",
}

# Bytes that no protobuf parser accepts as CompileOptionsProto. (Wrong wire types for known fields are NOT
# here: a parser may keep them as unknown fields and then see num_replicas 0, which aborts XLA plugins.)
GARBAGE_OPTIONS = {
    "tag_zero": b"\x00",
    "wire_type_7": b"\x0f",
    "truncated_length": b"\x1a\x10\x08",
    "unterminated_varint": b"\x08\xff\xff",
    "end_group_without_start": b"\x1c",
    "ascii_text": b"not a protocol buffer at all",
    "high_bytes": bytes(range(200, 256)),
    "truncated_valid_options": CompileOptions().to_bytes()[:-1],
}

def _valid(client, **options):
    """The control: PJRT_Client_Compile of the valid ADD program (text), with valid `options`."""
    return lambda: client.compile(ADD.text, **options)


GARBAGE_HLO = {
    "random_bytes": bytes(range(255, 0, -3)),
    "mlir_text_as_hlo": ADD.text.encode(),
    "truncated_length": b"\x0a\x40abc",
}


@pytest.mark.parametrize("case", list(INVALID_MLIR), ids=list(INVALID_MLIR))
def test_invalid_mlir_is_rejected(client, case):
    expect_rejection(lambda: client.compile(INVALID_MLIR[case]), control=_valid(client), function=COMPILE,
                     tolerated=("UNKNOWN",), what=f"invalid MLIR ({case})")


@pytest.mark.parametrize("fmt", list(UNKNOWN_FORMATS), ids=list(UNKNOWN_FORMATS))
def test_unknown_program_format_is_invalid_argument(client, fmt):
    expect_rejection(lambda: client.compile(ADD.text, format=UNKNOWN_FORMATS[fmt]), control=_valid(client, format="mlir"),
                     function=COMPILE, tolerated=("UNIMPLEMENTED",), what=f"program format {UNKNOWN_FORMATS[fmt]!r}")


@pytest.mark.parametrize("options", list(GARBAGE_OPTIONS), ids=list(GARBAGE_OPTIONS))
def test_garbage_compile_options_are_invalid_argument(client, options):
    expect_rejection(lambda: client.compile(ADD.text, compile_options=GARBAGE_OPTIONS[options]),
                     control=_valid(client, compile_options=CompileOptions().to_bytes()), function=COMPILE,
                     what=f"undecodable CompileOptionsProto bytes ({options})")


@pytest.mark.parametrize("module", list(GARBAGE_HLO), ids=list(GARBAGE_HLO))
def test_garbage_hlo_module_is_invalid_argument(client, module):
    # The control compiles a valid program in the default format: accepting "hlo" at all is optional
    # (compile.hlo_format), rejecting undecodable bytes in it is not.
    expect_rejection(lambda: client.compile(GARBAGE_HLO[module], format="hlo"), control=_valid(client),
                     function=COMPILE, what=f"undecodable HloModuleProto bytes ({module})")


@pytest.mark.parametrize("device_id", [99, 1 << 20], ids=["id_99", "id_2pow20"])
def test_device_assignment_naming_unknown_device_is_rejected(client, device_id):
    known = {device.id for device in client.devices}
    assert device_id not in known
    options = CompileOptions(device_assignment=[[device_id]]).to_bytes()
    valid = CompileOptions(device_assignment=[[client.devices[0].id]]).to_bytes()
    expect_rejection(lambda: client.compile(ADD.text, compile_options=options),
                     control=_valid(client, compile_options=valid), function=COMPILE,
                     tolerated=("NOT_FOUND", "OUT_OF_RANGE"), what=f"a device assignment naming device {device_id}")


def test_compile_error_leaves_client_usable(client):
    expect_rejection(lambda: client.compile("module {"), control=_valid(client), function=COMPILE,
                     codes=("INVALID_ARGUMENT", "UNKNOWN"), what="invalid MLIR")
    expect_rejection(lambda: client.compile(ADD.text, compile_options=b"\x0f"),
                     control=_valid(client, compile_options=CompileOptions().to_bytes()), function=COMPILE,
                     what="undecodable compile options")
    with client.compile(ADD.text) as executable:
        inputs = ADD.inputs()
        assert_matches_program(ADD, run(executable, client, inputs), inputs,
                               "PJRT_LoadedExecutable_Execute after failed PJRT_Client_Compile calls")


def test_compile_error_message_names_the_problem(client):
    """The diagnostic for an unknown op names the op, so a framework can show it to the user."""
    error = expect_rejection(lambda: client.compile(INVALID_MLIR["unknown_op"]), control=_valid(client),
                             function=COMPILE, codes=("INVALID_ARGUMENT", "UNKNOWN"), what="an unknown op")
    assert "bogus" in error.message, (
        f"PJRT_Client_Compile's {error.code} message for an unknown op should name it ('stablehlo.bogus'): "
        f"{error.message[:200]!r}"
    )


def test_truncated_options_field_length_is_checked(client):
    """A length-delimited field longer than the buffer must not be read past compile_options_size."""
    valid = CompileOptions().to_bytes()
    lying = wire.tag(3, wire.LENGTH_DELIMITED) + wire.encode_varint(len(valid) + 64) + valid[2:]
    expect_rejection(lambda: client.compile(ADD.text, compile_options=lying),
                     control=_valid(client, compile_options=valid), function=COMPILE,
                     what="options whose field length runs past compile_options_size")
