"""Handle lifetime misuse: double destroy, use after destroy, use after delete.

Destroy frees the object: using or destroying it again is undefined behaviour the C API does not
promise to catch (a crash is a WARNING). Delete keeps the object: afterwards the header says only
IsDeleted/Destroy are valid, and other uses must fail cleanly (covered: a crash is a FAIL).
"""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.testing import requires

UB_CONTRACT = "use of a destroyed handle is undefined (not checked by contract)"
DELETED_CONTRACT = "a deleted (not destroyed) object must answer with an error"

DESTROYED_CASES = {
    "buffer_double_destroy": ("Buffer_Destroy", """
buffer = client.buffer_from_numpy(np.ones(4, np.float32))
handle = buffer.detach()
plugin.call('Buffer_Destroy', S.PJRT_Buffer_Destroy_Args(buffer=handle))
call('Buffer_Destroy', S.PJRT_Buffer_Destroy_Args(buffer=handle))"""),
    "executable_double_destroy": ("LoadedExecutable_Destroy", """
executable = client.compile(ADD)
handle = executable.detach()
plugin.call('LoadedExecutable_Destroy', S.PJRT_LoadedExecutable_Destroy_Args(executable=handle))
call('LoadedExecutable_Destroy', S.PJRT_LoadedExecutable_Destroy_Args(executable=handle))"""),
    "event_double_destroy": ("Event_Destroy", """
buffer = client.buffer_from_numpy(np.ones(4, np.float32))
event = buffer.ready_event()
handle = event.detach()
plugin.call('Event_Destroy', S.PJRT_Event_Destroy_Args(event=handle))
call('Event_Destroy', S.PJRT_Event_Destroy_Args(event=handle))"""),
    "buffer_use_after_destroy": ("Buffer_Dimensions", """
buffer = client.buffer_from_numpy(np.ones(4, np.float32))
handle = buffer.detach()
plugin.call('Buffer_Destroy', S.PJRT_Buffer_Destroy_Args(buffer=handle))
call('Buffer_Dimensions', S.PJRT_Buffer_Dimensions_Args(buffer=handle))"""),
    "execute_with_destroyed_argument": ("LoadedExecutable_Execute", """
executable = client.compile(ADD)
a = client.buffer_from_numpy(np.ones(4, np.float32))
b = client.buffer_from_numpy(np.ones(4, np.float32)).detach()
plugin.call('Buffer_Destroy', S.PJRT_Buffer_Destroy_Args(buffer=b))
row = (ctypes.c_void_p * 2)(a.handle, b)
arg_lists = (ctypes.c_void_p * 1)(ctypes.addressof(row))
outs = (ctypes.c_void_p * 1)()
out_lists = (ctypes.c_void_p * 1)(ctypes.addressof(outs))
options = S.PJRT_ExecuteOptions()
call('LoadedExecutable_Execute', S.PJRT_LoadedExecutable_Execute_Args(
    executable=executable.handle, options=ctypes.addressof(options), argument_lists=ctypes.addressof(arg_lists),
    num_devices=1, num_args=2, output_lists=ctypes.addressof(out_lists)))"""),
}


@pytest.mark.isolated
@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(function))
                                  for name, (function, _) in sorted(DESTROYED_CASES.items())])
def test_destroyed_handle_misuse(risky_call: Any, case: str) -> None:
    function, body = DESTROYED_CASES[case]
    risky_call(f"lifetime-{case}", body, function=f"PJRT_{function}", contract=UB_CONTRACT, covered=False)


DELETED_CASES = {
    "to_host_after_buffer_delete": ("Buffer_ToHostBuffer", """
buffer = client.buffer_from_numpy(np.ones(4, np.float32))
buffer.delete()
attempt(lambda: buffer.to_numpy())"""),
    "execute_with_deleted_argument": ("LoadedExecutable_Execute", """
executable = client.compile(ADD)
a = client.buffer_from_numpy(np.ones(4, np.float32))
b = client.buffer_from_numpy(np.ones(4, np.float32))
b.delete()
attempt(lambda: [x.to_numpy() for x in executable.execute([a, b])])"""),
    "copy_to_device_after_buffer_delete": ("Buffer_CopyToDevice", """
buffer = client.buffer_from_numpy(np.ones(4, np.float32))
buffer.delete()
attempt(lambda: buffer.copy_to_device(client.addressable_devices[-1]).to_numpy())"""),
}


@pytest.mark.isolated
@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(function))
                                  for name, (function, _) in sorted(DELETED_CASES.items())])
def test_deleted_object_answers_with_an_error(risky_call: Any, case: str) -> None:
    function, body = DELETED_CASES[case]
    # Execute after LoadedExecutable_Delete is judged once, in execute.deleted_executable (a FAIL if it runs).
    risky_call(f"lifetime-{case}", body, function=f"PJRT_{function}", contract=DELETED_CONTRACT, covered=True)
