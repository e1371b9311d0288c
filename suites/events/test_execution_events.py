"""Events produced by executions and transfers: device_complete_events, output ready events, and the
errors they carry when the work fails (an argument from PJRT_Client_CreateErrorBuffer, 0.82+)."""
from __future__ import annotations

from typing import Any

import numpy as np

from pjrt_cts.runtime import BufferType, ErrorCode, PjrtError
from pjrt_cts.testing import assert_same, refuse_or_succeed, requires, unsupported_if_unimplemented


ADD = """
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.multiply %a, %b : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}"""
INJECTED = "pjrt-cts poisoned argument"


def test_device_complete_events_one_per_device_become_ready(client, devices, recorders) -> None:
    n = len(devices)
    exe = client.compile(ADD, num_replicas=n, device_assignment=[[d.id] for d in devices])
    rows = [[client.buffer_from_numpy(np.full(4, r, np.float32), d), client.buffer_from_numpy(np.ones(4, np.float32), d)]
            for r, d in enumerate(exe.addressable_devices)]
    outputs, events = exe.execute_sharded(rows, want_device_events=True)
    assert len(events) == n, f"PJRT_LoadedExecutable_Execute filled {len(events)} device_complete_events for {n} devices"
    callbacks = [recorders() for _ in events]
    for event, recorder in zip(events, callbacks):
        event.on_ready(recorder)
    for index, (event, recorder) in enumerate(zip(events, callbacks)):
        try:
            event.wait()
        except PjrtError as error:
            raise AssertionError(f"device_complete_event {index}: PJRT_Event_Await returned {error.code}: {error.message}") from None
        assert event.is_ready(), f"device_complete_event {index}: IsReady false after Await"
        assert recorder.wait_for(1) == 1 and recorder.calls[0] == ("OK", ""), (
            f"device_complete_event {index}: OnReady callback calls {recorder.calls}, expected one OK call"
        )
        event.close()
    for r, row in enumerate(outputs):
        assert_same(row[0].to_numpy(), np.full(4, r + 1, np.float32), f"replica {r}: wrong result")


@requires("Client_CreateErrorBuffer")
def test_failed_execution_events_carry_the_error(client, device, recorder) -> None:
    with unsupported_if_unimplemented("PJRT_Client_CreateErrorBuffer"):
        poisoned = client.create_error_buffer(ErrorCode.DATA_LOSS, INJECTED, [4], BufferType.F32, device.default_memory)
    healthy = client.buffer_from_numpy(np.ones(4, np.float32), device)
    exe = client.compile(ADD, device_assignment=[[device.id]])

    def carries_the_argument_error(error: PjrtError) -> None:  # failing at launch is also a faithful report
        assert INJECTED in error.message, (
            f"PJRT_LoadedExecutable_Execute with an error-buffer argument failed with {error.code}: {error.message!r}, "
            f"which does not carry the argument's error {INJECTED!r}"
        )

    def events_carry_the_argument_error(launched: tuple[list[list[Any]], list[Any]]) -> None:
        outputs, events = launched
        event = events[0]
        event.on_ready(recorder)
        observed: dict[str, PjrtError] = {}
        try:
            event.wait()
        except PjrtError as error:
            observed["PJRT_Event_Await(device_complete_event)"] = error
        reported = event.error()
        if reported is not None:
            observed["PJRT_Event_Error(device_complete_event)"] = reported
        assert recorder.wait_for(1) == 1, f"OnReady of a failed execution's event ran {recorder.count} times, expected once"
        for index, output in enumerate(outputs[0]):
            try:
                output.block_until_ready()
            except PjrtError as error:
                observed[f"PJRT_Buffer_ReadyEvent(output {index})"] = error
            else:
                raise AssertionError(f"output {index} of an execution with an error-buffer argument became ready without an error")
        for where in ("PJRT_Event_Await(device_complete_event)", "PJRT_Event_Error(device_complete_event)"):
            assert where in observed, f"{where} reported success for an execution whose argument is an error buffer"
        assert recorder.calls[0][0] != "OK", "OnReady callback of a failed execution's event got no error"
        for where, failure in observed.items():
            assert failure.code != "OK" and INJECTED in failure.message, (
                f"{where} returned {failure.code}: {failure.message!r}; it should carry the argument's error {INJECTED!r}"
            )
        assert INJECTED in recorder.calls[0][1], f"OnReady callback got {recorder.calls[0]}, without the argument's error"

    refuse_or_succeed(lambda: exe.execute_sharded([[poisoned, healthy]], want_device_events=True),
                      check=events_carry_the_argument_error, function="PJRT_LoadedExecutable_Execute", codes=None,
                      on_refusal=carries_the_argument_error, what="with an error-buffer argument")


def test_to_host_of_deleted_buffer_reports_error(client, device) -> None:
    buffer = client.buffer_from_numpy(np.arange(4, dtype=np.float32), device)
    destination = np.zeros(4, np.float32)
    control = buffer.to_host_into(destination.ctypes.data, destination.nbytes)  # the live buffer reads back
    control.wait()
    control.close()
    buffer.delete()

    def event_reports_the_error(event: Any) -> None:
        try:
            event.wait()
        except PjrtError:
            assert event.is_ready(), "PJRT_Event_IsReady false after Await returned an error"
            assert event.error() is not None, "PJRT_Event_Error is None although PJRT_Event_Await returned an error"
            return
        finally:
            event.close()
        raise AssertionError("PJRT_Buffer_ToHostBuffer of a deleted buffer: the call and its event both reported success")

    # The error comes from the call or through its event.
    refuse_or_succeed(lambda: buffer.to_host_into(destination.ctypes.data, destination.nbytes),
                      check=event_reports_the_error, function="PJRT_Buffer_ToHostBuffer",
                      codes=("INVALID_ARGUMENT", "FAILED_PRECONDITION", "NOT_FOUND"), what="of a deleted buffer")
