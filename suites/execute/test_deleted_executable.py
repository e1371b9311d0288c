"""PJRT_LoadedExecutable_Delete: afterwards IsDeleted is true and Execute fails; earlier results stay valid.

Execute after Delete is judged here only (the robustness layer has no duplicate): the header leaves a deleted
executable usable with IsDeleted/Destroy only, like a deleted buffer, so Execute must answer with an error (FAIL
if it runs). Executing a deleted executable may crash a plugin that frees the program, so that test is isolated.
"""
from __future__ import annotations

import pytest

from pjrt_cts.testing import ADD, assert_matches_program, run


@pytest.fixture()
def fresh_add(client):
    executable = client.compile(ADD.text)
    yield executable
    executable.close()


def test_is_deleted_is_false_before_delete(fresh_add):
    assert fresh_add.is_deleted is False, "PJRT_LoadedExecutable_IsDeleted is true for a live executable"


def test_is_deleted_is_true_after_delete(fresh_add):
    fresh_add.delete()
    assert fresh_add.is_deleted is True, "PJRT_LoadedExecutable_IsDeleted is false after PJRT_LoadedExecutable_Delete"


def test_delete_twice_is_harmless(fresh_add):
    fresh_add.delete()
    fresh_add.delete()


@pytest.mark.isolated
def test_execute_after_delete_fails(client, fresh_add):
    from pjrt_cts.runtime import PjrtError

    device = fresh_add.addressable_devices[0]
    buffers = [client.buffer_from_numpy(array, device) for array in ADD.inputs()]
    for out in fresh_add.execute(buffers):  # the control: the same call before Delete runs
        out.close()
    fresh_add.delete()
    try:
        outputs = fresh_add.execute(buffers)
    except PjrtError as error:  # any PJRT error is a clean refusal
        assert error.message.strip(), f"PJRT_LoadedExecutable_Execute after Delete failed with {error.code} and no message"
        return
    for out in outputs:
        out.close()
    raise AssertionError("PJRT_LoadedExecutable_Execute after PJRT_LoadedExecutable_Delete should fail, but succeeded")


def test_outputs_survive_delete(client, fresh_add):
    inputs = ADD.inputs(seed=4)
    device = fresh_add.addressable_devices[0]
    outputs = fresh_add.execute([client.buffer_from_numpy(array, device) for array in inputs])
    fresh_add.delete()
    assert_matches_program(ADD, [out.to_numpy() for out in outputs], inputs,
                           "outputs read after PJRT_LoadedExecutable_Delete")


def test_outputs_survive_destroy(client, fresh_add):
    inputs = ADD.inputs(seed=6)
    device = fresh_add.addressable_devices[0]
    outputs = fresh_add.execute([client.buffer_from_numpy(array, device) for array in inputs])
    fresh_add.close()  # PJRT_LoadedExecutable_Destroy while outputs may still be computing
    assert_matches_program(ADD, [out.to_numpy() for out in outputs], inputs,
                           "outputs read after PJRT_LoadedExecutable_Destroy")


def test_destroy_without_delete(client):
    executable = client.compile(ADD.text)
    inputs = ADD.inputs()
    assert_matches_program(ADD, run(executable, client, inputs), inputs, "PJRT_LoadedExecutable_Execute")
    executable.close()
    assert executable.closed
