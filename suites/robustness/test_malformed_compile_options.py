"""Malformed compile options: bytes that are not a usable xla.CompileOptionsProto must be rejected.

Clause (PJRT_Client_Compile): `compile_options` is a serialized CompileOptionsProto. Options the plugin
cannot parse or cannot honour (no replicas, devices it lacks) must give an error, never abort the
process (empty options are known to abort XLA plugins: num_replicas 0 reaches a CHECK).
"""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.runtime import CompileOptions
from pjrt_cts.runtime import protobuf_wire as wire

CONTRACT = "compile_options must be a usable serialized CompileOptionsProto"

VALID = CompileOptions().to_bytes()
# case id -> the compile_options bytes given to PJRT_Client_Compile (case compile_with_options), None for a NULL
# pointer with size 0. Known to abort XLA plugins: empty, null_pointer_size_0, num_replicas_0, num_partitions_0,
# num_replicas_negative. Every case runs in risky_call's child process: the worker never makes the call itself.
OPTION_CASES: dict[str, bytes | None] = {
    "garbage": b"\xde\xad\xbe\xef" * 4,
    "empty": b"",
    "null_pointer_size_0": None,
    "truncated": VALID[: len(VALID) - 3],
    "num_replicas_0": wire.bytes_field(3, wire.varint_field(4, 0) + wire.varint_field(5, 1)),
    "num_partitions_0": wire.bytes_field(3, wire.varint_field(4, 1) + wire.varint_field(5, 0)),
    "num_replicas_negative": wire.bytes_field(3, wire.varint_field(4, -1) + wire.varint_field(5, 1)),
    "num_replicas_more_than_devices": CompileOptions(num_replicas=4096).to_bytes(),
    "device_assignment_unknown_device": CompileOptions(device_assignment=[[1 << 20]]).to_bytes(),
    "device_assignment_shape_mismatch": CompileOptions(num_replicas=1, device_assignment=[[0], [1]]).to_bytes(),
    "wrong_wire_type": wire.varint_field(3, 7),
    "length_past_the_end": b"\x1a\xff\xff\xff\x0f" + VALID,
}


@pytest.mark.parametrize("case", list(OPTION_CASES))
def test_malformed_compile_options_are_rejected(risky_call: Any, case: str) -> None:
    risky_call(f"compile-options-{case}", "compile_with_options", {"options": OPTION_CASES[case]},
               function="PJRT_Client_Compile", contract=CONTRACT, covered=True)
