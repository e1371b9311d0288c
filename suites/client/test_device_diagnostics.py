"""Device diagnostics: PJRT_Device_CreateAsyncTrackingEvent / PJRT_AsyncTrackingEvent_Destroy (0.86+) and
PJRT_Device_ClearMemoryStats (0.106+).

Profilers and memory diagnostics call them; a plugin may implement them or answer UNIMPLEMENTED (NOT_SUPPORTED),
but the same answer for every device: a device that answers one way while another answers the other is a FAIL.
A tracking event may come back NULL (the device tracks nothing, as the XLA CPU plugin answers); a non-NULL one is
destroyed with AsyncTrackingEvent_Destroy. NULL handles are the robustness layer's (test_null_inputs).
"""
from __future__ import annotations

from typing import Any, Callable

from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing import first_line, not_applicable, requires, unsupported_if_unimplemented

TRACKING = ("Device_CreateAsyncTrackingEvent", "AsyncTrackingEvent_Destroy")
PAIRS = 200  # create/destroy pairs: a leak or a stale table shows as an error long before a process runs out


def _answers(devices: list[Any], call: Callable[[Any], Any]) -> dict[int, PjrtError | Any]:
    """Per device id: what `call(device)` returned, or the PjrtError it raised."""
    answers: dict[int, PjrtError | Any] = {}
    for device in devices:
        try:
            answers[device.id] = call(device)
        except PjrtError as error:
            answers[device.id] = error
    return answers


def _consistent(function: str, answers: dict[int, Any]) -> dict[int, Any]:
    """Every device answered the same way: all UNIMPLEMENTED (NOT_SUPPORTED), or all succeeded (returned). Any
    other error, or a mix, fails."""
    __tracebackhide__ = True
    errors = {device: a for device, a in answers.items() if isinstance(a, PjrtError)}
    unimplemented = {device for device, a in errors.items() if a.code == "UNIMPLEMENTED"}
    other = {device: f"{a.code}: {first_line(a.message)}" for device, a in errors.items() if device not in unimplemented}
    assert not other, f"PJRT_{function} should succeed or answer UNIMPLEMENTED, but failed on devices {other}"
    if unimplemented and len(unimplemented) < len(answers):
        worked = sorted(set(answers) - unimplemented)
        raise AssertionError(f"PJRT_{function} answers UNIMPLEMENTED on devices {sorted(unimplemented)} but works on "
                             f"devices {worked}: a plugin implements it or it does not")
    if unimplemented:
        with unsupported_if_unimplemented("PJRT_" + function):
            raise next(iter(errors.values()))
    return answers


def _close(event: Any) -> None:
    if event is not None:
        event.close()  # PJRT_AsyncTrackingEvent_Destroy: an error raises here


@requires(*TRACKING)
def test_async_tracking_events_are_created_and_destroyed(devices: list[Any]) -> None:
    events = _consistent("Device_CreateAsyncTrackingEvent",
                         _answers(devices, lambda d: d.create_async_tracking_event(f"pjrt-cts device {d.id}")))
    for event in events.values():
        _close(event)


@requires(*TRACKING)
def test_async_tracking_event_without_description(devices: list[Any]) -> None:
    """An empty description is a description (the header gives no minimum)."""
    events = _consistent("Device_CreateAsyncTrackingEvent", _answers(devices, lambda d: d.create_async_tracking_event("")))
    for event in events.values():
        _close(event)


@requires(*TRACKING)
def test_many_async_tracking_events_in_turn(device: Any) -> None:
    with unsupported_if_unimplemented("PJRT_Device_CreateAsyncTrackingEvent"):
        _close(device.create_async_tracking_event("pjrt-cts"))
    for index in range(PAIRS):
        try:
            _close(device.create_async_tracking_event(f"pjrt-cts pair {index}"))
        except PjrtError as error:
            raise AssertionError(f"pair {index} of {PAIRS} async tracking event create/destroy pairs on device "
                                 f"{device.id} failed: {error}") from None


@requires(*TRACKING)
def test_async_tracking_events_overlap(device: Any) -> None:
    """Several events live at once (a profiler tracks nested regions) and are destroyed in any order."""
    with unsupported_if_unimplemented("PJRT_Device_CreateAsyncTrackingEvent"):
        events = [device.create_async_tracking_event(f"pjrt-cts region {i}") for i in range(8)]
    for event in events[::2] + events[1::2]:
        _close(event)


@requires("Device_ClearMemoryStats")
def test_clear_memory_stats(devices: list[Any]) -> None:
    _consistent("Device_ClearMemoryStats", _answers(devices, lambda d: d.clear_memory_stats()))


@requires("Device_ClearMemoryStats", "Device_MemoryStats")
def test_clear_memory_stats_does_not_raise_the_peak(client: Any, device: Any) -> None:
    """After ClearMemoryStats, a reported peak is no higher than before (clearing resets it toward current use)."""
    import numpy as np

    with unsupported_if_unimplemented("PJRT_Device_MemoryStats"):
        device.memory_stats()
    with client.buffer_from_numpy(np.ones(1 << 16, np.float32), device):
        before = device.memory_stats()
    with unsupported_if_unimplemented("PJRT_Device_ClearMemoryStats"):
        device.clear_memory_stats()
    after = device.memory_stats()
    if "peak_bytes_in_use" not in before or "peak_bytes_in_use" not in after:
        not_applicable(f"PJRT_Device_MemoryStats of device {device.id} reports no peak_bytes_in_use ({sorted(after)})")
    assert after["peak_bytes_in_use"] <= before["peak_bytes_in_use"], (
        f"PJRT_Device_MemoryStats of device {device.id}: peak_bytes_in_use {after['peak_bytes_in_use']} after "
        f"PJRT_Device_ClearMemoryStats, {before['peak_bytes_in_use']} before")
