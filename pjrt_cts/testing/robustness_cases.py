"""The robustness layer's risky calls, as functions a child process runs by name.

    python -m pjrt_cts.testing.robustness_cases [--control CONTROL] PLUGIN CREATE_OPTIONS_JSON CASE [KWARGS_JSON]

The child loads the plugin, creates a client and runs `CASES[CASE](**kwargs)`. Each case makes one
risky call and reports the plugin's answer on one stdout line (`PJRT_CTS_RESULT {json}`, see
pjrt_cts.fuzz.isolate) then leaves at once with os._exit (no teardown of possibly broken objects);
a crash or hang is the finding. With `--control`, the child first runs that control (the same function
with valid arguments) and reports it on a `PJRT_CTS_CONTROL {json}` line: one process instead of two,
which matters where starting one costs seconds (a CUDA plugin). suites/robustness/conftest.py runs the child through
pjrt_cts.fuzz.isolate.run_command and saves a stand-alone reproduction script per case
(`reproduction_script`: the case's source as a comment, plus a call of `reproduce` by name, made by
pjrt_cts.testing.reproduction).

KWARGS_JSON is a JSON object; bytes travel as {"__bytes_hex__": "..."}.
Nothing here loads a plugin at import time.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import ctypes
import inspect
import json
import os
import sys
from types import MappingProxyType
from typing import Any, Callable, Mapping, NamedTuple, Sequence

import numpy as np

from pjrt_cts.abi import structs
from pjrt_cts.fuzz.isolate import CONTROL_PREFIX, result_line
from pjrt_cts.runtime import calltimes
from pjrt_cts.testing.reproduction import OVERRIDES_NOTE, chosen_plugin, script_calling

MODULE = "pjrt_cts.testing.robustness_cases"

ADD = """module @add {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""

F32 = 11  # PJRT_Buffer_Type_F32

# Set by `start` in the child process (the cases read them as globals, like a script would).
plugin: Any = None
client: Any = None
device: Any = None
OPTIONS: dict[str, Any] = {}

CASES: dict[str, Callable[..., None]] = {}

NO_KWARGS: Mapping[str, Any] = MappingProxyType({})


class RiskyCase(NamedTuple):
    """One row of a robustness suite's table of risky calls (the table maps the test's case id to it)."""

    function: str  # the PJRT function judged, without its PJRT_ prefix (e.g. "Client_Compile")
    case: str  # the case of this module that makes the call (a key of CASES)
    kwargs: Mapping[str, Any] = NO_KWARGS  # the case's keyword arguments (read-only: rows are shared)


def case(function: Callable[..., None]) -> Callable[..., None]:
    """Register a case under its function name."""
    assert function.__name__ not in CASES, function.__name__
    CASES[function.__name__] = function
    return function


# ---- the child's helpers -------------------------------------------------------------------------------------

class _ControlAnswered(Exception):
    """A control's answer, raised instead of leaving the process: the case runs next."""

    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__(payload)
        self.payload = payload


_running_control = False  # set by run_control_then_case while the control runs


def answer(error: Any) -> None:
    """Report the plugin's answer and leave at once (no teardown of possibly broken objects)."""
    payload = {"status": "ok"} if error is None else {"status": "error", "code": error.code,
                                                      "message": error.message[:500]}
    if _running_control:
        raise _ControlAnswered(payload)
    print(result_line(payload), flush=True)
    calltimes.write_now()  # benchmarks only (PJRT_CTS_CALL_TIMES): os._exit skips the exit handler that writes it
    os._exit(0)


def call(name: str, args: ctypes.Structure) -> None:
    answer(plugin.call_status(name, args))


def call_raw(name: str, address: int | None) -> None:
    error = plugin.function(name)(address)
    answer(plugin.consume_error(error, "PJRT_" + name) if error else None)


def attempt(action: Callable[[], Any]) -> None:
    from pjrt_cts.runtime import PjrtError

    try:
        action()
    except PjrtError as error:
        answer(error)
    answer(None)


def options_buffer(data: bytes) -> ctypes.Array:
    return ctypes.create_string_buffer(data, max(1, len(data)))


def compile_args(program: structs.PJRT_Program, options: bytes | None = None) -> structs.PJRT_Client_Compile_Args:
    from pjrt_cts.runtime import compile_options_bytes

    data = compile_options_bytes() if options is None else options
    keep = options_buffer(data)
    args = structs.PJRT_Client_Compile_Args(client=client.handle, program=ctypes.addressof(program),
                                            compile_options=ctypes.addressof(keep), compile_options_size=len(data))
    args._keep = (keep, program)  # the program too: args holds only its address
    return args


def program_of(code: str | bytes = ADD, fmt: str = "mlir") -> structs.PJRT_Program:
    data = code.encode() if isinstance(code, str) else code
    code_buffer = ctypes.create_string_buffer(data, len(data) + 1)
    format_buffer = ctypes.create_string_buffer(fmt.encode())
    program = structs.PJRT_Program(code=ctypes.addressof(code_buffer), code_size=len(data),
                                   format=ctypes.addressof(format_buffer), format_size=len(fmt.encode()))
    program._keep = (code_buffer, format_buffer)
    return program


_guard_page: dict[str, int] = {}  # base address and page size of the guarded region, once mapped
_guard_page_keep: list[Any] = []  # the mmap itself, alive until the process leaves


def at_page_end(data: bytes) -> int:
    """Copy `data` to end exactly at a page boundary followed by an inaccessible page: a plugin that reads
    beyond the size given (assuming a NUL terminator the API does not promise) faults here reliably."""
    import mmap

    if not _guard_page:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        page = mmap.PAGESIZE
        region = mmap.mmap(-1, 2 * page, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        base = ctypes.addressof(ctypes.c_char.from_buffer(region))
        assert libc.mprotect(base + page, page, 0) == 0, "mprotect failed"
        _guard_page.update(base=base, page=page)
        _guard_page_keep.append(region)
    start = _guard_page["base"] + _guard_page["page"] - len(data)
    ctypes.memmove(start, data, len(data))
    return start


def f32_buffer(count: int = 4, fill: str = "arange") -> Any:
    data = np.arange(count, dtype=np.float32) if fill == "arange" else np.ones(count, np.float32)
    return client.buffer_from_numpy(data)


# ---- controls: the function under test with valid arguments -----------------------------------------------------

@case
def control_buffer_from_host() -> None:
    attempt(lambda: client.buffer_from_numpy(np.arange(4, dtype=np.float32)).to_numpy())


@case
def control_client_create() -> None:
    attempt(lambda: plugin.create_client(OPTIONS).close())


@case
def control_event_set() -> None:
    from pjrt_cts.runtime import Event

    attempt(lambda: Event.create(plugin).set())


@case
def control_execute() -> None:
    executable = client.compile(ADD)
    a = client.buffer_from_numpy(np.ones(4, np.float32))
    attempt(lambda: [x.to_numpy() for x in executable.execute([a, a])])


@case
def control_default_device_assignment() -> None:
    attempt(lambda: client.default_device_assignment(1, 1, buffer_size=1))


@case
def control_lookup_device() -> None:
    attempt(lambda: client.lookup_device(client.devices[0].id))


@case
def control_copy_raw_to_host() -> None:
    attempt(lambda: client.buffer_from_numpy(np.arange(4, dtype=np.float32)).copy_raw_to_host(0, 16))


@case
def control_compile() -> None:
    call('Client_Compile', compile_args(program_of()))


@case
def control_copy_to_device() -> None:
    attempt(lambda: client.buffer_from_numpy(np.ones(4, np.float32))
            .copy_to_device(client.addressable_devices[-1]).to_numpy())


# The control of each function the rejection cases call: run first in a case's own child, once per function and
# worker (suites/robustness/conftest.py caches the answer).
CONTROLS = {
    "PJRT_Client_BufferFromHostBuffer": "control_buffer_from_host",
    "PJRT_Client_Create": "control_client_create",
    "PJRT_Buffer_ToHostBuffer": "control_buffer_from_host",  # the same round trip: create, then to host
    "PJRT_Event_Set": "control_event_set",
    "PJRT_LoadedExecutable_Execute": "control_execute",
    "PJRT_Client_DefaultDeviceAssignment": "control_default_device_assignment",
    "PJRT_Client_LookupDevice": "control_lookup_device",
    "PJRT_Buffer_CopyRawToHost": "control_copy_raw_to_host",
    "PJRT_Client_Compile": "control_compile",
    "PJRT_Buffer_CopyToDevice": "control_copy_to_device",
}


# ---- handle lifetimes ----------------------------------------------------------------------------------------

@case
def buffer_double_destroy() -> None:
    buffer = client.buffer_from_numpy(np.ones(4, np.float32))
    handle = buffer.detach()
    plugin.call('Buffer_Destroy', structs.PJRT_Buffer_Destroy_Args(buffer=handle))
    call('Buffer_Destroy', structs.PJRT_Buffer_Destroy_Args(buffer=handle))


@case
def executable_double_destroy() -> None:
    executable = client.compile(ADD)
    handle = executable.detach()
    plugin.call('LoadedExecutable_Destroy', structs.PJRT_LoadedExecutable_Destroy_Args(executable=handle))
    call('LoadedExecutable_Destroy', structs.PJRT_LoadedExecutable_Destroy_Args(executable=handle))


@case
def event_double_destroy() -> None:
    buffer = client.buffer_from_numpy(np.ones(4, np.float32))
    event = buffer.ready_event()
    handle = event.detach()
    plugin.call('Event_Destroy', structs.PJRT_Event_Destroy_Args(event=handle))
    call('Event_Destroy', structs.PJRT_Event_Destroy_Args(event=handle))


@case
def buffer_use_after_destroy() -> None:
    buffer = client.buffer_from_numpy(np.ones(4, np.float32))
    handle = buffer.detach()
    plugin.call('Buffer_Destroy', structs.PJRT_Buffer_Destroy_Args(buffer=handle))
    call('Buffer_Dimensions', structs.PJRT_Buffer_Dimensions_Args(buffer=handle))


@case
def execute_with_destroyed_argument() -> None:
    executable = client.compile(ADD)
    a = client.buffer_from_numpy(np.ones(4, np.float32))
    b = client.buffer_from_numpy(np.ones(4, np.float32)).detach()
    plugin.call('Buffer_Destroy', structs.PJRT_Buffer_Destroy_Args(buffer=b))
    row = (ctypes.c_void_p * 2)(a.handle, b)
    arg_lists = (ctypes.c_void_p * 1)(ctypes.addressof(row))
    outs = (ctypes.c_void_p * 1)()
    out_lists = (ctypes.c_void_p * 1)(ctypes.addressof(outs))
    options = structs.PJRT_ExecuteOptions()
    call('LoadedExecutable_Execute', structs.PJRT_LoadedExecutable_Execute_Args(
        executable=executable.handle, options=ctypes.addressof(options), argument_lists=ctypes.addressof(arg_lists),
        num_devices=1, num_args=2, output_lists=ctypes.addressof(out_lists)))


@case
def to_host_after_buffer_delete() -> None:
    buffer = client.buffer_from_numpy(np.ones(4, np.float32))
    buffer.delete()
    attempt(lambda: buffer.to_numpy())


@case
def execute_with_deleted_argument() -> None:
    executable = client.compile(ADD)
    a = client.buffer_from_numpy(np.ones(4, np.float32))
    b = client.buffer_from_numpy(np.ones(4, np.float32))
    b.delete()
    attempt(lambda: [x.to_numpy() for x in executable.execute([a, b])])


@case
def copy_to_device_after_buffer_delete() -> None:
    buffer = client.buffer_from_numpy(np.ones(4, np.float32))
    buffer.delete()
    attempt(lambda: buffer.copy_to_device(client.addressable_devices[-1]).to_numpy())


# ---- invalid arguments: enums, dims and sizes, struct sizes, program formats ----------------------------------

@case
def buffer_from_host(type: int = F32, dims: Sequence[int] = (4, 0), num_dims: int = 1, semantics: int = 0,
                     strides: Sequence[int] = (4, 0), num_strides: int = 0, args_struct_size: int | None = None,
                     layout_type: int | None = None, tiled_layout_struct_size_0: bool = False) -> None:
    """PJRT_Client_BufferFromHostBuffer of 4 f32 values with the given (possibly invalid) arguments.

    `layout_type`: a device_layout of that (invalid) type; `tiled_layout_struct_size_0`: a tiled device_layout
    whose own struct_size is 0; `args_struct_size`: the args struct's struct_size."""
    data = np.arange(4, dtype=np.float32)
    dims_array = (ctypes.c_int64 * 2)(*dims)
    strides_array = (ctypes.c_int64 * 2)(*strides)
    args = structs.PJRT_Client_BufferFromHostBuffer_Args(
        client=client.handle, data=data.ctypes.data, type=type, dims=ctypes.addressof(dims_array), num_dims=num_dims,
        byte_strides=ctypes.addressof(strides_array) if num_strides else None, num_byte_strides=num_strides,
        host_buffer_semantics=semantics, device=device.handle)
    if layout_type is not None:
        layout = structs.PJRT_Buffer_MemoryLayout()
        layout.type = layout_type
        args.device_layout = ctypes.addressof(layout)
    if tiled_layout_struct_size_0:
        minor_to_major = (ctypes.c_int64 * 1)(0)
        layout = structs.PJRT_Buffer_MemoryLayout(struct_size=0)
        layout.type = 0
        layout.layout.tiled.struct_size = structs.PJRT_Buffer_MemoryLayout_Tiled.STRUCT_SIZE
        layout.layout.tiled.minor_to_major = ctypes.addressof(minor_to_major)
        layout.layout.tiled.minor_to_major_size = 1
        args.device_layout = ctypes.addressof(layout)
    if args_struct_size is not None:
        args.struct_size = args_struct_size
    call('Client_BufferFromHostBuffer', args)


@case
def client_create_with_bad_option(value_type: int | None = None, struct_size: int | None = None) -> None:
    """PJRT_Client_Create with one create option whose PJRT_NamedValue has that type or struct_size."""
    from pjrt_cts.runtime.named_values import NamedValueArray

    values = NamedValueArray({"cpu_device_count": 2})
    assert values.pointer is not None
    if value_type is not None:
        ctypes.c_int.from_address(values.pointer + structs.PJRT_NamedValue.type.offset).value = value_type
    if struct_size is not None:
        ctypes.c_size_t.from_address(values.pointer).value = struct_size
    call('Client_Create', structs.PJRT_Client_Create_Args(create_options=values.pointer, num_options=values.count))


@case
def to_host_layout_type_9() -> None:
    buffer = client.buffer_from_numpy(np.arange(4, dtype=np.float32))
    layout = structs.PJRT_Buffer_MemoryLayout()
    layout.type = 9
    out = (ctypes.c_uint8 * 16)()
    call('Buffer_ToHostBuffer', structs.PJRT_Buffer_ToHostBuffer_Args(
        src=buffer.handle, host_layout=ctypes.addressof(layout), dst=ctypes.addressof(out), dst_size=16))


@case
def event_set_error_code_99() -> None:
    from pjrt_cts.runtime import Event

    event = Event.create(plugin)
    message = ctypes.create_string_buffer(b"bad code")
    call('Event_Set', structs.PJRT_Event_Set_Args(event=event.handle, error_code=99,
                                                  error_message=ctypes.addressof(message), error_message_size=8))


@case
def execute(arguments: Sequence[Sequence[Any]], repeat: int = 1, devices: int = 1,
            args_struct_size: int | None = None, options_struct_size: int | None = None) -> None:
    """PJRT_LoadedExecutable_Execute of ADD (two f32[4] parameters) with the given arguments:
    `arguments` lists (element count, numpy dtype name) of buffers of ones, the list repeated `repeat` times
    (the same buffers again), on `devices` devices, optionally with another struct_size of the args struct
    or of PJRT_ExecuteOptions."""
    executable = client.compile(ADD)
    buffers = [client.buffer_from_numpy(np.ones(count, np.dtype(dtype))) for count, dtype in arguments] * repeat
    args_row = (ctypes.c_void_p * max(1, len(buffers)))(*[b.handle for b in buffers])
    arg_lists = (ctypes.c_void_p * devices)(*([ctypes.addressof(args_row)] * devices))
    outs = [(ctypes.c_void_p * 1)() for _ in range(devices)]
    out_lists = (ctypes.c_void_p * devices)(*[ctypes.addressof(o) for o in outs])
    options = (structs.PJRT_ExecuteOptions() if options_struct_size is None
               else structs.PJRT_ExecuteOptions(struct_size=options_struct_size))
    size = {} if args_struct_size is None else {"struct_size": args_struct_size}
    call('LoadedExecutable_Execute', structs.PJRT_LoadedExecutable_Execute_Args(
        **size, executable=executable.handle, options=ctypes.addressof(options),
        argument_lists=ctypes.addressof(arg_lists), num_devices=devices, num_args=len(buffers),
        output_lists=ctypes.addressof(out_lists)))


@case
def to_host_buffer_dst_too_small() -> None:
    buffer = client.buffer_from_numpy(np.arange(4, dtype=np.float32))
    out = (ctypes.c_uint8 * 8)()
    call('Buffer_ToHostBuffer', structs.PJRT_Buffer_ToHostBuffer_Args(src=buffer.handle, dst=ctypes.addressof(out),
                                                                      dst_size=8))


@case
def default_device_assignment(num_replicas: int) -> None:
    """PJRT_Client_DefaultDeviceAssignment into a buffer of 1 entry, for `num_replicas` x 1 partition."""
    out = (ctypes.c_int * 1)()
    call('Client_DefaultDeviceAssignment', structs.PJRT_Client_DefaultDeviceAssignment_Args(
        client=client.handle, num_replicas=num_replicas, num_partitions=1, default_assignment_size=1,
        default_assignment=ctypes.addressof(out)))


@case
def lookup_device_out_of_range() -> None:
    call('Client_LookupDevice', structs.PJRT_Client_LookupDevice_Args(client=client.handle, id=1 << 20))


@case
def copy_raw_to_host_beyond_the_buffer() -> None:
    buffer = client.buffer_from_numpy(np.arange(4, dtype=np.float32))
    out = (ctypes.c_uint8 * 64)()
    args = structs.PJRT_Buffer_CopyRawToHost_Args(buffer=buffer.handle, dst=ctypes.addressof(out), offset=8,
                                                  transfer_size=64)
    error = plugin.call_status('Buffer_CopyRawToHost', args)
    if error is None and args.event:
        error = plugin.call_status('Event_Await', structs.PJRT_Event_Await_Args(event=args.event))
    answer(error)


@case
def compile_args_struct_size_1() -> None:
    args = compile_args(program_of())
    args.struct_size = 1
    call('Client_Compile', args)


@case
def compile_program_struct_size_0() -> None:
    program = program_of()
    program.struct_size = 0
    call('Client_Compile', compile_args(program))


@case
def compile_program(code: str | bytes = ADD, fmt: str = "mlir") -> None:
    """PJRT_Client_Compile of `code` in format `fmt` (default: the ADD program as MLIR text)."""
    call('Client_Compile', compile_args(program_of(code=code, fmt=fmt)))


@case
def compile_code_at_page_end(code: bytes) -> None:
    """PJRT_Client_Compile of `code` (format "mlir") ending at a page boundary followed by an inaccessible page."""
    program = program_of()
    program.code = at_page_end(code)
    program.code_size = len(code)
    call('Client_Compile', compile_args(program))


@case
def compile_format_at_page_end() -> None:
    program = program_of()
    program.format = at_page_end(b"mlir")
    program.format_size = 4
    call('Client_Compile', compile_args(program))


# ---- malformed compile options --------------------------------------------------------------------------------

@case
def compile_with_options(options: bytes | None) -> None:
    """PJRT_Client_Compile of ADD with these serialized compile options (None: a NULL pointer, size 0)."""
    if options is None:
        program = program_of()
        args = structs.PJRT_Client_Compile_Args(client=client.handle, program=ctypes.addressof(program),
                                                compile_options=None, compile_options_size=0)
        call('Client_Compile', args)
    else:
        call('Client_Compile', compile_args(program_of(), options))


# ---- NULL inputs ---------------------------------------------------------------------------------------------

@case
def null_args_struct(function: str) -> None:
    """PJRT_<function>(NULL), after creating what the function works on (kept alive until the call)."""
    keep = None
    if function == "Buffer_ToHostBuffer":
        keep = client.buffer_from_numpy(np.zeros(4, np.float32))
    elif function == "LoadedExecutable_Execute":
        keep = client.compile(ADD)
    call_raw(function, None)
    del keep


@case
def null_client_platform_name() -> None:
    call('Client_PlatformName', structs.PJRT_Client_PlatformName_Args(client=None))


@case
def null_compile_client() -> None:
    args = compile_args(program_of())
    args.client = None
    call('Client_Compile', args)


@case
def null_compile_program() -> None:
    args = compile_args(program_of())
    args.program = None
    call('Client_Compile', args)


@case
def null_buffer_from_host_data() -> None:
    dims = (ctypes.c_int64 * 1)(4)
    call('Client_BufferFromHostBuffer', structs.PJRT_Client_BufferFromHostBuffer_Args(
        client=client.handle, data=None, type=F32, dims=ctypes.addressof(dims), num_dims=1,
        host_buffer_semantics=0, device=device.handle))


@case
def null_buffer_from_host_device_and_memory() -> None:
    data = np.zeros(4, np.float32)
    dims = (ctypes.c_int64 * 1)(4)
    call('Client_BufferFromHostBuffer', structs.PJRT_Client_BufferFromHostBuffer_Args(
        client=client.handle, data=data.ctypes.data, type=F32, dims=ctypes.addressof(dims), num_dims=1,
        host_buffer_semantics=0, device=None, memory=None))


@case
def null_buffer_element_type() -> None:
    call('Buffer_ElementType', structs.PJRT_Buffer_ElementType_Args(buffer=None))


@case
def null_device_get_description() -> None:
    call('Device_GetDescription', structs.PJRT_Device_GetDescription_Args(device=None))


@case
def null_async_tracking_event_destroy() -> None:
    call('AsyncTrackingEvent_Destroy', structs.PJRT_AsyncTrackingEvent_Destroy_Args(event=None))


@case
def null_device_create_async_tracking_event() -> None:
    text = ctypes.create_string_buffer(b"pjrt-cts")
    call('Device_CreateAsyncTrackingEvent', structs.PJRT_Device_CreateAsyncTrackingEvent_Args(
        device=None, description=ctypes.addressof(text), description_size=8))


@case
def null_device_clear_memory_stats() -> None:
    call('Device_ClearMemoryStats', structs.PJRT_Device_ClearMemoryStats_Args(device=None))


@case
def null_executable_num_outputs() -> None:
    call('Executable_NumOutputs', structs.PJRT_Executable_NumOutputs_Args(executable=None))


@case
def null_event_await() -> None:
    call('Event_Await', structs.PJRT_Event_Await_Args(event=None))


@case
def null_execute_context_destroy() -> None:
    call('ExecuteContext_Destroy', structs.PJRT_ExecuteContext_Destroy_Args(context=None))


def call_extension(extension: str, name: str, args: ctypes.Structure, *, void: bool = False) -> None:
    """An extension function (`EXTENSION.name`, through the call hooks like every call) with `args`."""
    from pjrt_cts.abi.callbacks import VoidSlotFunction
    from pjrt_cts.abi.enums import ExtensionType
    from pjrt_cts.runtime.extensions.calls import function

    kind = ExtensionType[extension]
    if void:
        function(plugin, kind, name, VoidSlotFunction)(ctypes.addressof(args))
        answer(None)
        return
    error = function(plugin, kind, name)(ctypes.addressof(args))
    answer(plugin.consume_error(error, f"{extension}.{name}") if error else None)


@case
def null_memory_description_kind() -> None:
    from pjrt_cts.abi.extensions import memory_descriptions

    call_extension("MEMORY_DESCRIPTIONS", "MemoryDescription_Kind",
                   memory_descriptions.PJRT_MemoryDescription_Kind_Args(memory_description=None))


@case
def null_pipeline_trace_destroy() -> None:
    from pjrt_cts.abi.extensions import xla_transform

    call_extension("XLA_TRANSFORM", "destroy_hlo_pass_pipeline_trace",
                   xla_transform.PJRT_Xla_Transform_Destroy_Hlo_Pass_Pipeline_Trace_Args(trace=None), void=True)


@case
def no_phase_compile_buffers_destroy() -> None:
    from pjrt_cts.abi.extensions import phase_compile

    call_extension("PHASE_COMPILE", "c_buffers_destroy", phase_compile.PJRT_PhaseCompile_C_Buffers_Destroy_Args(
        char_buffers=None, char_buffer_sizes=None, num_char_buffers=0), void=True)


@case
def null_execute_options() -> None:
    executable = client.compile(ADD)
    a = client.buffer_from_numpy(np.ones(4, np.float32))
    args_row = (ctypes.c_void_p * 2)(a.handle, a.handle)
    arg_lists = (ctypes.c_void_p * 1)(ctypes.addressof(args_row))
    outs = (ctypes.c_void_p * 1)()
    out_lists = (ctypes.c_void_p * 1)(ctypes.addressof(outs))
    call('LoadedExecutable_Execute', structs.PJRT_LoadedExecutable_Execute_Args(
        executable=executable.handle, options=None, argument_lists=ctypes.addressof(arg_lists), num_devices=1,
        num_args=2, output_lists=ctypes.addressof(out_lists)))


# ---- running a case --------------------------------------------------------------------------------------------

def start(plugin_path: str, options: Mapping[str, Any]) -> None:
    """Load the plugin and create the client the cases use."""
    global plugin, client, device, OPTIONS
    from pjrt_cts.runtime import Plugin

    OPTIONS = dict(options)
    plugin = Plugin.load(plugin_path)
    client = plugin.create_client(OPTIONS)
    device = client.addressable_devices[0]


def run_case(plugin_path: str, create_options: Mapping[str, Any], name: str, /, **kwargs: Any) -> None:
    """Run case `name` with `kwargs` against the plugin (the child and `reproduce` call this). Positional-only
    parameters: a case may take keywords of the same names (compile_with_options(options=...))."""
    function = CASES[name]  # before loading anything: an unknown name is the caller's error
    start(plugin_path, create_options)
    function(**kwargs)


def run_control_then_case(plugin_path: str, create_options: Mapping[str, Any], control: str, name: str,
                          kwargs: Mapping[str, Any]) -> None:
    """Control `control` (valid arguments; its answer on the PJRT_CTS_CONTROL line), then case `name`.

    The control runs first, so the risky call still meets a plugin that has seen nothing invalid."""
    global _running_control
    check, function = CASES[control], CASES[name]
    start(plugin_path, create_options)
    _running_control = True
    try:
        check()
        raise AssertionError(f"control {control} returned without answering")  # every control calls answer()
    except _ControlAnswered as answered:
        payload = answered.payload
    finally:
        _running_control = False
    print(result_line(payload, CONTROL_PREFIX), flush=True)
    function(**kwargs)


def encode_kwargs(kwargs: Mapping[str, Any]) -> str:
    def encode(value: Any) -> Any:
        if isinstance(value, (bytes, bytearray)):
            return {"__bytes_hex__": bytes(value).hex()}
        if isinstance(value, (list, tuple)):
            return [encode(v) for v in value]
        return value

    return json.dumps({key: encode(value) for key, value in kwargs.items()})


def decode_kwargs(text: str) -> dict[str, Any]:
    def decode(value: Any) -> Any:
        if isinstance(value, dict) and set(value) == {"__bytes_hex__"}:
            return bytes.fromhex(value["__bytes_hex__"])
        if isinstance(value, list):
            return [decode(v) for v in value]
        return value

    return {key: decode(value) for key, value in json.loads(text or "{}").items()}


def child_argv(plugin_path: Any, options: Mapping[str, Any], name: str, kwargs: Mapping[str, Any],
               control: str | None = None) -> list[str]:
    """The child's command line: this interpreter runs case `name` by name (after `control`, if given)."""
    for wanted in (name, control):
        if wanted is not None and wanted not in CASES:
            raise KeyError(f"no robustness case {wanted!r} in {MODULE}")
    first = ["--control", control] if control is not None else []
    return [sys.executable, "-m", MODULE, *first, str(plugin_path), json.dumps(dict(options)), name,
            encode_kwargs(kwargs)]


def reproduce(plugin_path: str, create_options: Mapping[str, Any], name: str, /, **kwargs: Any) -> int:
    """What a reproduction script calls: case `name` with `kwargs` (run_case), against the plugin and options it
    was written for unless its runner names others (testing.reproduction.chosen_plugin). Returns 0 when the
    plugin answered (the answer is the last stdout line); a crash or hang never returns."""
    chosen_path, chosen_options = chosen_plugin(plugin_path, create_options)
    run_case(chosen_path, chosen_options, name, **kwargs)
    return 0


def reproduction_script(name: str, kwargs: Mapping[str, Any], *, title: str, path: Any, plugin_path: Any,
                        options: Mapping[str, Any]) -> str:
    """A stand-alone script that reruns case `name` with `kwargs` (no pytest): a call of `reproduce` by name; the
    case's source is quoted as a comment so the file shows what it does."""
    if name not in CASES:
        raise KeyError(f"no robustness case {name!r} in {MODULE}")
    doc = (f"pjrt-cts robustness reproduction: {title}\n\n"
           f"Run: python {path} [PLUGIN [CREATE_OPTIONS_JSON]]\n"
           f"{OVERRIDES_NOTE}\n"
           "The last stdout line is the plugin's answer; a crash or hang is the finding.\n"
           f"The case is {MODULE}.{name} (quoted below; helpers such as call/attempt are in that module).")
    quoted = "---- the case ----\n" + inspect.getsource(CASES[name])
    return script_calling(reproduce, (str(plugin_path), dict(options), name), kwargs, doc=doc, comment=quoted)


def main(argv: Sequence[str]) -> int:
    argv, control = list(argv), None
    if argv[:1] == ["--control"] and len(argv) >= 2:
        control, argv = argv[1], argv[2:]
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    plugin_path, options_json, name = argv[:3]
    kwargs = decode_kwargs(argv[3] if len(argv) == 4 else "")
    if control is not None:
        run_control_then_case(plugin_path, json.loads(options_json or "{}"), control, name, kwargs)
    else:
        run_case(plugin_path, json.loads(options_json or "{}"), name, **kwargs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
