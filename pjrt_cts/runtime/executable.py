"""PJRT_LoadedExecutable (compiled and loaded on devices) and PJRT_Executable (its device-independent view)."""
from __future__ import annotations

import ctypes
import threading
from functools import cached_property
from typing import TYPE_CHECKING, Sequence, cast

from pjrt_cts.abi import structs
from pjrt_cts.abi.base import PjrtStruct
from pjrt_cts.abi.enums import BufferType
from pjrt_cts.runtime import readback
from pjrt_cts.runtime.buffer import Buffer
from pjrt_cts.runtime.device import Device, read_handles, read_string
from pjrt_cts.runtime.event import Event
from pjrt_cts.runtime.handles import OwnedHandle
from pjrt_cts.runtime.named_values import NamedValue, read_named_value_items

if TYPE_CHECKING:
    from pjrt_cts.runtime.client import Client
    from pjrt_cts.runtime.execute_context import ExecuteContext
    from pjrt_cts.runtime.plugin import Plugin


def _take_serialized(plugin: "Plugin", args: PjrtStruct, bytes_field: str, handle_field: str, deleter_field: str) -> bytes:
    """Copy plugin-owned serialized bytes, then call their deleter exactly once."""
    data = ctypes.string_at(getattr(args, bytes_field), getattr(args, bytes_field + "_size"))
    deleter, handle = getattr(args, deleter_field), getattr(args, handle_field)
    if deleter:
        ctypes.CFUNCTYPE(None, ctypes.c_void_p)(deleter)(handle)
    return data


class Executable(OwnedHandle):
    """PJRT_Executable: name, shapes, costs, serialization. Destroyed with PJRT_Executable_Destroy."""

    _loaded_owner: "LoadedExecutable | None" = None  # a view of a loaded executable keeps it alive

    def __init__(self, plugin: "Plugin", handle: int, parent: OwnedHandle | None = None) -> None:
        self.plugin = plugin

        def destroy(h: int) -> None:
            plugin.call("Executable_Destroy", structs.PJRT_Executable_Destroy_Args(executable=h))

        self._own(handle, destroy, parent=parent)

    def _get(self, name: str, struct: type[PjrtStruct]) -> PjrtStruct:
        return self.plugin.call("Executable_" + name, struct(executable=self.handle))

    @property
    def name(self) -> str:
        args = self._get("Name", structs.PJRT_Executable_Name_Args)
        return read_string(args.executable_name, args.executable_name_size)

    @property
    def num_replicas(self) -> int:
        return int(self._get("NumReplicas", structs.PJRT_Executable_NumReplicas_Args).num_replicas)

    @property
    def num_partitions(self) -> int:
        return int(self._get("NumPartitions", structs.PJRT_Executable_NumPartitions_Args).num_partitions)

    @cached_property
    def num_outputs(self) -> int:
        return int(self._get("NumOutputs", structs.PJRT_Executable_NumOutputs_Args).num_outputs)

    @property
    def size_of_generated_code(self) -> int:
        return int(self._get("SizeOfGeneratedCodeInBytes", structs.PJRT_Executable_SizeOfGeneratedCodeInBytes_Args).size_in_bytes)

    @property
    def output_element_types(self) -> list[BufferType | int]:
        args = self._get("OutputElementTypes", structs.PJRT_Executable_OutputElementTypes_Args)
        raw = list((ctypes.c_int * args.num_output_types).from_address(args.output_types)) if args.num_output_types else []
        return [BufferType(v) if v in BufferType._value2member_map_ else v for v in raw]

    @property
    def output_dimensions(self) -> list[tuple[int, ...]]:
        args = self._get("OutputDimensions", structs.PJRT_Executable_OutputDimensions_Args)
        n = args.num_outputs
        ranks = list((ctypes.c_size_t * n).from_address(args.dim_sizes)) if n else []
        flat = list((ctypes.c_int64 * sum(ranks)).from_address(args.dims)) if sum(ranks) else []
        shapes, pos = [], 0
        for rank in ranks:
            shapes.append(tuple(flat[pos : pos + rank]))
            pos += rank
        return shapes

    def _memory_kinds(self, name: str, struct: type[PjrtStruct], count_field: str) -> list[str]:
        args = self._get(name, struct)
        n = getattr(args, count_field)
        if not n:
            return []
        pointers = (ctypes.c_void_p * n).from_address(args.memory_kinds)
        sizes = (ctypes.c_size_t * n).from_address(args.memory_kind_sizes)
        return [read_string(p, s) for p, s in zip(pointers, sizes)]

    @property
    def output_memory_kinds(self) -> list[str]:
        return self._memory_kinds("OutputMemoryKinds", structs.PJRT_Executable_OutputMemoryKinds_Args, "num_outputs")

    @property
    def parameter_memory_kinds(self) -> list[str]:
        return self._memory_kinds("ParameterMemoryKinds", structs.PJRT_Executable_ParameterMemoryKinds_Args, "num_parameters")

    @property
    def fingerprint(self) -> str:
        args = self._get("Fingerprint", structs.PJRT_Executable_Fingerprint_Args)
        return read_string(args.executable_fingerprint, args.executable_fingerprint_size)

    def cost_analysis_items(self) -> list[tuple[str, NamedValue]]:
        args = self._get("GetCostAnalysis", structs.PJRT_Executable_GetCostAnalysis_Args)
        return read_named_value_items(args.properties, args.num_properties)

    def compiled_memory_stats(self) -> dict[str, int]:
        args = self._get("GetCompiledMemoryStats", structs.PJRT_Executable_GetCompiledMemoryStats_Args)
        return {field[0]: int(getattr(args, field[0])) for field in args._fields_[3:]}

    def optimized_program(self) -> tuple[str, bytes]:
        """PJRT_Executable_OptimizedProgram two-call protocol: size query, then copy. Returns (format, code)."""
        program = structs.PJRT_Program(code=None)
        args = structs.PJRT_Executable_OptimizedProgram_Args(executable=self.handle, program=ctypes.addressof(program))
        self.plugin.call("Executable_OptimizedProgram", args)
        size = int(program.code_size)

        def copy(address: int) -> None:
            program.code = address
            program.code_size = size  # the plugin may rewrite it on the copy call
            self.plugin.call("Executable_OptimizedProgram", args)

        code = readback.read_checked(copy, size, "PJRT_Executable_OptimizedProgram")
        return read_string(program.format, program.format_size), code.tobytes()

    def serialize(self) -> bytes:
        args = self._get("Serialize", structs.PJRT_Executable_Serialize_Args)
        return _take_serialized(self.plugin, args, "serialized_bytes", "serialized_executable", "serialized_executable_deleter")

    def compile_options(self) -> bytes:
        args = self._get("GetCompileOptions", structs.PJRT_Executable_GetCompileOptions_Args)
        return _take_serialized(self.plugin, args, "serialized_bytes", "serialized_compile_options", "serialized_compile_options_deleter")


class LoadedExecutable(OwnedHandle):
    """A compiled program loaded on devices; execute() runs it."""

    def __init__(self, client: "Client", handle: int) -> None:
        self.client = client
        self.plugin = client.plugin
        plugin = client.plugin

        def destroy(h: int) -> None:
            plugin.call("LoadedExecutable_Destroy", structs.PJRT_LoadedExecutable_Destroy_Args(executable=h))

        self._own(handle, destroy, parent=client)
        self._execute = plugin.function("LoadedExecutable_Execute")
        self._options = structs.PJRT_ExecuteOptions()  # reused by every execute(): no per-call allocation
        self._scratch = threading.local()  # per-thread ctypes memory of the single-device execute() path

    @cached_property
    def executable(self) -> Executable:
        args = self.plugin.call("LoadedExecutable_GetExecutable", structs.PJRT_LoadedExecutable_GetExecutable_Args(loaded_executable=self.handle))
        executable = Executable(self.plugin, args.executable, parent=self)
        # The PJRT_Executable view must not outlive its loaded executable (using it afterwards segfaults the
        # XLA CPU plugins, e.g. `client.compile(code).serialize()` on a temporary): keep the owner alive.
        executable._loaded_owner = self
        return executable

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]  # forwards any attribute of the loaded executable
        # Device-independent queries (name, num_outputs, serialize...) live on PJRT_Executable.
        if name.startswith("_") or name in ("executable", "client", "plugin"):
            raise AttributeError(name)
        return getattr(self.executable, name)

    @property
    def addressable_devices(self) -> list[Device]:
        args = self.plugin.call("LoadedExecutable_AddressableDevices", structs.PJRT_LoadedExecutable_AddressableDevices_Args(executable=self.handle))
        return [self.client.device_for(h) for h in read_handles(args.addressable_devices, args.num_addressable_devices)]

    @property
    def addressable_device_logical_ids(self) -> list[tuple[int, int]]:
        """PJRT_LoadedExecutable_AddressableDeviceLogicalIds (0.96+): (replica, partition) per addressable device."""
        args = self.plugin.call(
            "LoadedExecutable_AddressableDeviceLogicalIds",
            structs.PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args(executable=self.handle),
        )
        n = args.num_addressable_device_logical_ids
        if not n:
            return []
        pairs = (ctypes.c_int * (2 * n)).from_address(args.addressable_device_logical_ids)  # {int replica; int partition}[n]
        return [(int(pairs[2 * i]), int(pairs[2 * i + 1])) for i in range(n)]

    def delete(self) -> None:
        self.plugin.call("LoadedExecutable_Delete", structs.PJRT_LoadedExecutable_Delete_Args(executable=self.handle))

    @property
    def is_deleted(self) -> bool:
        return bool(self.plugin.call("LoadedExecutable_IsDeleted", structs.PJRT_LoadedExecutable_IsDeleted_Args(executable=self.handle)).is_deleted)

    @property
    def fingerprint_loaded(self) -> str:
        args = self.plugin.call("LoadedExecutable_Fingerprint", structs.PJRT_LoadedExecutable_Fingerprint_Args(executable=self.handle))
        return read_string(args.executable_fingerprint, args.executable_fingerprint_size)

    def device_assignment_bytes(self) -> bytes:
        args = self.plugin.call("LoadedExecutable_GetDeviceAssignment", structs.PJRT_LoadedExecutable_GetDeviceAssignment_Args(executable=self.handle))
        return _take_serialized(self.plugin, args, "serialized_bytes", "serialized_device_assignment", "serialized_device_assignment_deleter")

    # ---- execution ---------------------------------------------------------------------------------
    def execute(self, arguments: Sequence[Buffer], *, device: Device | None = None, **options: object) -> list[Buffer]:
        """Run on one device (the executable's only device, or `device` via execute_device)."""
        if options:
            outputs, _ = self.execute_sharded([arguments], execute_device=device, **options)  # type: ignore[arg-type]  # options are execute_sharded keyword arguments
            return outputs[0]
        scratch = self._single_device_scratch(len(arguments))
        scratch.args.executable = self.handle  # raises once closed: never a stale handle
        handles = scratch.arguments
        for index, buffer in enumerate(arguments):
            handles[index] = buffer.handle
        scratch.args.execute_device = device.handle if device is not None else None
        error = self._execute(scratch.address)
        if error:
            raise self.plugin.consume_error(error, "PJRT_LoadedExecutable_Execute")
        client, results = self.client, scratch.outputs
        return [Buffer(client, results[index]) for index in range(self.num_outputs)]

    def _single_device_scratch(self, num_args: int) -> "_ExecuteScratch":
        by_arity = cast("dict[int, _ExecuteScratch]", self._scratch.__dict__)  # this thread's scratch per arity
        scratch = by_arity.get(num_args)
        if scratch is None:
            scratch = by_arity[num_args] = _ExecuteScratch(self, num_args)
        return scratch

    def execute_sharded(
        self,
        argument_rows: Sequence[Sequence[Buffer]],
        *,
        execute_device: Device | None = None,
        non_donatable_input_indices: Sequence[int] = (),
        launch_id: int = 0,
        want_device_events: bool = False,
        options: structs.PJRT_ExecuteOptions | None = None,
        context: "ExecuteContext | None" = None,
    ) -> tuple[list[list[Buffer]], list[Event]]:
        """One row of arguments per addressable device; returns one row of outputs per device.

        With want_device_events, also returns the per-device completion events (caller closes them). `context` is
        passed as PJRT_ExecuteOptions.context (API 0.64); the caller may destroy it as soon as this returns.
        """
        num_devices = len(argument_rows)
        num_args = len(argument_rows[0]) if num_devices else 0
        num_outputs = self.num_outputs
        arg_arrays = [(ctypes.c_void_p * max(1, num_args))(*[b.handle for b in row]) for row in argument_rows]
        arg_lists = (ctypes.c_void_p * num_devices)(*[ctypes.addressof(a) for a in arg_arrays])
        out_arrays = [(ctypes.c_void_p * max(1, num_outputs))() for _ in range(num_devices)]
        out_lists = (ctypes.c_void_p * num_devices)(*[ctypes.addressof(a) for a in out_arrays])
        events = (ctypes.c_void_p * num_devices)() if want_device_events else None
        opts = options if options is not None else self._options
        keepalive = None
        if options is None and (non_donatable_input_indices or launch_id or context is not None):
            keepalive = (ctypes.c_int64 * max(1, len(non_donatable_input_indices)))(*non_donatable_input_indices)
            opts = structs.PJRT_ExecuteOptions(
                non_donatable_input_indices=ctypes.addressof(keepalive) if non_donatable_input_indices else None,
                num_non_donatable_input_indices=len(non_donatable_input_indices),
                launch_id=launch_id,
                context=context.handle if context is not None else None,
            )
        args = structs.PJRT_LoadedExecutable_Execute_Args(
            executable=self.handle,
            options=ctypes.addressof(opts),
            argument_lists=ctypes.addressof(arg_lists),
            num_devices=num_devices,
            num_args=num_args,
            output_lists=ctypes.addressof(out_lists),
            device_complete_events=ctypes.addressof(events) if events is not None else None,
            execute_device=execute_device.handle if execute_device is not None else None,
        )
        error = self._execute(ctypes.addressof(args))
        del keepalive
        if error:
            raise self.plugin.consume_error(error, "PJRT_LoadedExecutable_Execute")
        client = self.client
        outputs = [[Buffer(client, h) for h in row[:num_outputs]] for row in out_arrays]
        # A NULL event stays in the list (as handle 0): the multidevice layer reports which device lacks one.
        device_events = [Event(self.plugin, h or 0, "PJRT_LoadedExecutable_Execute device_complete_event") for h in events] if events is not None else []
        return outputs, device_events


class _ExecuteScratch:
    """The ctypes memory of one single-device Execute call shape, reused by one thread (the hot path)."""

    def __init__(self, executable: LoadedExecutable, num_args: int) -> None:
        self.arguments = (ctypes.c_void_p * max(1, num_args))()
        self.argument_lists = (ctypes.c_void_p * 1)(ctypes.addressof(self.arguments))
        self.outputs = (ctypes.c_void_p * max(1, executable.num_outputs))()
        self.output_lists = (ctypes.c_void_p * 1)(ctypes.addressof(self.outputs))
        self.args = structs.PJRT_LoadedExecutable_Execute_Args(
            executable=executable.handle,
            options=ctypes.addressof(executable._options),
            argument_lists=ctypes.addressof(self.argument_lists),
            num_devices=1,
            num_args=num_args,
            output_lists=ctypes.addressof(self.output_lists),
            device_complete_events=None,
        )
        self.address = ctypes.addressof(self.args)
