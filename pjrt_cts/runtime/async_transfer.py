"""PJRT_AsyncHostToDeviceTransferManager: buffers created empty, filled by host chunks or literals later.

    manager = client.create_buffers_for_async_host_to_device([ShapeSpec((2, 3), BufferType.F32)], memory)
    buffer = manager.retrieve_buffer(0)            # usable at once; ready once its last chunk has landed
    manager.transfer_data(0, host_bytes, offset=0, is_last=True).wait()
    manager.close()                                # PJRT_AsyncHostToDeviceTransferManager_Destroy
"""
from __future__ import annotations

import ctypes
import dataclasses
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from pjrt_cts.abi import structs
from pjrt_cts.abi.base import PjrtStruct
from pjrt_cts.abi.enums import BufferType, ErrorCode
from pjrt_cts.runtime.buffer import Buffer
from pjrt_cts.runtime.device import Device, Memory
from pjrt_cts.runtime.dtypes import dtype_of
from pjrt_cts.runtime.event import Event
from pjrt_cts.runtime.handles import OwnedHandle
from pjrt_cts.runtime.layouts import MemoryLayout
from pjrt_cts.runtime.named_values import NamedValueArray

if TYPE_CHECKING:
    from pjrt_cts.runtime.client import Client
    from pjrt_cts.runtime.plugin import Plugin

_PREFIX = "AsyncHostToDeviceTransferManager_"


@dataclasses.dataclass(frozen=True)
class ShapeSpec:
    """One buffer a transfer manager creates: its dimensions and element type (PJRT_ShapeSpec)."""

    dims: tuple[int, ...]
    element_type: BufferType

    @property
    def dense_bytes(self) -> int:
        return int(np.prod(self.dims, dtype=np.int64)) * dtype_of(self.element_type).itemsize


class AsyncTransferManager(OwnedHandle):
    """A PJRT_AsyncHostToDeviceTransferManager; close() destroys it (transfers still pending or not)."""

    def __init__(self, client: "Client", handle: int) -> None:
        self.client = client
        self.plugin = client.plugin
        plugin = client.plugin

        def destroy(h: int) -> None:
            plugin.call(_PREFIX + "Destroy", structs.PJRT_AsyncHostToDeviceTransferManager_Destroy_Args(transfer_manager=h))

        self._own(handle, destroy, parent=client)

    @classmethod
    def create(cls, client: "Client", specs: Sequence[ShapeSpec], memory: Memory,
               device_layouts: Sequence[MemoryLayout | None] | None = None) -> "AsyncTransferManager":
        """PJRT_Client_CreateBuffersForAsyncHostToDevice: one buffer per spec in `memory`; `device_layouts`
        (optional, one per spec, None entries for the default) are the buffers' on-device layouts."""
        c_specs = (structs.PJRT_ShapeSpec * max(1, len(specs)))()
        keepalive: list[object] = []
        for slot, spec in zip(c_specs, specs):
            dims = (ctypes.c_int64 * max(1, len(spec.dims)))(*spec.dims)
            keepalive.append(dims)
            slot.struct_size = structs.PJRT_ShapeSpec.STRUCT_SIZE
            slot.dims, slot.num_dims, slot.element_type = ctypes.addressof(dims), len(spec.dims), int(spec.element_type)
        layouts = None
        if device_layouts is not None:
            layouts = (ctypes.c_void_p * max(1, len(device_layouts)))(
                *[layout.address if layout is not None else None for layout in device_layouts])
        args = structs.PJRT_Client_CreateBuffersForAsyncHostToDevice_Args(
            client=client.handle, shape_specs=ctypes.addressof(c_specs), num_shape_specs=len(specs),
            device_layouts=ctypes.addressof(layouts) if layouts is not None else None,
            num_device_layouts=len(device_layouts) if device_layouts is not None else 0, memory=memory.handle,
        )
        client.plugin.call("Client_CreateBuffersForAsyncHostToDevice", args)
        return cls(client, args.transfer_manager)

    def _call(self, name: str, struct: type[PjrtStruct], **fields: object) -> PjrtStruct:
        return self.plugin.call(_PREFIX + name, struct(transfer_manager=self.handle, **fields))

    # ---- queries ---------------------------------------------------------------------------------
    @property
    def buffer_count(self) -> int:
        return int(self._call("BufferCount", structs.PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args).buffer_count)

    def buffer_size(self, index: int) -> int:
        args = self._call("BufferSize", structs.PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args, buffer_index=index)
        return int(args.buffer_size)

    @property
    def device(self) -> Device:
        args = self._call("Device", structs.PJRT_AsyncHostToDeviceTransferManager_Device_Args)
        return self.client.device_for(args.device_out)

    def retrieve_buffer(self, index: int) -> Buffer:
        """PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer: the caller owns the buffer (once per index)."""
        args = self._call("RetrieveBuffer", structs.PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args,
                          buffer_index=index)
        return Buffer(self.client, args.buffer_out)

    # ---- transfers -------------------------------------------------------------------------------
    def transfer_data(self, index: int, data: bytes | int, offset: int, *, size: int | None = None,
                      is_last: bool) -> Event | None:
        """PJRT_AsyncHostToDeviceTransferManager_TransferData of `data` (bytes, or a host address with `size`)
        at byte `offset` of buffer `index`. Returns done_with_h2d_transfer (None if the plugin gave none); the
        host bytes stay alive until it fires."""
        if isinstance(data, int):
            if size is None:
                raise ValueError("transfer_data from a host address needs its size")
            address, host = data, None
        else:
            host = ctypes.create_string_buffer(data, max(1, len(data)))
            address, size = ctypes.addressof(host), len(data) if size is None else size
        args = self._call("TransferData", structs.PJRT_AsyncHostToDeviceTransferManager_TransferData_Args,
                          buffer_index=index, data=address, offset=offset, transfer_size=size,
                          is_last_transfer=is_last)
        return _done_event(self.plugin, args.done_with_h2d_transfer, "TransferData", host)

    def transfer_literal(self, index: int, array: np.ndarray, element_type: BufferType,
                         layout: MemoryLayout | None = None) -> Event | None:
        """PJRT_AsyncHostToDeviceTransferManager_TransferLiteral (0.83+): `array`'s bytes as they lie in memory,
        described by its shape, `element_type` and `layout` (None: the header's optional layout left NULL)."""
        dims = (ctypes.c_int64 * max(1, array.ndim))(*array.shape)
        args = self._call("TransferLiteral", structs.PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args,
                          buffer_index=index, data=array.ctypes.data, shape_dims=ctypes.addressof(dims),
                          shape_num_dims=array.ndim, shape_element_type=int(element_type),
                          shape_layout=layout.address if layout is not None else None)
        return _done_event(self.plugin, args.done_with_h2d_transfer, "TransferLiteral", array)

    def set_buffer_error(self, index: int, code: ErrorCode, message: str) -> None:
        text = message.encode()
        c_text = ctypes.create_string_buffer(text, max(1, len(text)))
        self._call("SetBufferError", structs.PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args,
                   buffer_index=index, error_code=int(code), error_message=ctypes.addressof(c_text),
                   error_message_size=len(text))

    def add_metadata(self, metadata: Mapping[str, str]) -> None:
        values = NamedValueArray(metadata)
        self._call("AddMetadata", structs.PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args,
                   transfer_metadata=values.pointer, num_metadata=values.count)


def _done_event(plugin: "Plugin", handle: int | None, function: str, host: object) -> Event | None:
    if not handle:
        return None
    event = Event(plugin, handle, f"PJRT_{_PREFIX}{function} done_with_h2d_transfer")
    event._host_keepalive = host  # the host data must live until the event fires
    return event
