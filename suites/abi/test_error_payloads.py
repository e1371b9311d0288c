"""PJRT_Error_ForEachPayload (0.99+): the payloads of an error, read the way frameworks read them.

The C API client of JAX and PyTorch/XLA calls it on every error it converts to a status and aborts the process
when it fails. The runtime does the same on every error the suite provokes, and a test whose errors had
unreadable payloads FAILs (pjrt_cts.testing.error_payloads); these are the function's own clauses, on errors
from several sources (a lookup, a compile, a created event, an error buffer carrying a payload), called directly
on the raw PJRT_Error: the visitor gets valid pointers and the user argument passed, 0..n times, the same
payloads on every call; a NULL visitor is an error, not a crash. A client provokes the errors.
"""
from __future__ import annotations

import ctypes
from typing import Any, Callable

import pytest

from pjrt_cts.abi import structs
from pjrt_cts.abi.enums import BufferType, ErrorCode
from pjrt_cts.judgment.outcomes import HardeningFinding
from pjrt_cts.runtime import Buffer, make_program
from pjrt_cts.runtime.compile_options import compile_options_bytes
from pjrt_cts.runtime.named_values import NamedValueArray
from pjrt_cts.runtime.payloads import USER_ARGS, for_each_payload, readings_problem
from pjrt_cts.testing import first_line, not_applicable, requires

pytestmark = requires("Error_ForEachPayload")
PAYLOAD_KEY = "type.googleapis.com/pjrt_cts.TestPayload"
PAYLOAD_VALUE = "payload bytes \x01\x02 of pjrt-cts"
ERROR_BUFFER_PAYLOAD_MINOR = 103  # `payload` / `num_payload` of PJRT_Client_CreateErrorBuffer_Args


def _raw_call(plugin: Any, name: str, args: ctypes.Structure) -> int:
    """Call slot `name`; its PJRT_Error* (the caller destroys it) or 0."""
    return int(plugin.function(name)(ctypes.addressof(args)) or 0)


def _lookup_error(plugin: Any, client: Any) -> int:
    ids = {device.id for device in client.devices}
    bad = max(ids) + 1000
    return _raw_call(plugin, "Client_LookupDevice", structs.PJRT_Client_LookupDevice_Args(client=client.handle, id=bad))


def _compile_error(plugin: Any, client: Any) -> int:
    program, keepalive = make_program("module {", "mlir")
    options = compile_options_bytes()
    buffer = ctypes.create_string_buffer(options, len(options))
    args = structs.PJRT_Client_Compile_Args(client=client.handle, program=ctypes.addressof(program),
                                            compile_options=ctypes.addressof(buffer), compile_options_size=len(options))
    error = _raw_call(plugin, "Client_Compile", args)
    if not error:  # compiled "module {"
        plugin.call("LoadedExecutable_Destroy", structs.PJRT_LoadedExecutable_Destroy_Args(executable=args.executable))
    del keepalive
    return error


def _event_error(plugin: Any, client: Any) -> int:
    from pjrt_cts.runtime import Event

    with Event.create(plugin) as event:
        event.set(ErrorCode.DATA_LOSS, "an error set on a created event by pjrt-cts")
        return _raw_call(plugin, "Event_Await", structs.PJRT_Event_Await_Args(event=event.handle))


def _error_buffer_error(plugin: Any, client: Any, payload: dict[str, str] | None = None) -> int:
    """The error of an error buffer's ready event (with `payload` in the buffer's error where the minor has it)."""
    message = b"an error buffer of pjrt-cts"
    text = ctypes.create_string_buffer(message, len(message))
    dims = (ctypes.c_int64 * 1)(4)
    values = NamedValueArray(payload or {})
    args = structs.PJRT_Client_CreateErrorBuffer_Args(
        client=client.handle, error_code=int(ErrorCode.FAILED_PRECONDITION), error_message=ctypes.addressof(text),
        error_message_size=len(message), shape_dims=ctypes.addressof(dims), shape_num_dims=1,
        shape_element_type=int(BufferType.F32), memory=client.addressable_devices[0].default_memory.handle,
        payload=values.pointer, num_payload=values.count)
    plugin.call("Client_CreateErrorBuffer", args)
    with Buffer(client, args.buffer) as buffer:
        ready = structs.PJRT_Buffer_ReadyEvent_Args(buffer=buffer.handle)
        plugin.call("Buffer_ReadyEvent", ready)
        error = _raw_call(plugin, "Event_Await", structs.PJRT_Event_Await_Args(event=ready.event))
        plugin.call("Event_Destroy", structs.PJRT_Event_Destroy_Args(event=ready.event))
    return error


# name -> (slots it needs, the function that returns a raw error)
ERROR_SOURCES: dict[str, tuple[tuple[str, ...], Callable[[Any, Any], int]]] = {
    "lookup_device_bad_id": ((), _lookup_error),
    "compile_invalid_mlir": ((), _compile_error),
    "created_event_set_error": (("Event_Create", "Event_Set"), _event_error),
    "error_buffer": (("Client_CreateErrorBuffer",), _error_buffer_error),
}
SOURCE_PARAMS = [pytest.param(name, id=name, marks=requires(*slots)) for name, (slots, _) in ERROR_SOURCES.items()]


def _provoke(plugin: Any, client: Any, source: str) -> int:
    error = ERROR_SOURCES[source][1](plugin, client)
    assert error, f"{source}: the call that must fail (the error source of this test) succeeded"
    return error


@pytest.mark.parametrize("source", SOURCE_PARAMS)
def test_visits_are_valid_and_repeatable(plugin: Any, client: Any, source: str) -> None:
    error = _provoke(plugin, client, source)
    try:
        user_args = (*USER_ARGS, 0x5EED_0003)
        readings = [for_each_payload(plugin, error, user_arg) for user_arg in user_args]
    finally:
        plugin.destroy_error(error)
    problem = readings_problem(readings, user_args)
    assert problem is None, f"PJRT_Error_ForEachPayload on the error of {source}: {problem}"


@requires("Client_CreateErrorBuffer")
def test_error_buffer_payload_is_visited(plugin: Any, client: Any) -> None:
    """A payload given to PJRT_Client_CreateErrorBuffer is in the buffer's error, and the visitor sees it."""
    if plugin.api_version[1] < ERROR_BUFFER_PAYLOAD_MINOR:
        not_applicable(f"PJRT_Client_CreateErrorBuffer_Args has a payload from 0.{ERROR_BUFFER_PAYLOAD_MINOR}; "
                       f"the plugin is {plugin.version_string}")
    error = _error_buffer_error(plugin, client, {PAYLOAD_KEY: PAYLOAD_VALUE})
    assert error, "the ready event of a PJRT_Client_CreateErrorBuffer buffer carries no error"
    try:
        reading = for_each_payload(plugin, error, USER_ARGS[0])
    finally:
        plugin.destroy_error(error)
    problem = readings_problem([reading], USER_ARGS[:1])
    assert problem is None, f"PJRT_Error_ForEachPayload on the error of error_buffer: {problem}"
    payloads = reading.payloads
    assert payloads.get(PAYLOAD_KEY.encode()) == PAYLOAD_VALUE.encode(), (
        f"PJRT_Error_ForEachPayload on the error of a buffer created with payload {{{PAYLOAD_KEY!r}: {PAYLOAD_VALUE!r}}} "
        f"visited {payloads}")


@pytest.mark.isolated  # a plugin that calls a NULL visitor crashes
def test_null_visitor_is_an_error(plugin: Any, client: Any) -> None:
    error = _provoke(plugin, client, "lookup_device_bad_id")
    try:
        rejected = for_each_payload(plugin, error, USER_ARGS[0], visitor=None)
        control = for_each_payload(plugin, error, USER_ARGS[0])
    finally:
        plugin.destroy_error(error)
    problem = readings_problem([control], USER_ARGS[:1])
    assert problem is None, (
        f"PJRT_Error_ForEachPayload on the error of lookup_device_bad_id: {problem} (the control of the NULL-visitor "
        f"call, with a visitor)")
    assert rejected.error is not None, "PJRT_Error_ForEachPayload with a NULL visitor should return an error, but succeeded"
    code, message = rejected.error
    assert message.strip(), f"PJRT_Error_ForEachPayload rejects a NULL visitor with {code} and an empty message"
    if code != "INVALID_ARGUMENT":
        raise HardeningFinding(f"PJRT_Error_ForEachPayload rejects a NULL visitor with {code} instead of "
                               f"INVALID_ARGUMENT: {first_line(message)}")
