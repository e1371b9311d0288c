"""PJRT_Client_CreateUninitializedBuffer (0.68+): a buffer of a given shape whose contents are not defined.

Contract (pjrt_c_api.h; the C++ PjRtClient::CreateUninitializedBuffer: "creates a buffer in the given memory space
without initializing or copying any data"): the buffer has the element type and dimensions asked, on `device`
(its default memory) or in `memory`; a program can write it, as an output it donates into; an invalid shape is
an error.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.runtime import BufferType, MemoryLayout
from pjrt_cts.testing import (assert_same, expect_rejection, refuse_or_succeed, requires, sample_array,
                              unsupported_if_unimplemented)

CREATE = "PJRT_Client_CreateUninitializedBuffer"

pytestmark = requires("Client_CreateUninitializedBuffer")

SHAPES = {"f32_2x3": ((2, 3), BufferType.F32), "s8_7": ((7,), BufferType.S8), "f64_scalar": ((), BufferType.F64),
          "bf16_2x2x2": ((2, 2, 2), BufferType.BF16), "pred_0x4": ((0, 4), BufferType.PRED)}

# %u (donated to the output) is never read: the output is written by the program alone.
DONATING_PROGRAM = """
func.func @main(%u: tensor<2x3xf32> {tf.aliasing_output = 0 : i32}, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}"""


def uninitialized(client: Any, dims: tuple[int, ...], element_type: Any, **where: Any) -> Any:
    with unsupported_if_unimplemented(CREATE):
        return client.create_uninitialized_buffer(dims, element_type, **where)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_uninitialized_buffer_has_the_shape_asked(client: Any, device: Any, shape: str) -> None:
    dims, element_type = SHAPES[shape]
    buffer = uninitialized(client, dims, element_type, device=device)
    assert (buffer.element_type, buffer.dims) == (element_type, dims), (
        f"{CREATE} of {element_type.name}{list(dims)} gave a buffer of {buffer.element_type!r}{list(buffer.dims)}")
    assert buffer.device.handle == device.handle, (
        f"PJRT_Buffer_Device of a buffer {CREATE} made on device {device.id} is device {buffer.device.id}")
    assert buffer.memory.handle == device.default_memory.handle, (
        f"PJRT_Buffer_Memory of a buffer {CREATE} made on device {device.id} (no memory given) is "
        f"{buffer.memory.kind!r}, not the device's default memory {device.default_memory.kind!r}")


def test_uninitialized_buffer_is_in_the_memory_asked(client: Any, device: Any) -> None:
    """Every memory of device 0; one other than the default may be refused with UNIMPLEMENTED."""
    for memory in device.memories:
        def create(memory: Any = memory) -> Any:
            return uninitialized(client, (4,), BufferType.F32, memory=memory)

        def check(buffer: Any, memory: Any = memory) -> None:
            assert buffer.memory.handle == memory.handle, (
                f"PJRT_Buffer_Memory of a buffer {CREATE} made in memory {memory.kind!r} is {buffer.memory.kind!r}")

        if memory.handle == device.default_memory.handle:
            check(create())
        else:
            refuse_or_succeed(create, check=check, function=CREATE, codes=("UNIMPLEMENTED",),
                              what=f"in memory {memory.kind!r}")


@requires("Buffer_GetMemoryLayout")
def test_uninitialized_buffer_has_the_layout_asked(client: Any, device: Any) -> None:
    buffer = uninitialized(client, (2, 3), BufferType.F32, device=device, layout=MemoryLayout.tiled([0, 1]))
    reported = buffer.memory_layout.minor_to_major
    assert reported == (0, 1), (
        f"PJRT_Buffer_GetMemoryLayout of a buffer {CREATE} made with shape_layout minor_to_major [0, 1] is "
        f"{list(reported)}")


def test_uninitialized_buffer_takes_a_donated_output(client: Any, device: Any) -> None:
    """The use it exists for: storage a program writes (the argument donated to the output is never read)."""
    x = sample_array(np.float32, (2, 3), seed=61)
    storage = uninitialized(client, (2, 3), BufferType.F32, device=device)
    executable = client.compile(DONATING_PROGRAM)
    output = executable.execute([storage, client.buffer_from_numpy(x, device)])[0]
    assert_same(output.to_numpy(), x * x, f"a program writing its output into a buffer from {CREATE} (donated)")
    assert storage.is_deleted, f"PJRT_Buffer_IsDeleted of a donated buffer from {CREATE} is false after Execute"


@pytest.mark.isolated  # the 0.115 XLA CPU plugin aborts (uncaught BadStatusOrAccess) on a negative dimension
@pytest.mark.parametrize("dims", [pytest.param((-2, 3), id="negative"), pytest.param((2, -1), id="minus_one")])
def test_negative_dimension_is_an_error(client: Any, device: Any, dims: tuple[int, ...]) -> None:
    uninitialized(client, (2, 3), BufferType.F32, device=device).close()  # the feature works at all
    expect_rejection(lambda: client.create_uninitialized_buffer(dims, BufferType.F32, device=device),
                     control=lambda: client.create_uninitialized_buffer((2, 3), BufferType.F32, device=device),
                     function=CREATE, what=f"dimensions {list(dims)}")

