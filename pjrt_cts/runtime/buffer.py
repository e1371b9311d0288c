"""PJRT_Buffer: device arrays created from numpy and read back into numpy."""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from pjrt_cts.abi import structs
from pjrt_cts.abi.base import PjrtStruct
from pjrt_cts.abi.enums import BufferType
from pjrt_cts.runtime.device import Device, Memory, read_handles
from pjrt_cts.runtime.dtypes import dtype_of
from pjrt_cts.runtime import readback
from pjrt_cts.runtime.event import Event, wait_and_destroy
from pjrt_cts.runtime.handles import OwnedHandle
from pjrt_cts.runtime.deferred import ControlDependency, RawCopyFuture
from pjrt_cts.runtime.layouts import LayoutView, MemoryLayout

if TYPE_CHECKING:
    from pjrt_cts.runtime.client import Client
    from pjrt_cts.runtime.event import Event
    from pjrt_cts.runtime.plugin import Plugin


def _buffer_destroyer(plugin: "Plugin") -> Callable[[int], None]:
    destroy = plugin.function("Buffer_Destroy")
    Args = structs.PJRT_Buffer_Destroy_Args

    def run(handle: int) -> None:
        args = Args(buffer=handle)  # must stay referenced during the call
        error = destroy(ctypes.addressof(args))
        if error:
            raise plugin.consume_error(error, "PJRT_Buffer_Destroy")

    return run


class Buffer(OwnedHandle):
    _done_with_host_buffer: "Event | None" = None  # a zero-copy buffer's done event: fires when it is freed

    def __init__(self, client: "Client", handle: int, host_keepalive: object = None) -> None:
        self.client = client
        self.plugin = client.plugin
        self._host_keepalive = host_keepalive  # zero-copy semantics: host memory must outlive the buffer
        self._own(handle, client._buffer_destroy, parent=client)

    def _call(self, name: str, struct: type[PjrtStruct], **fields: object) -> PjrtStruct:
        return self.plugin.call("Buffer_" + name, struct(buffer=self.handle, **fields))

    # ---- queries -------------------------------------------------------------------------------
    @property
    def element_type(self) -> BufferType:
        raw = self._call("ElementType", structs.PJRT_Buffer_ElementType_Args).type
        try:
            return BufferType(raw)
        except ValueError:
            return raw  # type: ignore[no-any-return]  # an unknown code is returned as-is: conformance checks report it

    @property
    def dtype(self) -> np.dtype:
        return dtype_of(self.element_type)

    @property
    def dims(self) -> tuple[int, ...]:
        args = self._call("Dimensions", structs.PJRT_Buffer_Dimensions_Args)
        return tuple((ctypes.c_int64 * args.num_dims).from_address(args.dims)) if args.num_dims else ()

    shape = dims

    @property
    def unpadded_dims(self) -> tuple[int, ...]:
        args = self._call("UnpaddedDimensions", structs.PJRT_Buffer_UnpaddedDimensions_Args)
        return tuple((ctypes.c_int64 * args.num_dims).from_address(args.unpadded_dims)) if args.num_dims else ()

    @property
    def dynamic_dim_indices(self) -> tuple[int, ...]:
        args = self._call("DynamicDimensionIndices", structs.PJRT_Buffer_DynamicDimensionIndices_Args)
        n = args.num_dynamic_dims
        return tuple((ctypes.c_size_t * n).from_address(args.dynamic_dim_indices)) if n else ()

    @property
    def on_device_size(self) -> int:
        return int(self._call("OnDeviceSizeInBytes", structs.PJRT_Buffer_OnDeviceSizeInBytes_Args).on_device_size_in_bytes)

    @property
    def device(self) -> Device:
        return self.client.device_for(self._call("Device", structs.PJRT_Buffer_Device_Args).device)

    @property
    def memory(self) -> Memory:
        return self.client.memory_for(self._call("Memory", structs.PJRT_Buffer_Memory_Args).memory)

    @property
    def is_on_cpu(self) -> bool:
        return bool(self._call("IsOnCpu", structs.PJRT_Buffer_IsOnCpu_Args).is_on_cpu)

    @property
    def is_deleted(self) -> bool:
        return bool(self._call("IsDeleted", structs.PJRT_Buffer_IsDeleted_Args).is_deleted)

    def ready_event(self) -> Event:
        return Event(self.plugin, self._call("ReadyEvent", structs.PJRT_Buffer_ReadyEvent_Args).event, "PJRT_Buffer_ReadyEvent event")

    def block_until_ready(self) -> "Buffer":
        args = self._call("ReadyEvent", structs.PJRT_Buffer_ReadyEvent_Args)
        wait_and_destroy(self.plugin, args.event, "PJRT_Buffer_ReadyEvent event")
        return self

    # ---- host transfer ---------------------------------------------------------------------------
    def host_size(self, host_layout: MemoryLayout | None = None) -> int:
        """PJRT_Buffer_ToHostBuffer with dst=NULL: the bytes a host copy needs."""
        args = structs.PJRT_Buffer_ToHostBuffer_Args(src=self.handle, host_layout=host_layout.address if host_layout else None, dst=None)
        self.plugin.call("Buffer_ToHostBuffer", args)
        return int(args.dst_size)

    def _start_to_host(self, destination: int, size: int, host_layout: MemoryLayout | None) -> int:
        """PJRT_Buffer_ToHostBuffer into `destination`; returns the completion event handle."""
        args = structs.PJRT_Buffer_ToHostBuffer_Args(
            src=self.handle, host_layout=host_layout.address if host_layout else None, dst=destination, dst_size=size
        )
        self.plugin.call("Buffer_ToHostBuffer", args)
        return int(args.event or 0)

    def to_host_into(self, destination: int, size: int, host_layout: MemoryLayout | None = None,
                     poison: bool = True) -> Event:
        """Start PJRT_Buffer_ToHostBuffer into `destination` (size bytes); returns the completion event.

        The destination is first filled with the poison pattern 0xA5, so a copy that writes nothing
        cannot leave bytes that happen to equal the expected ones. `poison=False` only for timing loops.
        """
        if poison:
            readback.poison(destination, size)
        return Event(self.plugin, self._start_to_host(destination, size, host_layout), "PJRT_Buffer_ToHostBuffer event")

    def read_host_bytes(self, size: int, host_layout: MemoryLayout | None = None) -> np.ndarray:
        """PJRT_Buffer_ToHostBuffer into `size` poisoned bytes (uint8); raises UnwrittenHostBytes when the
        plugin leaves part of them unwritten (see pjrt_cts.runtime.readback)."""
        def copy(address: int) -> None:
            event = self._start_to_host(address, size, host_layout)
            wait_and_destroy(self.plugin, event, "PJRT_Buffer_ToHostBuffer event")

        return readback.read_checked(copy, size, "PJRT_Buffer_ToHostBuffer")

    def to_numpy(self, minor_to_major: Sequence[int] | None = None) -> np.ndarray:
        """Copy to a new numpy array (row-major; `minor_to_major` asks the plugin for that host layout).

        The copy lands in a poisoned destination and is checked for unwritten bytes (read_host_bytes).
        """
        dims, dtype = self.dims, self.dtype
        layout = MemoryLayout.tiled(minor_to_major) if minor_to_major is not None else None
        column_major = minor_to_major is not None and list(minor_to_major) == list(range(len(dims)))
        storage_shape = dims[::-1] if column_major else dims  # column-major: the transpose's row-major storage
        size = int(np.prod(storage_shape, dtype=np.int64)) * dtype.itemsize
        if not size:
            return np.empty(dims, dtype=dtype)  # nothing to copy
        out = self.read_host_bytes(size, layout).view(dtype).reshape(storage_shape)
        return out.T if column_major else out

    def copy_raw_to_host(self, offset: int, size: int) -> bytes:
        """PJRT_Buffer_CopyRawToHost into poisoned host memory, checked for unwritten bytes."""
        def copy(address: int) -> None:
            args = self._call("CopyRawToHost", structs.PJRT_Buffer_CopyRawToHost_Args, dst=address, offset=offset,
                              transfer_size=size)
            wait_and_destroy(self.plugin, args.event, "PJRT_Buffer_CopyRawToHost event")

        return readback.read_checked(copy, size, "PJRT_Buffer_CopyRawToHost").tobytes()

    def copy_raw_to_host_future(self, offset: int, size: int) -> RawCopyFuture:
        """PJRT_Buffer_CopyRawToHostFuture (0.84+): the copy of `size` raw bytes at `offset` starts once the
        returned future is fulfilled with a destination; its `event` says when the bytes are there."""
        return RawCopyFuture(self, offset, size)

    @property
    def memory_layout(self) -> LayoutView:
        """PJRT_Buffer_GetMemoryLayout (deprecated since 0.54 for the LAYOUTS extension), copied out."""
        return LayoutView.read(self._call("GetMemoryLayout", structs.PJRT_Buffer_GetMemoryLayout_Args).layout)

    # ---- lifetime and copies --------------------------------------------------------------------
    def delete(self) -> None:
        """PJRT_Buffer_Delete: frees device memory; the handle stays valid for IsDeleted/Destroy."""
        self._call("Delete", structs.PJRT_Buffer_Delete_Args)

    def copy_to_device(self, device: Device) -> "Buffer":
        args = self._call("CopyToDevice", structs.PJRT_Buffer_CopyToDevice_Args, dst_device=device.handle)
        return Buffer(self.client, args.dst_buffer)

    def copy_to_memory(self, memory: Memory) -> "Buffer":
        args = self._call("CopyToMemory", structs.PJRT_Buffer_CopyToMemory_Args, dst_memory=memory.handle)
        return Buffer(self.client, args.dst_buffer)

    def bitcast(self, element_type: BufferType | int, dims: Sequence[int],
                device_layout: MemoryLayout | None = None) -> "Buffer":
        """PJRT_Buffer_Bitcast (0.98+): the same bytes as a buffer of another type, shape and layout
        (`device_layout` None: the default layout, not this buffer's)."""
        c_dims = (ctypes.c_int64 * max(1, len(dims)))(*dims)
        args = self._call("Bitcast", structs.PJRT_Buffer_Bitcast_Args, element_type=int(element_type),
                          dims=ctypes.addressof(c_dims), num_dims=len(dims),
                          device_layout=device_layout.address if device_layout is not None else None)
        return Buffer(self.client, args.out_buffer)

    def donate_with_control_dependency(self) -> tuple["Buffer", ControlDependency]:
        """PJRT_Buffer_DonateWithControlDependency (0.88+): this buffer is donated to a new one that becomes
        ready once the returned dependency is set ready (or carries its error)."""
        args = self._call("DonateWithControlDependency", structs.PJRT_Buffer_DonateWithControlDependency_Args)
        donated = Buffer(self.client, args.out_buffer)
        dependency = ControlDependency(self.client, int(args.callback_data or 0), int(args.dependency_ready_callback or 0))
        return donated, dependency

    # ---- external references (DLPack primitives) -------------------------------------------------
    @property
    def unsafe_pointer(self) -> int:
        return int(self._call("UnsafePointer", structs.PJRT_Buffer_UnsafePointer_Args).buffer_pointer or 0)

    @property
    def opaque_device_memory_pointer(self) -> int:
        args = self._call("OpaqueDeviceMemoryDataPointer", structs.PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args)
        return int(args.device_memory_ptr or 0)

    def increase_external_reference_count(self) -> None:
        self._call("IncreaseExternalReferenceCount", structs.PJRT_Buffer_IncreaseExternalReferenceCount_Args)

    def decrease_external_reference_count(self) -> None:
        self._call("DecreaseExternalReferenceCount", structs.PJRT_Buffer_DecreaseExternalReferenceCount_Args)

    def __repr__(self) -> str:
        if self.closed:
            return "<Buffer closed>"
        return f"<Buffer {self.element_type.name if isinstance(self.element_type, BufferType) else self.element_type}{list(self.dims)}>"


__all__ = ["Buffer", "read_handles"]
