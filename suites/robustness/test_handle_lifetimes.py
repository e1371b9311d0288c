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

# case id -> PJRT function judged (the case id names the case in pjrt_cts.testing.robustness_cases)
DESTROYED_CASES = {
    "buffer_double_destroy": "Buffer_Destroy",
    "executable_double_destroy": "LoadedExecutable_Destroy",
    "event_double_destroy": "Event_Destroy",
    "buffer_use_after_destroy": "Buffer_Dimensions",
    "execute_with_destroyed_argument": "LoadedExecutable_Execute",
}


@pytest.mark.isolated
@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(function))
                                  for name, function in sorted(DESTROYED_CASES.items())])
def test_destroyed_handle_misuse(risky_call: Any, case: str) -> None:
    function = DESTROYED_CASES[case]
    risky_call(f"lifetime-{case}", case, function=f"PJRT_{function}", contract=UB_CONTRACT, covered=False)


# case id -> PJRT function judged (as above)
DELETED_CASES = {
    "to_host_after_buffer_delete": "Buffer_ToHostBuffer",
    "execute_with_deleted_argument": "LoadedExecutable_Execute",
    "copy_to_device_after_buffer_delete": "Buffer_CopyToDevice",
}


@pytest.mark.isolated
@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(function))
                                  for name, function in sorted(DELETED_CASES.items())])
def test_deleted_object_answers_with_an_error(risky_call: Any, case: str) -> None:
    function = DELETED_CASES[case]
    # Execute after LoadedExecutable_Delete is judged once, in execute.deleted_executable (a FAIL if it runs).
    risky_call(f"lifetime-{case}", case, function=f"PJRT_{function}", contract=DELETED_CONTRACT, covered=True)
