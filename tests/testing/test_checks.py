"""pjrt_cts.testing.checks: rejections carry a control; optional inputs; exact comparison."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.outcomes import HardeningFinding, FeatureNotSupported
from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing.checks import assert_same, expect_rejection, optional_input

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


def test_assert_same_is_bit_exact_and_names_the_mismatch() -> None:
    assert_same(np.array([1.0, np.nan], np.float32), np.array([1.0, np.nan], np.float32), "same")
    with pytest.raises(AssertionError, match="readback: "):
        assert_same(np.array([1.0, 2.0], np.float32), np.array([1.0, 2.5], np.float32), "readback")
