"""pjrt_cts.testing.checks: rejections carry a control; optional inputs; refuse or succeed."""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.judgment.outcomes import HardeningFinding, FeatureNotSupported
from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing.checks import expect_rejection, optional_input, refuse_or_succeed

FUNCTION = "PJRT_Client_Compile"


def _fails(code: str, message: str = "bad program") -> Any:
    def call() -> None:
        raise PjrtError(FUNCTION, code, message)

    return call


def _succeeds() -> Any:
    return "executable"


class Closable:
    closed = False

    def close(self) -> None:
        self.closed = True


def test_rejection_with_a_working_control_passes_and_returns_the_error() -> None:
    error = expect_rejection(_fails("INVALID_ARGUMENT"), control=_succeeds, function=FUNCTION, what="invalid MLIR")
    assert error.code == "INVALID_ARGUMENT"


def test_a_failing_control_fails_the_rejection_test() -> None:
    """A plugin that rejects every call with INVALID_ARGUMENT must not pass a rejection test."""
    with pytest.raises(AssertionError, match="control, the same call with valid arguments, failed too"):
        expect_rejection(_fails("INVALID_ARGUMENT"), control=_fails("INVALID_ARGUMENT", "rejects everything"),
                         function=FUNCTION, what="invalid MLIR")


def test_a_failing_control_fails_even_with_a_tolerated_code() -> None:
    with pytest.raises(AssertionError, match="control"):
        expect_rejection(_fails("UNKNOWN"), control=_fails("UNKNOWN"), function=FUNCTION, tolerated=("UNKNOWN",))


def test_success_of_the_bad_call_fails() -> None:
    with pytest.raises(AssertionError, match="should reject invalid MLIR with INVALID_ARGUMENT, but succeeded"):
        expect_rejection(_succeeds, control=_succeeds, function=FUNCTION, what="invalid MLIR")


def test_another_code_fails_naming_function_code_and_message() -> None:
    with pytest.raises(AssertionError, match=r"PJRT_Client_Compile should reject .* but failed with INTERNAL: boom"):
        expect_rejection(_fails("INTERNAL", "boom"), control=_succeeds, function=FUNCTION)


def test_an_empty_message_fails() -> None:
    with pytest.raises(AssertionError, match="empty message"):
        expect_rejection(_fails("INVALID_ARGUMENT", " "), control=_succeeds, function=FUNCTION)


def test_a_tolerated_code_is_a_warning_after_the_control() -> None:
    with pytest.raises(HardeningFinding, match="with UNKNOWN instead of INVALID_ARGUMENT"):
        expect_rejection(_fails("UNKNOWN"), control=_succeeds, function=FUNCTION, tolerated=("UNKNOWN",))


def test_results_of_both_calls_are_closed() -> None:
    made = [Closable(), Closable()]
    with pytest.raises(AssertionError):
        expect_rejection(lambda: made[0], control=_succeeds, function=FUNCTION)
    expect_rejection(_fails("INVALID_ARGUMENT"), control=lambda: [made[1]], function=FUNCTION)
    assert made[0].closed and made[1].closed


def test_optional_input_maps_codes() -> None:
    with pytest.raises(FeatureNotSupported, match="PJRT_Client_Compile: UNIMPLEMENTED"):
        with optional_input(FUNCTION, "format 'hlo'"):
            _fails("UNIMPLEMENTED")()
    with pytest.raises(HardeningFinding, match="format 'hlo' with INVALID_ARGUMENT instead of UNIMPLEMENTED"):
        with optional_input(FUNCTION, "format 'hlo'"):
            _fails("INVALID_ARGUMENT")()
    with pytest.raises(PjrtError):
        with optional_input(FUNCTION, "format 'hlo'"):
            _fails("INTERNAL")()


def test_refuse_or_succeed_accepts_a_refusal_with_a_listed_code_and_checks_it() -> None:
    refused = []
    result = refuse_or_succeed(_fails("FAILED_PRECONDITION"), check=_never, function=FUNCTION,
                               codes=("INVALID_ARGUMENT", "FAILED_PRECONDITION"), on_refusal=refused.append)
    assert result is None
    assert [error.code for error in refused] == ["FAILED_PRECONDITION"]


def test_refuse_or_succeed_fails_a_refusal_the_clause_asks_more_of() -> None:
    def control(error: PjrtError) -> None:
        raise AssertionError(f"the control failed too after {error.code}")

    with pytest.raises(AssertionError, match="the control failed too after INVALID_ARGUMENT"):
        refuse_or_succeed(_fails("INVALID_ARGUMENT"), check=_never, function=FUNCTION, on_refusal=control)


def test_refuse_or_succeed_fails_another_code_naming_function_code_and_message() -> None:
    with pytest.raises(AssertionError, match=r"PJRT_Client_Compile of a big program may fail only with "
                                             r"INVALID_ARGUMENT, but failed with INTERNAL: boom"):
        refuse_or_succeed(_fails("INTERNAL", "boom"), check=_never, function=FUNCTION, what="of a big program")


def test_refuse_or_succeed_with_no_code_allowed_demands_success() -> None:
    with pytest.raises(AssertionError, match=r"PJRT_Client_Compile should succeed, but failed with INVALID_ARGUMENT"):
        refuse_or_succeed(_fails("INVALID_ARGUMENT"), check=_never, function=FUNCTION, codes=())


def test_refuse_or_succeed_with_any_code_allowed_takes_every_refusal() -> None:
    assert refuse_or_succeed(_fails("DATA_LOSS"), check=_never, function=FUNCTION, codes=None) is None


def test_refuse_or_succeed_checks_a_success_and_returns_its_result() -> None:
    checked = []
    assert refuse_or_succeed(_succeeds, check=checked.append, function=FUNCTION) == "executable"
    assert checked == ["executable"]


def test_refuse_or_succeed_fails_a_wrong_success() -> None:
    def check(result: Any) -> None:
        assert result == "the right executable", f"{FUNCTION} gave {result}"

    with pytest.raises(AssertionError, match="PJRT_Client_Compile gave executable"):
        refuse_or_succeed(_succeeds, check=check, function=FUNCTION)


def test_refuse_or_succeed_lets_other_exceptions_through() -> None:
    def unsupported() -> None:
        raise FeatureNotSupported("PJRT_Client_Compile: UNIMPLEMENTED")

    with pytest.raises(FeatureNotSupported):
        refuse_or_succeed(unsupported, check=_never, function=FUNCTION)


def _never(result: Any) -> None:
    raise AssertionError(f"a refused call has no result to check, got {result!r}")
