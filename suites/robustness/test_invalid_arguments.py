"""Invalid values the contract covers: enums, dims and data sizes, struct sizes, program formats.

Each must be rejected with an error (a crash or hang is a FAIL with the reproduction script saved
under $PJRT_CTS_OUT/robustness/). Calls run in a child process: several of these abort real plugins.
"""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.testing import environment_lacks, requires

ENUM_CONTRACT = "enum arguments outside the enum must be rejected"
SHAPE_CONTRACT = "dims / data sizes that do not match must be rejected"
SIZE_CONTRACT = "struct_size smaller than the plugin's struct must be rejected with INVALID_ARGUMENT"
FORMAT_CONTRACT = "program formats and code the plugin cannot read must be rejected"

_BUFFER_FROM_HOST = """
data = np.arange(4, dtype=np.float32)
dims = (ctypes.c_int64 * 2)({dims})
strides = (ctypes.c_int64 * 2)({strides})
args = S.PJRT_Client_BufferFromHostBuffer_Args(
    client=client.handle, data=data.ctypes.data, type={type}, dims=ctypes.addressof(dims), num_dims={num_dims},
    byte_strides={byte_strides}, num_byte_strides={num_strides},
    host_buffer_semantics={semantics}, device=device.handle)
{extra}
call('Client_BufferFromHostBuffer', args)
"""


def buffer_from_host(*, type: int = 11, dims: str = "4, 0", num_dims: int = 1, semantics: int = 0,
                     strides: str = "4, 0", num_strides: int = 0, extra: str = "") -> str:
    return _BUFFER_FROM_HOST.format(type=type, dims=dims, num_dims=num_dims, semantics=semantics, strides=strides,
                                    num_strides=num_strides, byte_strides="ctypes.addressof(strides)" if num_strides
                                    else "None", extra=extra)


_BAD_LAYOUT = """
layout = S.PJRT_Buffer_MemoryLayout()
layout.type = {layout_type}
args.device_layout = ctypes.addressof(layout)
"""

ENUM_CASES = {
    "buffer_type_invalid_0": ("Client_BufferFromHostBuffer", buffer_from_host(type=0)),
    "buffer_type_999": ("Client_BufferFromHostBuffer", buffer_from_host(type=999)),
    "buffer_type_negative": ("Client_BufferFromHostBuffer", buffer_from_host(type=-1)),
    "host_buffer_semantics_99": ("Client_BufferFromHostBuffer", buffer_from_host(semantics=99)),
    "device_layout_type_7": ("Client_BufferFromHostBuffer", buffer_from_host(extra=_BAD_LAYOUT.format(layout_type=7))),
    "create_option_value_type_99": ("Client_Create", """
from pjrt_cts.runtime.named_values import NamedValueArray
values = NamedValueArray({"cpu_device_count": 2})
ctypes.c_int.from_address(values.pointer + S.PJRT_NamedValue.type.offset).value = 99
call('Client_Create', S.PJRT_Client_Create_Args(create_options=values.pointer, num_options=values.count))"""),
    "to_host_layout_type_9": ("Buffer_ToHostBuffer", """
buffer = client.buffer_from_numpy(np.arange(4, dtype=np.float32))
layout = S.PJRT_Buffer_MemoryLayout()
layout.type = 9
out = (ctypes.c_uint8 * 16)()
call('Buffer_ToHostBuffer', S.PJRT_Buffer_ToHostBuffer_Args(src=buffer.handle, host_layout=ctypes.addressof(layout),
                                                            dst=ctypes.addressof(out), dst_size=16))"""),
    "event_set_error_code_99": ("Event_Set", """
from pjrt_cts.runtime import Event
event = Event.create(plugin)
message = ctypes.create_string_buffer(b"bad code")
call('Event_Set', S.PJRT_Event_Set_Args(event=event.handle, error_code=99, error_message=ctypes.addressof(message),
                                        error_message_size=8))"""),
}


@pytest.mark.isolated
@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(function))
                                  for name, (function, _) in sorted(ENUM_CASES.items())])
def test_invalid_enum_value_is_rejected(risky_call: Any, case: str) -> None:
    function, body = ENUM_CASES[case]
    # An unknown error code given to Event_Set only labels the event's error: mapping it is a hardening matter.
    risky_call(f"enum-{case}", body, function=f"PJRT_{function}", contract=ENUM_CONTRACT, covered=True,
               accept_is_warning=function == "Event_Set")


_EXECUTE = """
executable = client.compile(ADD)
{buffers}
args_row = (ctypes.c_void_p * max(1, len(arguments)))(*[b.handle for b in arguments])
arg_lists = (ctypes.c_void_p * {devices})(*([ctypes.addressof(args_row)] * {devices}))
outs = [(ctypes.c_void_p * 1)() for _ in range({devices})]
out_lists = (ctypes.c_void_p * {devices})(*[ctypes.addressof(o) for o in outs])
options = S.PJRT_ExecuteOptions()
call('LoadedExecutable_Execute', S.PJRT_LoadedExecutable_Execute_Args(
    executable=executable.handle, options=ctypes.addressof(options), argument_lists=ctypes.addressof(arg_lists),
    num_devices={devices}, num_args=len(arguments), output_lists=ctypes.addressof(out_lists)))
"""


def execute(buffers: str, devices: int = 1) -> str:
    return _EXECUTE.format(buffers=buffers, devices=devices)


SHAPE_CASES = {
    "negative_dim": ("Client_BufferFromHostBuffer", buffer_from_host(dims="-4, 0")),
    "byte_strides_count_differs_from_dims": ("Client_BufferFromHostBuffer",
                                             buffer_from_host(strides="4, 4", num_strides=2)),
    "execute_with_wrong_shape": ("LoadedExecutable_Execute", execute(
        "arguments = [client.buffer_from_numpy(np.ones(8, np.float32)), client.buffer_from_numpy(np.ones(8, np.float32))]")),
    "execute_with_wrong_element_type": ("LoadedExecutable_Execute", execute(
        "arguments = [client.buffer_from_numpy(np.ones(4, np.int32)), client.buffer_from_numpy(np.ones(4, np.int32))]")),
    "execute_with_too_few_arguments": ("LoadedExecutable_Execute", execute(
        "arguments = [client.buffer_from_numpy(np.ones(4, np.float32))]")),
    "execute_on_more_devices_than_compiled_for": ("LoadedExecutable_Execute", execute(
        "arguments = [client.buffer_from_numpy(np.ones(4, np.float32)), client.buffer_from_numpy(np.ones(4, np.float32))]",
        devices=2)),
    "to_host_buffer_dst_too_small": ("Buffer_ToHostBuffer", """
buffer = client.buffer_from_numpy(np.arange(4, dtype=np.float32))
out = (ctypes.c_uint8 * 8)()
call('Buffer_ToHostBuffer', S.PJRT_Buffer_ToHostBuffer_Args(src=buffer.handle, dst=ctypes.addressof(out), dst_size=8))"""),
    "default_device_assignment_buffer_too_small": ("Client_DefaultDeviceAssignment", """
out = (ctypes.c_int * 1)()
call('Client_DefaultDeviceAssignment', S.PJRT_Client_DefaultDeviceAssignment_Args(
    client=client.handle, num_replicas=2, num_partitions=1, default_assignment_size=1,
    default_assignment=ctypes.addressof(out)))"""),
    "default_device_assignment_zero_replicas": ("Client_DefaultDeviceAssignment", """
out = (ctypes.c_int * 1)()
call('Client_DefaultDeviceAssignment', S.PJRT_Client_DefaultDeviceAssignment_Args(
    client=client.handle, num_replicas=0, num_partitions=1, default_assignment_size=1,
    default_assignment=ctypes.addressof(out)))"""),
    "lookup_device_out_of_range": ("Client_LookupDevice",
                                   "call('Client_LookupDevice', S.PJRT_Client_LookupDevice_Args(client=client.handle, id=1 << 20))"),
    "copy_raw_to_host_beyond_the_buffer": ("Buffer_CopyRawToHost", """
buffer = client.buffer_from_numpy(np.arange(4, dtype=np.float32))
out = (ctypes.c_uint8 * 64)()
args = S.PJRT_Buffer_CopyRawToHost_Args(buffer=buffer.handle, dst=ctypes.addressof(out), offset=8, transfer_size=64)
error = plugin.call_status('Buffer_CopyRawToHost', args)
if error is None and args.event:
    error = plugin.call_status('Event_Await', S.PJRT_Event_Await_Args(event=args.event))
answer(error)"""),
}


@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(function))
                                  for name, (function, _) in sorted(SHAPE_CASES.items())])
def test_mismatched_dims_or_sizes_are_rejected(risky_call: Any, case: str) -> None:
    """Dims and sizes that differ, and a same-size argument of another element type (its values would be
    reinterpreted: judged here only; a same-size argument of another shape or rank is execute.argument_errors')."""
    function, body = SHAPE_CASES[case]
    risky_call(f"shape-{case}", body, function=f"PJRT_{function}", contract=SHAPE_CONTRACT, covered=True)


STRUCT_SIZE_CASES = {
    "Client_Compile_Args-1": ("Client_Compile", """
args = compile_args(program_of())
args.struct_size = 1
call('Client_Compile', args)"""),
    "Client_BufferFromHostBuffer_Args-8": ("Client_BufferFromHostBuffer",
                                           buffer_from_host(extra="args.struct_size = 8")),
    "LoadedExecutable_Execute_Args-16": ("LoadedExecutable_Execute", execute(
        "arguments = [client.buffer_from_numpy(np.ones(4, np.float32))] * 2").replace(
        "call('LoadedExecutable_Execute', S.PJRT_LoadedExecutable_Execute_Args(",
        "call('LoadedExecutable_Execute', S.PJRT_LoadedExecutable_Execute_Args(struct_size=16, ")),
    "nested_Program-0": ("Client_Compile", """
program = program_of()
program.struct_size = 0
call('Client_Compile', compile_args(program))"""),
    "nested_ExecuteOptions-0": ("LoadedExecutable_Execute", execute(
        "arguments = [client.buffer_from_numpy(np.ones(4, np.float32))] * 2").replace(
        "options = S.PJRT_ExecuteOptions()", "options = S.PJRT_ExecuteOptions(struct_size=0)")),
    "nested_NamedValue-0": ("Client_Create", """
from pjrt_cts.runtime.named_values import NamedValueArray
values = NamedValueArray({"cpu_device_count": 2})
ctypes.c_size_t.from_address(values.pointer).value = 0
call('Client_Create', S.PJRT_Client_Create_Args(create_options=values.pointer, num_options=values.count))"""),
    "nested_MemoryLayout-0": ("Client_BufferFromHostBuffer", buffer_from_host(extra="""
minor_to_major = (ctypes.c_int64 * 1)(0)
layout = S.PJRT_Buffer_MemoryLayout(struct_size=0)
layout.type = 0
layout.layout.tiled.struct_size = S.PJRT_Buffer_MemoryLayout_Tiled.STRUCT_SIZE
layout.layout.tiled.minor_to_major = ctypes.addressof(minor_to_major)
layout.layout.tiled.minor_to_major_size = 1
args.device_layout = ctypes.addressof(layout)""")),
}


@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(function))
                                  for name, (function, _) in sorted(STRUCT_SIZE_CASES.items())])
def test_wrong_struct_size_is_rejected(risky_call: Any, case: str) -> None:
    """Args structs: must be rejected. Nested input structs (PJRT_Program, PJRT_ExecuteOptions...): a plugin
    that reads them without checking their struct_size gets a WARNING (hardening), a crash is a FAIL."""
    function, body = STRUCT_SIZE_CASES[case]
    risky_call(f"struct-size-{case}", body, function=f"PJRT_{function}", contract=SIZE_CONTRACT, covered=True,
               codes=("INVALID_ARGUMENT",), accept_is_warning=case.startswith("nested_"))


FORMAT_CASES = {
    "unknown_format": "call('Client_Compile', compile_args(program_of(fmt='bogus')))",
    "empty_format": "call('Client_Compile', compile_args(program_of(fmt='')))",
    "empty_code": "call('Client_Compile', compile_args(program_of(code=b'')))",
    "hlo_format_with_mlir_text": "call('Client_Compile', compile_args(program_of(fmt='hlo')))",
    "mlir_bytecode_header_only": "call('Client_Compile', compile_args(program_of(code=b'ML\\xefR')))",
}


@pytest.mark.parametrize("case", sorted(FORMAT_CASES))
def test_unreadable_program_is_rejected(risky_call: Any, case: str) -> None:
    risky_call(f"format-{case}", FORMAT_CASES[case], function="PJRT_Client_Compile", contract=FORMAT_CONTRACT,
               covered=True)


# The program text ends exactly at a page boundary followed by an inaccessible page: a plugin that
# reads beyond code_size (assuming a NUL terminator the API does not promise) faults here reliably.
_GUARD_PAGE = """
import mmap
libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
page = mmap.PAGESIZE
region = mmap.mmap(-1, 2 * page, prot=mmap.PROT_READ | mmap.PROT_WRITE)
base = ctypes.addressof(ctypes.c_char.from_buffer(region))
assert libc.mprotect(base + page, page, 0) == 0, "mprotect failed"
def at_page_end(data):
    start = base + page - len(data)
    ctypes.memmove(start, data, len(data))
    return start
{case}
"""

OVERREAD_CASES = {
    "code": """
text = b"module @m {\\n  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\\n    return %arg0 : tensor<4xf32>\\n  }\\n}"
program = program_of()
program.code = at_page_end(text)
program.code_size = len(text)
call('Client_Compile', compile_args(program))""",
    "truncated_code": """
text = b"module @m {\\n  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\\n    %0 = stablehlo.add %arg0, %"
program = program_of()
program.code = at_page_end(text)
program.code_size = len(text)
call('Client_Compile', compile_args(program))""",
    "format": """
program = program_of()
program.format = at_page_end(b"mlir")
program.format_size = 4
call('Client_Compile', compile_args(program))""",
}


@pytest.mark.parametrize("case", sorted(OVERREAD_CASES))
def test_compile_reads_no_further_than_the_sizes_given(risky_call: Any, case: str) -> None:
    """PJRT_Program gives code/format as (pointer, size) without a terminator: the plugin must not read past it.

    A complete program must compile; a truncated one must fail cleanly."""
    body = _GUARD_PAGE.format(case=OVERREAD_CASES[case].strip())
    contract = "PJRT_Program code/format are (pointer, size): nothing beyond size may be read"
    risky_call(f"overread-{case}", body, function="PJRT_Client_Compile", contract=contract, covered=True,
               expect_success=case != "truncated_code")


def test_compile_reads_no_further_than_code_size_for_bytecode(risky_call: Any) -> None:
    """A portable artifact cut in half, ending at a page boundary: must fail cleanly (bytecode readers
    follow lengths and offsets inside the data, so they are the likelier ones to run past its end)."""
    from pjrt_cts.fuzz.seeds import BUILTIN_SEEDS, bytecode_corpus

    try:
        (_, artifact), = bytecode_corpus([BUILTIN_SEEDS[0]], (1, 17, 0))
    except LookupError as error:  # no stored artifact and no jaxlib to serialize one
        environment_lacks(str(error))
    case = f"""
data = {artifact[: len(artifact) // 2]!r}
program = program_of()
program.code = at_page_end(data)
program.code_size = len(data)
call('Client_Compile', compile_args(program))"""
    risky_call("overread-truncated_bytecode", _GUARD_PAGE.format(case=case.strip()), function="PJRT_Client_Compile",
               contract="PJRT_Program code/format are (pointer, size): nothing beyond size may be read", covered=True)
