"""PJRT_Compile without a device rejects what it cannot compile with an error, never an abort: invalid MLIR, and
bytes that are no CompileOptionsProto. Each rejection has its control (the same compile of a valid program succeeds),
on this layer's `topology` (created, else the client's own)."""
from __future__ import annotations

from pjrt_cts.testing import ADD, expect_rejection, unsupported_if_unimplemented


def _control(topology):
    with unsupported_if_unimplemented("PJRT_Compile"):
        topology.compile(ADD.text).close()  # device-less compile works at all (else NOT_SUPPORTED)
    return lambda: topology.compile(ADD.text)


def test_invalid_mlir_is_rejected(topology):
    control = _control(topology)
    expect_rejection(lambda: topology.compile("module {"), control=control, function="PJRT_Compile",
                     tolerated=("UNKNOWN",), what="invalid MLIR")


def test_garbage_compile_options_are_rejected(topology):
    control = _control(topology)
    expect_rejection(lambda: topology.compile(ADD.text, compile_options=b"\x0f"), control=control,
                     function="PJRT_Compile", what="undecodable CompileOptionsProto bytes")
