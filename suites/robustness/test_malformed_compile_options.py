"""Malformed compile options: bytes that are not a usable xla.CompileOptionsProto must be rejected.

Clause (PJRT_Client_Compile): `compile_options` is a serialized CompileOptionsProto. Options the plugin
cannot parse or cannot honour (no replicas, devices it lacks) must give an error, never abort the
process (empty options are known to abort XLA plugins: num_replicas 0 reaches a CHECK).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from pjrt_cts.runtime import CompileOptions
from pjrt_cts.runtime import protobuf_wire as wire

CONTRACT = "compile_options must be a usable serialized CompileOptionsProto"


class OptionCase(NamedTuple):
    options: bytes | None  # the compile_options bytes, or None for a NULL pointer with size 0
    isolated: bool  # run the test in its own pytest worker (the `isolated` mark)


VALID = CompileOptions().to_bytes()
# case id -> the options given to PJRT_Client_Compile (case compile_with_options)
OPTION_CASES: dict[str, OptionCase] = {
    "garbage": OptionCase(b"\xde\xad\xbe\xef" * 4, False),
    "empty": OptionCase(b"", True),
    "null_pointer_size_0": OptionCase(None, True),
    "truncated": OptionCase(VALID[: len(VALID) - 3], False),
    "num_replicas_0": OptionCase(wire.bytes_field(3, wire.varint_field(4, 0) + wire.varint_field(5, 1)), True),
    "num_partitions_0": OptionCase(wire.bytes_field(3, wire.varint_field(4, 1) + wire.varint_field(5, 0)), True),
    "num_replicas_negative": OptionCase(wire.bytes_field(3, wire.varint_field(4, -1) + wire.varint_field(5, 1)), True),
    "num_replicas_more_than_devices": OptionCase(CompileOptions(num_replicas=4096).to_bytes(), True),
    "device_assignment_unknown_device": OptionCase(CompileOptions(device_assignment=[[1 << 20]]).to_bytes(), True),
    "device_assignment_shape_mismatch": OptionCase(CompileOptions(num_replicas=1,
                                                                  device_assignment=[[0], [1]]).to_bytes(), True),
    "wrong_wire_type": OptionCase(wire.varint_field(3, 7), False),
    "length_past_the_end": OptionCase(b"\x1a\xff\xff\xff\x0f" + VALID, False),
}


def _params() -> list[Any]:
    return [pytest.param(name, marks=[pytest.mark.isolated] if row.isolated else [], id=name)
            for name, row in OPTION_CASES.items()]


@pytest.mark.parametrize("case", _params())
def test_malformed_compile_options_are_rejected(risky_call: Any, case: str) -> None:
    row = OPTION_CASES[case]
    risky_call(f"compile-options-{case}", "compile_with_options", {"options": row.options},
               function="PJRT_Client_Compile", contract=CONTRACT, covered=True)
