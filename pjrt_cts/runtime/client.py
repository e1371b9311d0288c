"""PJRT_Client: topology, buffers from host data, compilation."""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from pjrt_cts.abi import structs
from pjrt_cts.abi.base import PjrtStruct
from pjrt_cts.abi.callbacks import OnDeleteCallback
from pjrt_cts.abi.enums import BufferType, ErrorCode, HostBufferSemantics, ProcessState
from pjrt_cts.runtime.async_transfer import AsyncTransferManager, ShapeSpec
from pjrt_cts.runtime.buffer import Buffer, _buffer_destroyer
from pjrt_cts.runtime.compile_options import compile_options_bytes
from pjrt_cts.runtime.deferred import AliasFulfilment
from pjrt_cts.runtime.device import Device, Memory, read_handles, read_string
from pjrt_cts.runtime.dtypes import buffer_type_of
from pjrt_cts.runtime.event import Event
from pjrt_cts.runtime.executable import LoadedExecutable
from pjrt_cts.runtime.handles import OwnedHandle
from pjrt_cts.runtime.layouts import MemoryLayout
from pjrt_cts.runtime.named_values import NamedValue, NamedValueArray

if TYPE_CHECKING:
    from pjrt_cts.runtime.plugin import Plugin


class Client(OwnedHandle):
    _kv_callbacks: Any = None  # the plugin may call them for the client's whole lifetime

    def __init__(self, plugin: "Plugin", handle: int, options: Mapping[str, NamedValue]) -> None:
        self.plugin = plugin
        self.options = dict(options)
        self._devices: dict[int, Device] = {}
        self._memories: dict[int, Memory] = {}
        self._buffer_destroy = _buffer_destroyer(plugin)

        def destroy(h: int) -> None:
            plugin.call("Client_Destroy", structs.PJRT_Client_Destroy_Args(client=h))

        self._own(handle, destroy)

    @classmethod
    def create(cls, plugin: "Plugin", options: Mapping[str, NamedValue], *, kv_callbacks: Any = None) -> "Client":
        """PJRT_Client_Create with `options` as PJRT_NamedValue[] (str/int/float/bool/list[int])."""
        values = NamedValueArray(options)
        args = structs.PJRT_Client_Create_Args(create_options=values.pointer, num_options=values.count)
        if kv_callbacks is not None:
            kv_callbacks.install(args)
        plugin.call("Client_Create", args)
        client = cls(plugin, args.client, options)
        client._kv_callbacks = kv_callbacks  # the plugin may call them for the client's whole lifetime
        return client

    def _call(self, name: str, struct: type[PjrtStruct], **fields: object) -> PjrtStruct:
        return self.plugin.call("Client_" + name, struct(client=self.handle, **fields))

    # ---- identity -------------------------------------------------------------------------------
    @property
    def platform_name(self) -> str:
        args = self._call("PlatformName", structs.PJRT_Client_PlatformName_Args)
        return read_string(args.platform_name, args.platform_name_size)

    @property
    def platform_version(self) -> str:
        args = self._call("PlatformVersion", structs.PJRT_Client_PlatformVersion_Args)
        return read_string(args.platform_version, args.platform_version_size)

    @property
    def process_index(self) -> int:
        return int(self._call("ProcessIndex", structs.PJRT_Client_ProcessIndex_Args).process_index)

    # ---- devices and memories ---------------------------------------------------------------------
    def device_for(self, handle: int) -> Device:
        device = self._devices.get(handle)
        if device is None:
            device = self._devices[handle] = Device(self, handle)
        return device

    def memory_for(self, handle: int) -> Memory:
        memory = self._memories.get(handle)
        if memory is None:
            memory = self._memories[handle] = Memory(self, handle)
        return memory

    @property
    def devices(self) -> list[Device]:
        args = self._call("Devices", structs.PJRT_Client_Devices_Args)
        return [self.device_for(h) for h in read_handles(args.devices, args.num_devices)]

    @property
    def addressable_devices(self) -> list[Device]:
        args = self._call("AddressableDevices", structs.PJRT_Client_AddressableDevices_Args)
        return [self.device_for(h) for h in read_handles(args.addressable_devices, args.num_addressable_devices)]

    @property
    def addressable_memories(self) -> list[Memory]:
        args = self._call("AddressableMemories", structs.PJRT_Client_AddressableMemories_Args)
        return [self.memory_for(h) for h in read_handles(args.addressable_memories, args.num_addressable_memories)]

    def lookup_device(self, device_id: int) -> Device:
        return self.device_for(self._call("LookupDevice", structs.PJRT_Client_LookupDevice_Args, id=device_id).device)

    def lookup_addressable_device(self, local_hardware_id: int) -> Device:
        args = self._call("LookupAddressableDevice", structs.PJRT_Client_LookupAddressableDevice_Args, local_hardware_id=local_hardware_id)
        return self.device_for(args.addressable_device)

    def update_global_process_info(self, infos: Sequence["ProcessInfo"]) -> None:
        """PJRT_Client_UpdateGlobalProcessInfo (0.73+): tell the client the state of every process of the job."""
        array = (structs.PJRT_ProcessInfo * max(1, len(infos)))()
        messages = [ctypes.create_string_buffer(info.error_message.encode()) for info in infos]
        for slot, info, message in zip(array, infos, messages):
            slot.struct_size = structs.PJRT_ProcessInfo.STRUCT_SIZE
            slot.task_id, slot.incarnation_id, slot.state = info.task_id, info.incarnation_id, int(info.state)
            slot.error_code = int(info.error_code)
            slot.error_message, slot.error_message_size = ctypes.addressof(message), len(info.error_message.encode())
        self._call("UpdateGlobalProcessInfo", structs.PJRT_Client_UpdateGlobalProcessInfo_Args,
                   process_infos=ctypes.addressof(array), num_process_infos=len(infos))

    def default_device_assignment(self, num_replicas: int, num_partitions: int, buffer_size: int | None = None) -> list[int]:
        size = num_replicas * num_partitions if buffer_size is None else buffer_size
        out = (ctypes.c_int * max(1, size))()
        self._call(
            "DefaultDeviceAssignment", structs.PJRT_Client_DefaultDeviceAssignment_Args,
            num_replicas=num_replicas, num_partitions=num_partitions,
            default_assignment_size=size, default_assignment=ctypes.addressof(out),
        )
        return list(out[: num_replicas * num_partitions])

    # ---- buffers -------------------------------------------------------------------------------
    def buffer_from_numpy(
        self,
        array: np.ndarray,
        device: Device | None = None,
        *,
        memory: Memory | None = None,
        semantics: HostBufferSemantics = HostBufferSemantics.IMMUTABLE_UNTIL_TRANSFER_COMPLETES,
        byte_strides: Sequence[int] | None = None,
        device_layout: MemoryLayout | None = None,
        element_type: BufferType | int | None = None,
        dims: Sequence[int] | None = None,
    ) -> Buffer:
        """PJRT_Client_BufferFromHostBuffer, waiting for done_with_host_buffer before returning.

        Non-C-contiguous arrays are passed with their numpy byte strides. `element_type`/`dims`
        override what numpy says (robustness tests use that to send mismatched metadata).
        """
        buffer, done = self.buffer_from_host_async(
            array, device, memory=memory, semantics=semantics, byte_strides=byte_strides,
            device_layout=device_layout, element_type=element_type, dims=dims,
        )
        if done is not None:
            if semantics in (HostBufferSemantics.IMMUTABLE_ZERO_COPY, HostBufferSemantics.MUTABLE_ZERO_COPY):
                # A true zero-copy buffer uses the host memory until it is freed: done fires only then.
                buffer._done_with_host_buffer = done
            else:
                done.wait()
                done.close()
        return buffer

    def buffer_from_host_async(
        self,
        array: np.ndarray,
        device: Device | None = None,
        *,
        memory: Memory | None = None,
        semantics: HostBufferSemantics = HostBufferSemantics.IMMUTABLE_UNTIL_TRANSFER_COMPLETES,
        byte_strides: Sequence[int] | None = None,
        device_layout: MemoryLayout | None = None,
        element_type: BufferType | int | None = None,
        dims: Sequence[int] | None = None,
    ) -> tuple[Buffer, Event | None]:
        """Like buffer_from_numpy but returns (buffer, done_with_host_buffer event) without waiting."""
        array = np.asarray(array)
        if byte_strides is None and not array.flags.c_contiguous:
            byte_strides = array.strides
        if device is None and memory is None:
            device = self.addressable_devices[0]  # the XLA wrapper dereferences a NULL device
        shape = list(array.shape if dims is None else dims)
        c_dims = (ctypes.c_int64 * max(1, len(shape)))(*shape)
        c_strides = (ctypes.c_int64 * max(1, len(byte_strides)))(*byte_strides) if byte_strides is not None else None
        args = structs.PJRT_Client_BufferFromHostBuffer_Args(
            client=self.handle,
            data=array.ctypes.data,
            type=int(buffer_type_of(array.dtype) if element_type is None else element_type),
            dims=ctypes.addressof(c_dims),
            num_dims=len(shape),
            byte_strides=ctypes.addressof(c_strides) if c_strides is not None else None,
            num_byte_strides=len(byte_strides) if byte_strides is not None else 0,
            host_buffer_semantics=int(semantics),
            device=device.handle if device is not None else None,
            memory=memory.handle if memory is not None else None,
            device_layout=device_layout.address if device_layout is not None else None,
        )
        self.plugin.call("Client_BufferFromHostBuffer", args)
        zero_copy = semantics in (HostBufferSemantics.IMMUTABLE_ZERO_COPY, HostBufferSemantics.MUTABLE_ZERO_COPY)
        buffer = Buffer(self, args.buffer, host_keepalive=array if zero_copy else None)
        done = Event(self.plugin, args.done_with_host_buffer, "done_with_host_buffer") if args.done_with_host_buffer else None
        if done is not None and not zero_copy:
            done._host_keepalive = array  # the host data must live until the event fires
        return buffer, done

    def buffers_from_numpy(self, arrays: Sequence[np.ndarray], device: Device | None = None) -> list[Buffer]:
        return [self.buffer_from_numpy(a, device) for a in arrays]

    def create_view_of_device_buffer(
        self,
        pointer: int,
        dims: Sequence[int],
        element_type: BufferType | int,
        *,
        device: Device | None = None,
        memory: Memory | None = None,
        layout: MemoryLayout | None = None,
        on_delete: Callable[[int, int], None] | None = None,
        on_delete_arg: int = 0,
        stream: int = 0,
    ) -> Buffer:
        """PJRT_Client_CreateViewOfDeviceBuffer: a non-owning buffer over memory at `pointer` (DLPack import).

        `on_delete(device_buffer_ptr, user_arg)` may run on any thread, at Delete or Destroy of the view.
        Its C trampoline is kept alive for the process: a plugin may call it late.
        """
        c_dims = (ctypes.c_int64 * max(1, len(dims)))(*dims)
        c_callback = OnDeleteCallback(lambda ptr, arg: on_delete(int(ptr or 0), int(arg or 0))) if on_delete else None
        if c_callback is not None:
            _view_callbacks.append(c_callback)
        if device is None and memory is None:
            device = self.addressable_devices[0]
        args = structs.PJRT_Client_CreateViewOfDeviceBuffer_Args(
            client=self.handle, device_buffer_ptr=pointer, dims=ctypes.addressof(c_dims), num_dims=len(dims),
            element_type=int(element_type), layout=layout.address if layout is not None else None,
            device=device.handle if device is not None else _first_device_handle(memory),
            on_delete_callback=ctypes.cast(c_callback, ctypes.c_void_p) if c_callback is not None else None,
            on_delete_callback_arg=on_delete_arg or None, stream=stream,
            memory=memory.handle if memory is not None else None,
        )
        self.plugin.call("Client_CreateViewOfDeviceBuffer", args)
        return Buffer(self, args.buffer)

    def create_error_buffer(
        self, code: int, message: str, dims: Sequence[int], element_type: BufferType | int, memory: Memory
    ) -> Buffer:
        """PJRT_Client_CreateErrorBuffer (0.82+): a buffer whose readiness carries an error."""
        text = message.encode()
        c_text = ctypes.create_string_buffer(text, max(1, len(text)))
        c_dims = (ctypes.c_int64 * max(1, len(dims)))(*dims)
        args = structs.PJRT_Client_CreateErrorBuffer_Args(
            client=self.handle, error_code=int(code), error_message=ctypes.addressof(c_text), error_message_size=len(text),
            shape_dims=ctypes.addressof(c_dims), shape_num_dims=len(dims), shape_element_type=int(element_type),
            memory=memory.handle,
        )
        self.plugin.call("Client_CreateErrorBuffer", args)
        return Buffer(self, args.buffer)

    def create_uninitialized_buffer(self, dims: Sequence[int], element_type: BufferType | int, *,
                                    device: Device | None = None, memory: Memory | None = None,
                                    layout: MemoryLayout | None = None) -> Buffer:
        """PJRT_Client_CreateUninitializedBuffer (0.68+): a buffer of that shape whose contents are undefined, on
        `device` (its default memory) or in `memory`."""
        c_dims = (ctypes.c_int64 * max(1, len(dims)))(*dims)
        args = structs.PJRT_Client_CreateUninitializedBuffer_Args(
            client=self.handle, shape_dims=ctypes.addressof(c_dims), shape_num_dims=len(dims),
            shape_element_type=int(element_type), shape_layout=layout.address if layout is not None else None,
            device=device.handle if device is not None else None, memory=memory.handle if memory is not None else None,
        )
        self.plugin.call("Client_CreateUninitializedBuffer", args)
        return Buffer(self, args.buffer)

    def create_alias_buffer(self, memory: Memory, dims: Sequence[int], element_type: BufferType | int,
                            layout: MemoryLayout | None = None) -> tuple[Buffer, AliasFulfilment]:
        """PJRT_Client_CreateAliasBuffer (0.77+): a buffer that stands for one given later through the returned
        fulfilment (PJRT_Client_FulfillAliasBuffer), or for an error."""
        c_dims = (ctypes.c_int64 * max(1, len(dims)))(*dims)
        args = structs.PJRT_Client_CreateAliasBuffer_Args(
            client=self.handle, memory=memory.handle, shape_dims=ctypes.addressof(c_dims), shape_num_dims=len(dims),
            shape_element_type=int(element_type), shape_layout=layout.address if layout is not None else None,
        )
        self.plugin.call("Client_CreateAliasBuffer", args)
        return Buffer(self, args.alias_buffer), AliasFulfilment(self, int(args.fulfill_alias_buffer_cb or 0))

    def create_buffers_for_async_host_to_device(
        self, specs: Sequence[ShapeSpec], memory: Memory, device_layouts: Sequence[MemoryLayout | None] | None = None,
    ) -> AsyncTransferManager:
        """PJRT_Client_CreateBuffersForAsyncHostToDevice (0.60+); see pjrt_cts.runtime.async_transfer."""
        return AsyncTransferManager.create(self, specs, memory, device_layouts)

    def dma_map(self, address: int, size: int) -> None:
        """PJRT_Client_DmaMap (0.67+): register `size` bytes of host memory at `address` for fast transfers."""
        self._call("DmaMap", structs.PJRT_Client_DmaMap_Args, data=address, size=size)

    def dma_unmap(self, address: int) -> None:
        """PJRT_Client_DmaUnmap (0.67+): undo dma_map of the range starting at `address`."""
        self._call("DmaUnmap", structs.PJRT_Client_DmaUnmap_Args, data=address)

    # ---- compilation ---------------------------------------------------------------------------
    def compile(
        self,
        code: str | bytes,
        format: str = "mlir",
        *,
        num_replicas: int = 1,
        num_partitions: int = 1,
        device_assignment: list[list[int]] | None = None,
        use_spmd_partitioning: bool = False,
        compile_options: bytes | None = None,
    ) -> LoadedExecutable:
        """PJRT_Client_Compile of StableHLO text/bytecode ("mlir") or an HloModuleProto ("hlo")."""
        options = compile_options if compile_options is not None else compile_options_bytes(
            num_replicas, num_partitions, device_assignment, use_spmd_partitioning
        )
        program, keepalive = make_program(code, format)
        options_buffer = ctypes.create_string_buffer(options, max(1, len(options)))
        args = structs.PJRT_Client_Compile_Args(
            client=self.handle, program=ctypes.addressof(program),
            compile_options=ctypes.addressof(options_buffer), compile_options_size=len(options),
        )
        self.plugin.call("Client_Compile", args)
        del keepalive
        return LoadedExecutable(self, args.executable)

    def deserialize_executable(self, serialized: bytes, compile_options: bytes | None = None) -> LoadedExecutable:
        data = ctypes.create_string_buffer(serialized, max(1, len(serialized)))
        opts = ctypes.create_string_buffer(compile_options, max(1, len(compile_options))) if compile_options else None
        args = structs.PJRT_Executable_DeserializeAndLoad_Args(
            client=self.handle, serialized_executable=ctypes.addressof(data), serialized_executable_size=len(serialized),
            overridden_serialized_compile_options=ctypes.addressof(opts) if opts is not None else None,
            overridden_serialized_compile_options_size=len(compile_options) if compile_options else 0,
        )
        self.plugin.call("Executable_DeserializeAndLoad", args)
        return LoadedExecutable(self, args.loaded_executable)

    def __repr__(self) -> str:
        return f"<Client {self.platform_name if not self.closed else 'closed'}>"


@dataclass(frozen=True)
class ProcessInfo:
    """One process of a multi-process job, as PJRT_ProcessInfo tells a client about it."""

    task_id: int
    incarnation_id: int
    state: ProcessState | int  # an int: values outside the enum, for rejection tests
    error_code: ErrorCode = ErrorCode.OK
    error_message: str = ""


# on_delete trampolines of views: never released, a plugin may call one after the view is gone.
_view_callbacks: list[object] = []


def _first_device_handle(memory: Memory | None) -> int | None:
    # The deprecated `device` field is still read by plugins older than 0.66 (no `memory` field).
    if memory is None:
        return None
    devices = memory.addressable_by_devices
    return devices[0].handle if devices else None


def make_program(code: str | bytes, format: str) -> tuple[structs.PJRT_Program, list[object]]:
    """A PJRT_Program over `code`; the returned keepalive list must outlive the call.

    The code is NUL-terminated one byte past code_size, as frameworks pass it (std::string): some
    plugins' MLIR parsers read past code_size, which the robustness layer checks on its own.
    """
    data = code.encode() if isinstance(code, str) else bytes(code)
    code_buffer = ctypes.create_string_buffer(data, len(data) + 1)
    format_buffer = ctypes.create_string_buffer(format.encode())
    program = structs.PJRT_Program(
        code=ctypes.addressof(code_buffer), code_size=len(data),
        format=ctypes.addressof(format_buffer), format_size=len(format.encode()),
    )
    return program, [code_buffer, format_buffer]
