"""PJRT_Buffer_DonateWithControlDependency (0.88+): a buffer donated to a new one that waits for a dependency.

Contract (pjrt_c_api.h; the C++ PjRtBuffer::DonateWithControlDependency: "donates 'this' and returns a new buffer
that is ready only when both 'this' and 'dependency' are ready; once ready, the new buffer's contents will be
exactly the contents of 'this'; if either transitions to error, the returned buffer will transition to error"):
the source is consumed (IsDeleted, unusable); the new buffer is not ready before the caller invokes
`dependency_ready_callback`, then holds the source's data; a dependency completed with an error is that buffer's
error. A deleted source is rejected.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from pjrt_cts.runtime import ErrorCode, PjrtError
from pjrt_cts.testing import (assert_bit_exact, assert_buffer_error, assert_pending, expect_rejection, requires,
                              sample_array, settled_error, unsupported_if_unimplemented)

DONATE = "PJRT_Buffer_DonateWithControlDependency"

pytestmark = requires("Buffer_DonateWithControlDependency")


def donate(buffer: Any) -> tuple[Any, Any]:
    with unsupported_if_unimplemented(DONATE):
        return buffer.donate_with_control_dependency()


def test_source_is_donated(client: Any, device: Any) -> None:
    source = client.buffer_from_numpy(sample_array(np.float32, (8,), seed=111), device)
    _new, dependency = donate(source)
    assert source.is_deleted, f"PJRT_Buffer_IsDeleted of the source of {DONATE} is false: the source is donated"
    try:
        source.to_numpy()
    except PjrtError:
        pass
    else:
        raise AssertionError(f"PJRT_Buffer_ToHostBuffer of the source of {DONATE} succeeded after it was donated")
    finally:
        dependency.set_ready()


def test_new_buffer_holds_the_data_once_the_dependency_is_ready(client: Any, device: Any) -> None:
    data = sample_array(np.float32, (2, 8), seed=112)
    new, dependency = donate(client.buffer_from_numpy(data, device).block_until_ready())
    assert (new.dims, new.element_type, new.device.handle) == ((2, 8), client.buffer_from_numpy(data).element_type,
                                                               device.handle), (
        f"the buffer {DONATE} returns should be the source's F32[2,8] on device {device.id}, but is "
        f"{new.element_type!r}{list(new.dims)} on device {new.device.id}")
    assert_pending(new, f"the buffer of {DONATE} before its dependency_ready_callback was called")
    dependency.set_ready()
    error = settled_error(new.ready_event(), f"PJRT_Buffer_ReadyEvent of the buffer of {DONATE} after its dependency")
    assert error is None, f"the buffer of {DONATE} failed with {error.code}: {error.message} once its dependency was ready"
    assert_bit_exact(new.to_numpy(), data, f"the buffer of {DONATE} once its dependency was ready, read back,")


def test_dependency_error_becomes_the_new_buffers_error(client: Any, device: Any) -> None:
    new, dependency = donate(client.buffer_from_numpy(sample_array(np.float32, (8,), seed=113), device))
    message = "pjrt-cts: the dependency failed"
    dependency.fail(ErrorCode.ABORTED, message)
    assert_buffer_error(new, "ABORTED", message, f"the buffer of {DONATE} whose dependency completed with ABORTED")


def test_donating_a_deleted_buffer_is_an_error(client: Any, device: Any) -> None:
    data = sample_array(np.float32, (8,), seed=114)
    deleted = client.buffer_from_numpy(data, device)
    deleted.delete()

    def control() -> Any:
        new, dependency = donate(client.buffer_from_numpy(data, device))
        dependency.set_ready()
        return new

    expect_rejection(lambda: donate(deleted), control=control, codes=("INVALID_ARGUMENT", "FAILED_PRECONDITION"),
                     function=DONATE, what="a deleted buffer")
