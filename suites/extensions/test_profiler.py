"""PROFILER (pjrt_c_api_profiler_extension.h and profiler_c_api.h): what `jax.profiler` drives. A session created
with JAX's options starts, profiles a few executions, stops, and collects a serialized XSpace with at least one
plane, by the header's two calls: the size with a NULL buffer, then the data written into the caller's buffer; by the
later consume → serialize path where the table has it. Its errors are read with the table's own functions: a second
session started while one runs is where a plugin's tracer refuses (one device tracer per process)."""
from __future__ import annotations

from typing import Any

import numpy as np

from pjrt_cts.abi.enums import ErrorCode
from pjrt_cts.runtime import PjrtError
from pjrt_cts.runtime.extensions.profiler import ProfilerSession, destroy_no_error
from pjrt_cts.runtime.protobuf_wire import LENGTH_DELIMITED, iter_fields
from pjrt_cts.testing import assert_same, requires, unsupported_if_unimplemented

pytestmark = requires(extension="PROFILER")
XSPACE_PLANES = 1  # XSpace.planes (tsl/profiler/protobuf/xplane.proto)


def test_session_collects_a_serialized_trace(plugin: Any, client: Any) -> None:
    program = client.compile("""func.func @main(%a: tensor<256xf32>) -> tensor<256xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<256xf32>
  return %0 : tensor<256xf32>
}""")
    x = np.linspace(-1, 1, 256, dtype=np.float32)
    with unsupported_if_unimplemented("PROFILER.create"):
        session = ProfilerSession(plugin)
    with session:
        session.start()
        for _ in range(3):
            out = program.execute([client.buffer_from_numpy(x)])[0].to_numpy()
        session.stop()
        collected = session.collect_data()
    assert_same(out, x * x, "an execution while the profiler ran")
    data = collected.data
    assert data, "PROFILER.collect_data returned no bytes after a session that ran three executions"
    assert collected.written, (
        f"PROFILER.collect_data's second call wrote nothing into the caller's buffer of {len(data)} bytes (profiler_c_api.h: "
        "the first call, with a NULL buffer, gives buffer_size_in_bytes; the second call writes the serialized data to "
        "the caller's buffer)" + ("; its first call pointed args.buffer at a buffer of its own instead"
                                  if collected.handed_out is not None else ""))
    try:
        planes = [v for number, wire, v in iter_fields(data) if number == XSPACE_PLANES and wire == LENGTH_DELIMITED]
    except ValueError as error:
        raise AssertionError(f"PROFILER.collect_data returned {len(data)} bytes that are no XSpace: {error}") from None
    assert planes, f"PROFILER.collect_data returned an XSpace without planes ({len(data)} bytes)"


def _planes(data: bytes, function: str) -> list[bytes]:
    try:
        return [v for number, wire, v in iter_fields(data)
                if number == XSPACE_PLANES and wire == LENGTH_DELIMITED and isinstance(v, bytes)]  # always bytes: says so to mypy
    except ValueError as error:
        raise AssertionError(f"{function} returned {len(data)} bytes that are no XSpace: {error}") from None


def test_consume_then_serialize_gives_a_trace(plugin: Any, client: Any) -> None:
    """consume → serialize → consume_result_destroy (the table's later functions; NOT_SUPPORTED where NULL)."""
    program = client.compile("""func.func @main(%a: tensor<64xf32>) -> tensor<64xf32> {
  %0 = stablehlo.add %a, %a : tensor<64xf32>
  return %0 : tensor<64xf32>
}""")
    x = np.arange(64, dtype=np.float32)
    with unsupported_if_unimplemented("PROFILER.create"):
        session = ProfilerSession(plugin)
    with session:
        session.start()
        out = program.execute([client.buffer_from_numpy(x)])[0].to_numpy()
        session.stop()
        data = session.consume_and_serialize()
    assert_same(out, x + x, "an execution while the profiler ran")
    assert data, "PROFILER.serialize returned no bytes for a session that ran an execution"
    assert _planes(data, "PROFILER.serialize"), f"PROFILER.serialize returned an XSpace without planes ({len(data)} bytes)"


def test_error_destroy_accepts_null(plugin: Any) -> None:
    """profiler_c_api.h: error_destroy frees `error`, which can be NULL (what a caller does with every result)."""
    destroy_no_error(plugin)


def test_a_second_running_session_starts_or_is_refused_readably(plugin: Any, client: Any) -> None:
    """Two sessions started at once: the second starts, or its start returns a PLUGIN_Profiler_Error whose code
    (error_get_code) is a non-OK PJRT code and whose message (error_message) says why; error_destroy frees it. The
    first session then still stops and collects a trace (control)."""
    with unsupported_if_unimplemented("PROFILER.create"):
        first = ProfilerSession(plugin)
    with first, ProfilerSession(plugin) as second:
        first.start()
        try:
            second.start()
        except PjrtError as error:
            assert error.code_value in {int(code) for code in ErrorCode} and error.code_value != ErrorCode.OK, (
                f"PROFILER.start refused a second session with code {error.code_value}, no PJRT error code "
                f"(PROFILER.error_get_code): {error.message!r}")
            assert error.message.strip(), "PROFILER.start refused a second session without a message (error_message)"
        else:
            second.stop()
        first.stop()
        collected = first.collect_data()
    assert collected.data or collected.handed_out, "the first session collected nothing after a second one was tried"
