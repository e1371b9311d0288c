"""PROFILER (pjrt_c_api_profiler_extension.h and profiler_c_api.h): what `jax.profiler` drives. A session created
with JAX's options starts, profiles a few executions, stops, and collects a serialized XSpace with at least one
plane, by the header's two calls: the size with a NULL buffer, then the data written into the caller's buffer."""
from __future__ import annotations

from typing import Any

import numpy as np

from pjrt_cts.runtime.extensions.profiler import ProfilerSession
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
