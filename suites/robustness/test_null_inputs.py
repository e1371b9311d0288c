"""NULL args structs and NULL required handles.

The C API does not promise to reject these (the header documents required pointers, not checks):
a clean error is the hardened answer (PASS); a crash or hang is a hardening finding (WARNING) with
the reproduction script saved under <out>/robustness/.
"""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.testing import requires
from pjrt_cts.testing.robustness_cases import RiskyCase

CONTRACT_NULL_ARGS = "args struct pointer must be non-NULL (not checked by contract)"
CONTRACT_NULL_HANDLE = "required handle must be non-NULL (not checked by contract)"

# PJRT function called with a NULL args struct (case null_args_struct of pjrt_cts.testing.robustness_cases; it
# first creates what the function works on: a buffer for Buffer_ToHostBuffer, an executable for Execute)
NULL_ARGS = ("Plugin_Attributes", "Client_PlatformName", "Client_Compile", "Client_BufferFromHostBuffer",
             "Buffer_ToHostBuffer", "LoadedExecutable_Execute", "Error_Message")


@pytest.mark.parametrize("function", sorted(NULL_ARGS))
def test_null_args_struct(risky_call: Any, function: str) -> None:
    risky_call(f"null-args-{function}", "null_args_struct", {"function": function}, function=f"PJRT_{function}",
               contract=CONTRACT_NULL_ARGS, covered=False)


# case id -> the risky call: PJRT function judged, case in pjrt_cts.testing.robustness_cases
NULL_HANDLES: dict[str, RiskyCase] = {
    "Client_PlatformName-client": RiskyCase("Client_PlatformName", "null_client_platform_name"),
    "Client_Compile-client": RiskyCase("Client_Compile", "null_compile_client"),
    "Client_Compile-program": RiskyCase("Client_Compile", "null_compile_program"),
    "Client_BufferFromHostBuffer-data": RiskyCase("Client_BufferFromHostBuffer", "null_buffer_from_host_data"),
    "Client_BufferFromHostBuffer-device-and-memory": RiskyCase("Client_BufferFromHostBuffer",
                                                               "null_buffer_from_host_device_and_memory"),
    "Buffer_ElementType-buffer": RiskyCase("Buffer_ElementType", "null_buffer_element_type"),
    "Device_GetDescription-device": RiskyCase("Device_GetDescription", "null_device_get_description"),
    "Device_CreateAsyncTrackingEvent-device": RiskyCase("Device_CreateAsyncTrackingEvent",
                                                        "null_device_create_async_tracking_event"),
    "AsyncTrackingEvent_Destroy-event": RiskyCase("AsyncTrackingEvent_Destroy", "null_async_tracking_event_destroy"),
    "Device_ClearMemoryStats-device": RiskyCase("Device_ClearMemoryStats", "null_device_clear_memory_stats"),
    "Executable_NumOutputs-executable": RiskyCase("Executable_NumOutputs", "null_executable_num_outputs"),
    "Event_Await-event": RiskyCase("Event_Await", "null_event_await"),
    "ExecuteContext_Destroy-context": RiskyCase("ExecuteContext_Destroy", "null_execute_context_destroy"),
    "LoadedExecutable_Execute-options": RiskyCase("LoadedExecutable_Execute", "null_execute_options"),
}


@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(row.function))
                                  for name, row in sorted(NULL_HANDLES.items())])
def test_null_required_handle(risky_call: Any, case: str) -> None:
    row = NULL_HANDLES[case]
    risky_call(f"null-handle-{case}", row.case, row.kwargs, function=f"PJRT_{row.function}",
               contract=CONTRACT_NULL_HANDLE, covered=False)


# Extension functions called with a NULL handle, or with nothing to free: the headers document no check either; a
# plugin whose extension hands out no object to pass (the CPU plugin lists no memory descriptions, returns no
# pipeline trace, makes no phase compiler) is still asked, so that every function it advertises is called once.
NULL_EXTENSION_INPUTS: dict[str, RiskyCase] = {
    "MEMORY_DESCRIPTIONS.MemoryDescription_Kind-description": RiskyCase("MEMORY_DESCRIPTIONS.MemoryDescription_Kind",
                                                                          "null_memory_description_kind"),
    "XLA_TRANSFORM.destroy_hlo_pass_pipeline_trace-trace": RiskyCase(
        "XLA_TRANSFORM.destroy_hlo_pass_pipeline_trace", "null_pipeline_trace_destroy"),
    "PHASE_COMPILE.c_buffers_destroy-none": RiskyCase("PHASE_COMPILE.c_buffers_destroy",
                                                      "no_phase_compile_buffers_destroy"),
}


@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(extension=row.function.split(".")[0]))
                                  for name, row in sorted(NULL_EXTENSION_INPUTS.items())])
def test_null_extension_input(risky_call: Any, case: str) -> None:
    row = NULL_EXTENSION_INPUTS[case]
    risky_call(f"null-extension-{case}", row.case, row.kwargs, function=row.function,
               contract=CONTRACT_NULL_HANDLE, covered=False)
