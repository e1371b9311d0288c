"""PJRT_Client_CreateAliasBuffer / PJRT_Client_FulfillAliasBuffer (0.77+): a buffer that stands for one given later.

Contract (pjrt_c_api.h; the C++ PjRtClient::CreateAliasBuffer: "the alias buffer is initially uninitialized and
must be fulfilled later"): the alias has the shape asked, is not ready until fulfilled, then reads the data of the
buffer it was fulfilled with, also in work enqueued before (an execution waits for it); fulfilled with an error
status, every use of it carries that error. A buffer of another shape, or a NULL callback, is rejected. The header
leaves `shape_layout` optional: NULL is the default layout, as for every other shape.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from pjrt_cts.runtime import AliasFulfilment, BufferType, ErrorCode, MemoryLayout, PjrtError
from pjrt_cts.testing import (assert_bit_exact, assert_buffer_error, assert_pending, expect_rejection, requires,
                              sample_array, settled_error, unsupported_if_unimplemented)

CREATE = "PJRT_Client_CreateAliasBuffer"
FULFILL = "PJRT_Client_FulfillAliasBuffer"

pytestmark = requires("Client_CreateAliasBuffer", "Client_FulfillAliasBuffer")

DIMS = (2, 3)
EXECUTE_RETURNS_S = 2.0  # an Execute that has not returned by then waits for its alias argument to be fulfilled
RETURNS_AFTER_FULFILMENT_S = 60.0
ROW_MAJOR = MemoryLayout.tiled([1, 0])  # given explicitly: the clauses below do not depend on the NULL-layout one

DOUBLE = """
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.add %a, %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}"""


def alias(client: Any, memory: Any, layout: Any = ROW_MAJOR) -> tuple[Any, Any]:
    with unsupported_if_unimplemented(CREATE):
        return client.create_alias_buffer(memory, DIMS, BufferType.F32, layout)


def test_alias_has_the_shape_asked_and_waits_for_fulfilment(client: Any, device: Any) -> None:
    buffer, fulfilment = alias(client, device.default_memory)
    assert (buffer.element_type, buffer.dims) == (BufferType.F32, DIMS), (
        f"{CREATE} of F32{list(DIMS)} gave a buffer of {buffer.element_type!r}{list(buffer.dims)}")
    assert buffer.memory.handle == device.default_memory.handle, (
        f"PJRT_Buffer_Memory of an alias made in {device.default_memory.kind!r} is {buffer.memory.kind!r}")
    assert_pending(buffer, f"an alias from {CREATE} not yet fulfilled")
    fulfilment.close()  # fulfilled with CANCELLED, so that nothing waits for it


def test_alias_fulfilled_with_a_buffer_reads_its_data(client: Any, device: Any) -> None:
    data = sample_array(np.float32, DIMS, seed=71)
    buffer, fulfilment = alias(client, device.default_memory)
    fulfilment.fulfil(client.buffer_from_numpy(data, device))
    error = settled_error(buffer.ready_event(), f"PJRT_Buffer_ReadyEvent of an alias after {FULFILL}")
    assert error is None, f"an alias fulfilled with a buffer became ready with {error.code}: {error.message}"
    assert_bit_exact(buffer.to_numpy(), data, f"an alias fulfilled ({FULFILL}) with a buffer, read back,")


def test_execution_enqueued_before_fulfilment_reads_the_data(client: Any, device: Any) -> None:
    """What aliases are for: work that depends on a buffer not produced yet. The header does not say whether Execute
    returns before its arguments are defined (XLA:CPU returns at once; XLA:GPU's Execute waits for the alias's
    definition event), so Execute runs on a thread of its own and the alias is fulfilled either way: a returned
    Execute's output is pending until then, a waiting Execute returns once the alias is fulfilled."""
    data = sample_array(np.float32, DIMS, seed=72)
    buffer, fulfilment = alias(client, device.default_memory)
    executable = client.compile(DOUBLE)
    outputs: list[Any] = []
    errors: list[BaseException] = []

    def execute() -> None:
        try:
            outputs.append(executable.execute([buffer])[0])
        except BaseException as error:  # noqa: BLE001 - re-raised on the test's thread
            errors.append(error)

    running = threading.Thread(target=execute, name="execute-on-an-unfulfilled-alias", daemon=True)
    running.start()
    running.join(EXECUTE_RETURNS_S)
    if not running.is_alive():  # Execute returned before its argument was defined: its output waits for it
        if errors:
            raise errors[0]
        assert_pending(outputs[0], "the output of an execution whose argument is an alias not yet fulfilled")
    fulfilment.fulfil(client.buffer_from_numpy(data, device))
    running.join(RETURNS_AFTER_FULFILMENT_S)
    assert not running.is_alive(), (
        f"PJRT_LoadedExecutable_Execute on an alias was still blocked {RETURNS_AFTER_FULFILMENT_S} s after {FULFILL} "
        "fulfilled it")
    if errors:
        raise errors[0]
    output = outputs[0]
    error = settled_error(output.ready_event(), "the output of an execution on an alias fulfilled afterwards")
    assert error is None, f"an execution on an alias fulfilled after it was enqueued failed with {error.code}: {error.message}"
    assert_bit_exact(output.to_numpy(), data + data, "x + x on an alias fulfilled after the execution was enqueued")


def test_alias_fulfilled_with_an_error_carries_it(client: Any, device: Any) -> None:
    """FulfillAliasBuffer itself may succeed or answer with the same error; every use of the alias carries it."""
    buffer, fulfilment = alias(client, device.default_memory)
    message = "pjrt-cts: the producer of this alias failed"
    try:
        fulfilment.fail(ErrorCode.ABORTED, message)
    except PjrtError as error:
        assert error.code == "ABORTED" and message in error.message, (
            f"{FULFILL} with status ABORTED should succeed or answer that status, but failed with {error.code}: "
            f"{error.message}")
    assert_buffer_error(buffer, "ABORTED", message, f"an alias fulfilled ({FULFILL}) with ABORTED")
    try:
        buffer.to_numpy()
    except PjrtError as error:
        assert message in error.message, (
            f"PJRT_Buffer_ToHostBuffer of an alias fulfilled with an error failed with another error: {error.code}: "
            f"{error.message}")
    else:
        raise AssertionError("PJRT_Buffer_ToHostBuffer of an alias fulfilled with ABORTED succeeded")


def test_fulfilment_with_a_buffer_of_another_shape_is_an_error(client: Any, device: Any) -> None:
    wrong = sample_array(np.float32, (3, 2), seed=73)
    right = sample_array(np.float32, DIMS, seed=73)
    expect_rejection(lambda: alias(client, device.default_memory)[1].fulfil(client.buffer_from_numpy(wrong, device)),
                     control=lambda: alias(client, device.default_memory)[1].fulfil(client.buffer_from_numpy(right, device)),
                     codes=("INVALID_ARGUMENT", "FAILED_PRECONDITION"), function=FULFILL,
                     what=f"a buffer of F32[3,2] for an alias of F32{list(DIMS)}")


def test_fulfilment_without_its_callback_is_an_error(client: Any, device: Any) -> None:
    data = sample_array(np.float32, DIMS, seed=74)
    _buffer, fulfilment = alias(client, device.default_memory)
    expect_rejection(lambda: AliasFulfilment(client, 0).fulfil(client.buffer_from_numpy(data, device)),
                     control=lambda: fulfilment.fulfil(client.buffer_from_numpy(data, device)),
                     function=FULFILL, what="fulfill_alias_buffer_cb NULL")


@pytest.mark.parametrize("memory_kind", ["default", pytest.param("pinned_host", marks=requires(memory_kind="pinned_host"))])
def test_alias_in_each_memory_reads_its_data(client: Any, device: Any, memory_kind: str) -> None:
    memory = device.default_memory if memory_kind == "default" else next(m for m in device.memories if m.kind == memory_kind)
    data = sample_array(np.float32, DIMS, seed=75)
    buffer, fulfilment = alias(client, memory)
    fulfilment.fulfil(client.buffer_from_numpy(data, memory=memory))
    assert_bit_exact(buffer.to_numpy(), data, f"an alias in memory {memory_kind!r} fulfilled with a buffer there")


def test_alias_without_layout_is_created(client: Any, device: Any) -> None:
    """shape_layout NULL: the header makes it optional (CreateUninitializedBuffer and CreateErrorBuffer take it so)."""
    data = sample_array(np.float32, DIMS, seed=76)
    buffer, fulfilment = alias(client, device.default_memory, layout=None)
    fulfilment.fulfil(client.buffer_from_numpy(data, device))
    assert_bit_exact(buffer.to_numpy(), data, f"an alias created with shape_layout NULL ({CREATE}), fulfilled, read back,")
