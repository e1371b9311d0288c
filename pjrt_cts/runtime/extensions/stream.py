"""STREAM: the platform stream on which a device's externally managed buffers become ready, and a wait for a
buffer on such a stream (DLPack with streams). Both args structs have no extension_start."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions import stream as abi
from pjrt_cts.runtime.extensions.calls import call

if TYPE_CHECKING:
    from pjrt_cts.runtime.buffer import Buffer
    from pjrt_cts.runtime.device import Device


def stream_for_external_ready_events(device: "Device") -> int:
    args = call(device.plugin, ExtensionType.STREAM, "get_stream",
                abi.PJRT_Get_Stream_For_External_Ready_Events_Args(device=device.handle))
    return int(args.stream)


def wait_until_buffer_ready_on_stream(stream: int, buffer: "Buffer") -> None:
    call(buffer.plugin, ExtensionType.STREAM, "wait_stream",
         abi.PJRT_Wait_Until_Buffer_Ready_On_Stream_Args(stream=stream, buffer=buffer.handle))
