"""NULL args structs and NULL required handles.

The C API does not promise to reject these (the header documents required pointers, not checks):
a clean error is the hardened answer (PASS); a crash or hang is a hardening finding (WARNING) with
the reproduction script saved under $PJRT_CTS_OUT/robustness/.
"""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.testing import requires

CONTRACT_NULL_ARGS = "args struct pointer must be non-NULL (not checked by contract)"
CONTRACT_NULL_HANDLE = "required handle must be non-NULL (not checked by contract)"

NULL_ARGS = {
    "Plugin_Attributes": "",
    "Client_PlatformName": "",
    "Client_Compile": "",
    "Client_BufferFromHostBuffer": "",
    "Buffer_ToHostBuffer": "buffer = client.buffer_from_numpy(np.zeros(4, np.float32))",
    "LoadedExecutable_Execute": "executable = client.compile(ADD)",
    "Error_Message": "",
}


@pytest.mark.isolated
@pytest.mark.parametrize("function", sorted(NULL_ARGS))
def test_null_args_struct(risky_call: Any, function: str) -> None:
    setup = NULL_ARGS[function]
    risky_call(f"null-args-{function}", f"{setup}\ncall_raw({function!r}, None)\n", function=f"PJRT_{function}",
               contract=CONTRACT_NULL_ARGS, covered=False)


NULL_HANDLES = {
    "Client_PlatformName-client": ("Client_PlatformName", "call('Client_PlatformName', S.PJRT_Client_PlatformName_Args(client=None))"),
    "Client_Compile-client": ("Client_Compile", """
args = compile_args(program_of())
args.client = None
call('Client_Compile', args)"""),
    "Client_Compile-program": ("Client_Compile", """
args = compile_args(program_of())
args.program = None
call('Client_Compile', args)"""),
    "Client_BufferFromHostBuffer-data": ("Client_BufferFromHostBuffer", """
dims = (ctypes.c_int64 * 1)(4)
call('Client_BufferFromHostBuffer', S.PJRT_Client_BufferFromHostBuffer_Args(
    client=client.handle, data=None, type=11, dims=ctypes.addressof(dims), num_dims=1,
    host_buffer_semantics=0, device=device.handle))"""),
    "Client_BufferFromHostBuffer-device-and-memory": ("Client_BufferFromHostBuffer", """
data = np.zeros(4, np.float32)
dims = (ctypes.c_int64 * 1)(4)
call('Client_BufferFromHostBuffer', S.PJRT_Client_BufferFromHostBuffer_Args(
    client=client.handle, data=data.ctypes.data, type=11, dims=ctypes.addressof(dims), num_dims=1,
    host_buffer_semantics=0, device=None, memory=None))"""),
    "Buffer_ElementType-buffer": ("Buffer_ElementType", "call('Buffer_ElementType', S.PJRT_Buffer_ElementType_Args(buffer=None))"),
    "Device_GetDescription-device": ("Device_GetDescription", "call('Device_GetDescription', S.PJRT_Device_GetDescription_Args(device=None))"),
    "Executable_NumOutputs-executable": ("Executable_NumOutputs", "call('Executable_NumOutputs', S.PJRT_Executable_NumOutputs_Args(executable=None))"),
    "Event_Await-event": ("Event_Await", "call('Event_Await', S.PJRT_Event_Await_Args(event=None))"),
    "LoadedExecutable_Execute-options": ("LoadedExecutable_Execute", """
executable = client.compile(ADD)
a = client.buffer_from_numpy(np.ones(4, np.float32))
args_row = (ctypes.c_void_p * 2)(a.handle, a.handle)
arg_lists = (ctypes.c_void_p * 1)(ctypes.addressof(args_row))
outs = (ctypes.c_void_p * 1)()
out_lists = (ctypes.c_void_p * 1)(ctypes.addressof(outs))
call('LoadedExecutable_Execute', S.PJRT_LoadedExecutable_Execute_Args(
    executable=executable.handle, options=None, argument_lists=ctypes.addressof(arg_lists), num_devices=1,
    num_args=2, output_lists=ctypes.addressof(out_lists)))"""),
}


@pytest.mark.isolated
@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(function))
                                  for name, (function, _) in sorted(NULL_HANDLES.items())])
def test_null_required_handle(risky_call: Any, case: str) -> None:
    function, body = NULL_HANDLES[case]
    risky_call(f"null-handle-{case}", body, function=f"PJRT_{function}", contract=CONTRACT_NULL_HANDLE, covered=False)
