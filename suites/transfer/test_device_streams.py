"""PJRT_CopyToDeviceStream_* (TotalBytes, GranuleSize, CurrentBytes, AddChunk, Destroy): host data for a program's
host `recv`, handed over through the PJRT_RecvCallback given in PJRT_ExecuteOptions.recv_callbacks.

Contract (pjrt_c_api.h): when the program reaches a recv of a channel, the plugin calls that channel's recv callback
with a stream the callback owns and must destroy; TotalBytes is what the recv expects, every chunk a multiple of
GranuleSize, CurrentBytes what was added so far; AddChunk takes ownership of the chunk (calls its deleter) and
returns an event that completes when the chunk is transferred, or carries an error when it exceeds TotalBytes.
The program then computes on the data received.

A plugin that cannot compile a host recv answers UNIMPLEMENTED at compile time (XLA:CPU: "HLO opcode `recv` is not
supported by XLA:CPU ThunkEmitter"): the streams are then out of reach, and the tests are NOT_SUPPORTED.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.runtime import CopyToDeviceStream, HostRecvCallbacks, PjrtError
from pjrt_cts.testing import assert_same, requires, sample_array, settled_error, unsupported_if_unimplemented

CHANNEL = 1
# recv of f32[8] from the host (channel type 3 = HOST_TO_DEVICE), then x + 1 so that the data is computed on.
RECV_PROGRAM = f"""
func.func @main() -> tensor<8xf32> {{
  %token = stablehlo.create_token : !stablehlo.token
  %0:2 = "stablehlo.recv"(%token) {{channel_handle = #stablehlo.channel_handle<handle = {CHANNEL}, type = 3>,
                                   is_host_transfer = true}} : (!stablehlo.token) -> (tensor<8xf32>, !stablehlo.token)
  %one = stablehlo.constant dense<1.0> : tensor<8xf32>
  %1 = stablehlo.add %0#0, %one : tensor<8xf32>
  return %1 : tensor<8xf32>
}}"""

pytestmark = requires("CopyToDeviceStream_Destroy", "CopyToDeviceStream_AddChunk", "CopyToDeviceStream_TotalBytes",
                      "CopyToDeviceStream_GranuleSize", "CopyToDeviceStream_CurrentBytes")


@pytest.mark.isolated  # a plugin that dereferences the stream crashes
def test_destroy_of_a_null_stream_is_a_no_op(plugin: Any) -> None:
    """The header: "Frees `stream`. `stream` can be nullptr." (reachable without a recv)."""
    CopyToDeviceStream(plugin, 0).close()


@pytest.fixture(scope="module")
def recv_executable(client: Any) -> Any:
    with unsupported_if_unimplemented("PJRT_Client_Compile"):
        return client.compile(RECV_PROGRAM)


def run_with_stream(client: Any, executable: Any, on_stream: Any) -> np.ndarray:
    """Execute with `on_stream(stream)` as the channel's recv callback; the output once ready (bounded)."""
    __tracebackhide__ = True
    callbacks = HostRecvCallbacks(client.plugin, {CHANNEL: on_stream})
    with unsupported_if_unimplemented("PJRT_LoadedExecutable_Execute"):
        outputs, _ = executable.execute_sharded([[]], options=callbacks.options())
    output = outputs[0][0]
    error = settled_error(output.ready_event(), "the output of a program with a host recv")
    if callbacks.errors:
        raise callbacks.errors[0]
    assert callbacks.streams_received == 1, (
        f"the recv callback of channel {CHANNEL} was called {callbacks.streams_received} times for one recv")
    assert error is None, f"a program with a host recv failed with {error.code}: {error.message}"
    return output.to_numpy()


def test_recv_stream_delivers_the_host_data(client: Any, recv_executable: Any) -> None:
    data = sample_array(np.float32, (8,), seed=101)
    seen: dict[str, int] = {}

    def on_stream(stream: Any) -> None:
        seen["total"], seen["granule"], seen["before"] = stream.total_bytes, stream.granule_size, stream.current_bytes
        done = stream.add_chunk(data.tobytes())
        if done is not None:
            error = settled_error(done, "the transfer_complete event of PJRT_CopyToDeviceStream_AddChunk")
            assert error is None, f"PJRT_CopyToDeviceStream_AddChunk of all {data.nbytes} bytes failed: {error.code}: {error.message}"
        seen["after"] = stream.current_bytes

    result = run_with_stream(client, recv_executable, on_stream)
    assert seen["total"] == data.nbytes, (
        f"PJRT_CopyToDeviceStream_TotalBytes of the stream of a recv of f32[8] is {seen['total']}, not {data.nbytes}")
    assert seen["granule"] > 0 and seen["total"] % seen["granule"] == 0, (
        f"PJRT_CopyToDeviceStream_GranuleSize {seen['granule']} does not divide TotalBytes {seen['total']}")
    assert (seen["before"], seen["after"]) == (0, data.nbytes), (
        f"PJRT_CopyToDeviceStream_CurrentBytes should go from 0 to {data.nbytes} over one chunk of all the data, "
        f"but went from {seen['before']} to {seen['after']}")
    assert_same(result, data + 1, "recv of host data through PJRT_CopyToDeviceStream_AddChunk, then x + 1,")


def test_chunk_past_the_total_bytes_is_an_error(client: Any, recv_executable: Any) -> None:
    """The rejected chunk changes nothing: the right one added after it still completes the recv (the control)."""
    data = sample_array(np.float32, (8,), seed=102)
    rejection: dict[str, Any] = {}

    def on_stream(stream: Any) -> None:
        try:
            done = stream.add_chunk(bytes(data.nbytes + stream.granule_size))
            rejection["error"] = settled_error(done, "AddChunk past TotalBytes") if done is not None else None
        except PjrtError as error:
            rejection["error"] = error
        stream.add_chunk(data.tobytes())

    result = run_with_stream(client, recv_executable, on_stream)
    error = rejection.get("error")
    assert error is not None, (
        f"PJRT_CopyToDeviceStream_AddChunk of {data.nbytes} bytes and more to a stream of TotalBytes {data.nbytes} "
        "succeeded (the header: its event indicates an error when the chunk exceeds the total bytes)")
    assert_same(result, data + 1, "recv completed by a right chunk after a rejected one, then x + 1,")
