"""Handle lifetime misuse: double destroy, use after destroy, use after delete.

Destroy frees the object: using or destroying it again is undefined behaviour the C API does not
promise to catch (a crash is a WARNING). Delete keeps the object: afterwards the header says only
IsDeleted/Destroy are valid, and other uses must fail cleanly (covered: a crash is a FAIL).
"""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.testing import requires
from pjrt_cts.testing.robustness_cases import RiskyCase

UB_CONTRACT = "use of a destroyed handle is undefined (not checked by contract)"
DELETED_CONTRACT = "a deleted (not destroyed) object must answer with an error"

# case id -> the risky call: PJRT function judged, case in pjrt_cts.testing.robustness_cases (named as the case id)
DESTROYED_CASES: dict[str, RiskyCase] = {
    "buffer_double_destroy": RiskyCase("Buffer_Destroy", "buffer_double_destroy"),
    "executable_double_destroy": RiskyCase("LoadedExecutable_Destroy", "executable_double_destroy"),
    "event_double_destroy": RiskyCase("Event_Destroy", "event_double_destroy"),
    "buffer_use_after_destroy": RiskyCase("Buffer_Dimensions", "buffer_use_after_destroy"),
    "execute_with_destroyed_argument": RiskyCase("LoadedExecutable_Execute", "execute_with_destroyed_argument"),
}


@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(row.function))
                                  for name, row in sorted(DESTROYED_CASES.items())])
def test_destroyed_handle_misuse(risky_call: Any, case: str) -> None:
    row = DESTROYED_CASES[case]
    risky_call(f"lifetime-{case}", row.case, row.kwargs, function=f"PJRT_{row.function}", contract=UB_CONTRACT,
               covered=False)


# case id -> the risky call (as above)
DELETED_CASES: dict[str, RiskyCase] = {
    "to_host_after_buffer_delete": RiskyCase("Buffer_ToHostBuffer", "to_host_after_buffer_delete"),
    "execute_with_deleted_argument": RiskyCase("LoadedExecutable_Execute", "execute_with_deleted_argument"),
    "copy_to_device_after_buffer_delete": RiskyCase("Buffer_CopyToDevice", "copy_to_device_after_buffer_delete"),
}


@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(row.function))
                                  for name, row in sorted(DELETED_CASES.items())])
def test_deleted_object_answers_with_an_error(risky_call: Any, case: str) -> None:
    row = DELETED_CASES[case]
    # Execute after LoadedExecutable_Delete is judged once, in execute.deleted_executable (a FAIL if it runs).
    risky_call(f"lifetime-{case}", row.case, row.kwargs, function=f"PJRT_{row.function}", contract=DELETED_CONTRACT,
               covered=True)
