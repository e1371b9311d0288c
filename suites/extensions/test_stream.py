"""STREAM (pjrt_c_api_stream_extension.h): the stream on which a device's externally managed buffers become ready,
and a wait for a buffer on such a stream: what DLPack consumers with streams (`__dlpack__(stream=...)`) use. Both
args structs have struct_size but no extension_start; the calls below send them so."""
from __future__ import annotations

from typing import Any

import numpy as np

from pjrt_cts.runtime.extensions.stream import stream_for_external_ready_events, wait_until_buffer_ready_on_stream
from pjrt_cts.testing import assert_same, requires, unsupported_if_unimplemented

pytestmark = requires(extension="STREAM")


def test_every_device_has_a_stream_for_external_ready_events(devices: list[Any]) -> None:
    for device in devices:
        with unsupported_if_unimplemented("STREAM.get_stream"):
            stream = stream_for_external_ready_events(device)
        assert stream, f"STREAM.get_stream of device {device.id} returned a NULL stream"


def test_waiting_for_a_buffer_on_the_stream_leaves_it_readable(client: Any, device: Any) -> None:
    array = np.arange(64, dtype=np.float32)
    with unsupported_if_unimplemented("STREAM.get_stream"):
        stream = stream_for_external_ready_events(device)
    uploaded = client.buffer_from_numpy(array, device)
    computed = client.compile("""func.func @main(%a: tensor<64xf32>) -> tensor<64xf32> {
  %0 = stablehlo.add %a, %a : tensor<64xf32>
  return %0 : tensor<64xf32>
}""").execute([uploaded])[0]  # an execution's output: possibly not ready yet when the wait is enqueued
    for buffer, expected in ((uploaded, array), (computed, array + array)):
        wait_until_buffer_ready_on_stream(stream, buffer)
        assert_same(buffer.to_numpy(), expected, "a buffer after STREAM.wait_stream on the device's stream")
