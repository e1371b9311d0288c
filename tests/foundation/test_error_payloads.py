"""Error payloads (PJRT_Error_ForEachPayload) as the runtime reads them, and what makes a reading wrong."""
from __future__ import annotations

import pytest

from pjrt_cts.runtime import PjrtError, Plugin
from pjrt_cts.runtime import payloads
from pjrt_cts.runtime.payloads import USER_ARGS, PayloadReading, PayloadVisit, readings_problem
from pjrt_cts.testing.error_payloads import payloads_readable

KEY, VALUE = b"type.googleapis.com/t", b"v"


def _reading(*visits: PayloadVisit, error: tuple[str, str] | None = None) -> PayloadReading:
    return PayloadReading(tuple(visits), error)


def _two(*visits: PayloadVisit) -> list[PayloadReading]:
    """The same visits in both readings, each with its own user_arg."""
    return [_reading(*(PayloadVisit(v.key, v.value, user_arg, v.problem) for v in visits)) for user_arg in USER_ARGS]


def test_runtime_errors_carry_no_payload_problem(plugin_0115: Plugin) -> None:
    with plugin_0115.create_client({"cpu_device_count": 1}) as client, pytest.raises(PjrtError) as raised:
        client.lookup_device(-1)
    assert (raised.value.payloads, raised.value.payload_problem) == ({}, None)


def test_a_plugin_without_the_slot_reads_no_payloads(plugin_081: Plugin) -> None:
    before = payloads.problem_count()
    with plugin_081.create_client({"cpu_device_count": 1}) as client, pytest.raises(PjrtError) as raised:
        client.lookup_device(-1)
    assert (raised.value.payloads, raised.value.payload_problem, payloads.problem_count()) == ({}, None, before)


@pytest.mark.parametrize("readings, wanted", [
    (_two(), None),
    (_two(PayloadVisit(KEY, VALUE, 0)), None),
    ([_reading(error=("INTERNAL", "no")), _reading()], "returned INTERNAL: no"),
    (_two(PayloadVisit(b"", b"", 0, "a NULL pointer with a size")), "its visitor was called with a NULL pointer"),
    ([_reading(PayloadVisit(KEY, VALUE, 7)), _reading()], "user_arg 0x7, not the 0x5eed0001 passed"),
    (_two(PayloadVisit(KEY, VALUE, 0), PayloadVisit(KEY, VALUE, 0)), "the same key twice"),
    ([_reading(PayloadVisit(KEY, VALUE, USER_ARGS[0])), _reading()], "visited different payloads"),
], ids=["none", "one", "error", "null", "user_arg", "duplicate", "differ"])
def test_readings_problem(readings: list[PayloadReading], wanted: str | None) -> None:
    problem = readings_problem(readings, USER_ARGS)
    assert problem == wanted if wanted is None else (problem is not None and wanted in problem)


def test_payloads_readable_fails_a_test_that_met_a_problem() -> None:
    with pytest.raises(AssertionError, match="PJRT_Error_ForEachPayload on the error of PJRT_X: returned INTERNAL"):
        with payloads_readable():
            payloads._record("PJRT_Error_ForEachPayload on the error of PJRT_X: returned INTERNAL: no")
    with payloads_readable():  # nothing new: the block's own outcome stands
        pass
    with pytest.raises(KeyError), payloads_readable():
        raise KeyError("the test's own failure")
