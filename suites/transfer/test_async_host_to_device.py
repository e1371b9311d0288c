"""PJRT_Client_CreateBuffersForAsyncHostToDevice and the AsyncHostToDeviceTransferManager (0.60, 0.62, 0.83).

Contract (pjrt_c_api.h, and the C++ PjRtClient::AsyncHostToDeviceTransferManager the C API wraps): the manager
holds one buffer per shape spec, in the memory asked; BufferCount, BufferSize and Device describe them;
RetrieveBuffer hands a buffer to the caller at once, and it becomes ready only once its last chunk
(`is_last_transfer`) has landed; TransferData writes raw bytes at an offset of the on-device buffer, in any order;
TransferLiteral writes a whole host literal, whose layout the header leaves optional; AddMetadata annotates the
transfers; SetBufferError makes that buffer, and only it, carry the error; Destroy with transfers pending neither
hangs nor leaves a retrieved buffer waiting forever. An index or byte range outside the buffers is an error, and a
rejected call leaves the manager usable. Frameworks stream large tensors through it (`jax.experimental.transfer`,
checkpoint loading); a plugin whose slot is filled but whose call fails breaks them (aws-neuron-sdk issue 1337).
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, Iterator

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.runtime import (AsyncTransferManager, BufferType, ErrorCode, MemoryLayout, PjrtError, ShapeSpec,
                              buffer_type_of, dtype_of)
from pjrt_cts.testing import (BlockedByFailure, assert_bit_exact, assert_buffer_error, assert_pending,
                              device_index_params, expect_rejection, refuse_or_succeed, requires, sample_array,
                              settled_error, unsupported_if_unimplemented)
from pjrt_cts.testing.readiness import READY_BOUND_S

CREATE = "PJRT_Client_CreateBuffersForAsyncHostToDevice"
MANAGER = "PJRT_AsyncHostToDeviceTransferManager_"

pytestmark = requires(
    "Client_CreateBuffersForAsyncHostToDevice", "AsyncHostToDeviceTransferManager_Destroy",
    "AsyncHostToDeviceTransferManager_TransferData", "AsyncHostToDeviceTransferManager_RetrieveBuffer",
    "AsyncHostToDeviceTransferManager_Device", "AsyncHostToDeviceTransferManager_BufferCount",
    "AsyncHostToDeviceTransferManager_BufferSize", "AsyncHostToDeviceTransferManager_SetBufferError",
    "AsyncHostToDeviceTransferManager_AddMetadata",
)
NEEDS_LITERAL = requires("AsyncHostToDeviceTransferManager_TransferLiteral")

SPECS = (ShapeSpec((2, 3), BufferType.F32), ShapeSpec((5,), BufferType.S32), ShapeSpec((4, 2, 2), BufferType.U8),
         ShapeSpec((), BufferType.F64))
# Chunk boundaries in elements of a 64-element buffer: uneven chunks, none of them a power of two.
CHUNK_BOUNDS = (0, 13, 32, 50, 64)
CHUNK_ORDERS = {"in_order": (0, 1, 2, 3), "reversed": (3, 2, 1, 0), "interleaved": (1, 3, 0, 2)}
CHUNK_DTYPES = {"f32": np.float32, "u8": np.uint8, "bf16": ml_dtypes.bfloat16}


def new_manager(client: Any, specs: Any, memory: Any, device_layouts: Any = None) -> Any:
    """A transfer manager; UNIMPLEMENTED from CreateBuffersForAsyncHostToDevice is NOT_SUPPORTED, any other error
    a FAIL (a filled slot whose call fails is the defect frameworks trip over)."""
    with unsupported_if_unimplemented(CREATE):
        return client.create_buffers_for_async_host_to_device(list(specs), memory, device_layouts)


@contextlib.contextmanager
def managed(client: Any, specs: Any, memory: Any, device_layouts: Any = None) -> Iterator[Any]:
    """new_manager, destroyed at the end: a Destroy that does not return within READY_BOUND_S fails the test
    rather than hanging it (after a failure it is left to finish in the background)."""
    manager = new_manager(client, specs, memory, device_layouts)
    try:
        yield manager
    except BaseException:
        threading.Thread(target=manager.close, daemon=True).start()
        raise
    destroy_within_bound(manager, "at the end of its transfers")


def destroy_within_bound(manager: Any, when: str) -> None:
    __tracebackhide__ = True
    destroyer = threading.Thread(target=manager.close, daemon=True)
    destroyer.start()
    destroyer.join(READY_BOUND_S)
    assert not destroyer.is_alive(), f"{MANAGER}Destroy {when} did not return within {READY_BOUND_S:g} s"


def leave_undestroyed(manager: Any) -> None:
    """After a rejected call, the manager is left as it is: whether it still completes and can be destroyed is
    test_buffer_completes_after_a_rejected_chunk's clause (the 0.81 XLA CPU plugin's Destroy hangs then)."""
    manager.detach()


def chunked_sample(dtype: Any, seed: int) -> tuple[np.ndarray, list[tuple[int, bytes]]]:
    """A 64-element array and its bytes cut at CHUNK_BOUNDS: [(byte offset, chunk bytes)]."""
    data = sample_array(np.dtype(dtype), (64,), seed=seed)
    raw, width = data.tobytes(), data.dtype.itemsize
    return data, [(start * width, raw[start * width:end * width]) for start, end in zip(CHUNK_BOUNDS, CHUNK_BOUNDS[1:])]


def settle_ok(event: Any, what: str) -> None:
    __tracebackhide__ = True
    if event is not None:
        error = settled_error(event, what)
        assert error is None, f"{what} failed with {error.code}: {error.message}"


def send_whole(manager: Any, index: int, data: np.ndarray) -> None:
    settle_ok(manager.transfer_data(index, data.tobytes(), 0, is_last=True),
              f"done_with_h2d_transfer of {MANAGER}TransferData (buffer {index}, one chunk)")


def read_back(buffer: Any, what: str) -> np.ndarray:
    __tracebackhide__ = True
    event = buffer.ready_event()
    error = settled_error(event, f"PJRT_Buffer_ReadyEvent of {what}")
    event.close()
    assert error is None, f"{what} should be ready with its data, but its ready event carries {error.code}: {error.message}"
    return buffer.to_numpy()


# ---- what the manager holds ---------------------------------------------------------------------------------


def test_buffer_count_matches_the_shapes_asked(client: Any, device: Any) -> None:
    with managed(client, SPECS, device.default_memory) as manager:
        count = manager.buffer_count
    assert count == len(SPECS), (
        f"{MANAGER}BufferCount should be {len(SPECS)}, one per PJRT_ShapeSpec given to {CREATE}, but is {count}")


def test_retrieved_buffers_have_the_shapes_and_sizes_asked(client: Any, device: Any) -> None:
    problems = []
    with managed(client, SPECS, device.default_memory) as manager:
        for index, spec in enumerate(SPECS):
            size = manager.buffer_size(index)
            buffer = manager.retrieve_buffer(index)
            shape = (buffer.dims, buffer.element_type)
            if shape != (spec.dims, spec.element_type):
                problems.append(f"buffer {index}: RetrieveBuffer gave {shape[1]!r}{list(shape[0])}, asked "
                                f"{spec.element_type.name}{list(spec.dims)}")
            if size < spec.dense_bytes or size != buffer.on_device_size:
                problems.append(f"buffer {index} ({spec.element_type.name}{list(spec.dims)}, {spec.dense_bytes} dense "
                                f"bytes): BufferSize {size}, PJRT_Buffer_OnDeviceSizeInBytes of the retrieved buffer "
                                f"{buffer.on_device_size}")
    assert not problems, f"{MANAGER}BufferSize / RetrieveBuffer disagree with the shapes asked: {'; '.join(problems)}"


@pytest.mark.parametrize("index", device_index_params())
def test_device_is_the_device_of_the_memory_asked(client: Any, devices: list[Any], index: int) -> None:
    device = devices[index]
    with managed(client, SPECS[:1], device.default_memory) as manager:
        reported = manager.device
        buffer = manager.retrieve_buffer(0)
        assert reported.handle == device.handle, (
            f"{MANAGER}Device of a manager created in device {device.id}'s default memory should be device "
            f"{device.id}, but is device {reported.id}")
        assert buffer.device.handle == device.handle, (
            f"PJRT_Buffer_Device of a buffer retrieved from a manager on device {device.id} is device {buffer.device.id}")


def test_buffers_are_created_in_the_memory_asked(client: Any, device: Any) -> None:
    """Every memory of device 0; one other than the device's default may be refused with UNIMPLEMENTED."""
    data = sample_array(np.float32, (16,), seed=3)
    for memory in device.memories:
        def fill(memory: Any = memory) -> np.ndarray:
            with managed(client, [ShapeSpec((16,), BufferType.F32)], memory) as manager:
                buffer = manager.retrieve_buffer(0)
                assert buffer.memory.handle == memory.handle, (
                    f"PJRT_Buffer_Memory of a buffer of a manager created in memory {memory.kind!r} is "
                    f"{buffer.memory.kind!r}")
                send_whole(manager, 0, data)
                return read_back(buffer, f"a buffer of a manager in memory {memory.kind!r}")

        def check(result: np.ndarray, kind: str = memory.kind) -> None:
            assert_bit_exact(result, data, f"{MANAGER}TransferData into memory {kind!r}, then ToHostBuffer,")

        if memory.handle == device.default_memory.handle:
            check(fill())
        else:
            refuse_or_succeed(fill, check=check, function=CREATE, codes=("UNIMPLEMENTED",), what=f"in memory {memory.kind!r}")


# ---- chunked transfers ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("order", sorted(CHUNK_ORDERS))
@pytest.mark.parametrize("dtype_name", sorted(CHUNK_DTYPES))
def test_chunked_transfer_reads_back_exactly(client: Any, device: Any, dtype_name: str, order: str) -> None:
    data, chunks = chunked_sample(CHUNK_DTYPES[dtype_name], seed=11)
    sequence = CHUNK_ORDERS[order]
    with managed(client, [ShapeSpec((64,), buffer_type_of(data.dtype))], device.default_memory) as manager:
        buffer = manager.retrieve_buffer(0)
        events = [manager.transfer_data(0, chunks[i][1], chunks[i][0], is_last=position == len(sequence) - 1)
                  for position, i in enumerate(sequence)]
        for position, event in enumerate(events):
            settle_ok(event, f"done_with_h2d_transfer of chunk {sequence[position]} ({order})")
        result = read_back(buffer, f"a buffer filled by {len(chunks)} TransferData chunks ({order})")
    assert_bit_exact(result, data, f"{MANAGER}TransferData of {dtype_name}[64] in {len(chunks)} chunks ({order}), "
                                   "then PJRT_Buffer_ToHostBuffer,")


def test_retrieved_buffer_is_ready_only_after_its_last_chunk(client: Any, device: Any) -> None:
    data, chunks = chunked_sample(np.float32, seed=12)
    with managed(client, [ShapeSpec((64,), BufferType.F32)], device.default_memory) as manager:
        buffer = manager.retrieve_buffer(0)
        for offset, chunk in chunks[:-1]:
            settle_ok(manager.transfer_data(0, chunk, offset, is_last=False), f"chunk at byte {offset}")
        assert_pending(buffer, "a retrieved buffer whose last chunk (is_last_transfer) has not been sent")
        offset, chunk = chunks[-1]
        settle_ok(manager.transfer_data(0, chunk, offset, is_last=True), "the last chunk")
        result = read_back(buffer, "a buffer after its last chunk")
    assert_bit_exact(result, data, f"{MANAGER}TransferData in chunks, the buffer retrieved first,")


def test_buffers_of_one_manager_fill_independently(client: Any, device: Any) -> None:
    """Each spec of SPECS gets its own data, buffers filled in reverse order: a chunk never lands in another buffer."""
    arrays = [sample_array(dtype_of(spec.element_type), spec.dims, seed=20 + i) for i, spec in enumerate(SPECS)]
    with managed(client, SPECS, device.default_memory) as manager:
        buffers = [manager.retrieve_buffer(i) for i in range(len(SPECS))]
        for index in reversed(range(len(SPECS))):
            send_whole(manager, index, arrays[index])
        for index, (buffer, data) in enumerate(zip(buffers, arrays)):
            assert_bit_exact(read_back(buffer, f"buffer {index}"), data,
                             f"{MANAGER}TransferData into buffer {index} of {len(SPECS)}, then ToHostBuffer,")


@requires("Buffer_GetMemoryLayout")
def test_device_layout_asked_is_honoured(client: Any, device: Any) -> None:
    """A column-major device layout: the buffer reports it, chunks are raw bytes in it, readback is the array."""
    data = sample_array(np.float32, (3, 4), seed=13)
    layout = MemoryLayout.tiled([0, 1])
    with managed(client, [ShapeSpec((3, 4), BufferType.F32)], device.default_memory, [layout]) as manager:
        buffer = manager.retrieve_buffer(0)
        reported = buffer.memory_layout.minor_to_major
        assert reported == (0, 1), (
            f"PJRT_Buffer_GetMemoryLayout of a buffer created with device layout minor_to_major [0, 1] by {CREATE} "
            f"is {list(reported)}")
        settle_ok(manager.transfer_data(0, data.tobytes(order="F"), 0, is_last=True), "a column-major chunk")
        read_back(buffer, "a column-major buffer")
        result = buffer.to_numpy(minor_to_major=[1, 0])
    assert_bit_exact(result, data, f"{MANAGER}TransferData of the column-major bytes of a buffer with device layout "
                                   "[0, 1], read with host layout [1, 0],")


# ---- literals, metadata, errors -------------------------------------------------------------------------------


@NEEDS_LITERAL
@pytest.mark.parametrize("minor_to_major", [pytest.param((1, 0), id="row_major"), pytest.param((0, 1), id="column_major")])
def test_transfer_literal_with_layout_reads_back(client: Any, device: Any, minor_to_major: tuple[int, int]) -> None:
    data = sample_array(np.float32, (3, 4), seed=14)
    host = np.ascontiguousarray(data) if minor_to_major == (1, 0) else np.asfortranarray(data)
    with managed(client, [ShapeSpec((3, 4), BufferType.F32)], device.default_memory) as manager:
        buffer = manager.retrieve_buffer(0)
        settle_ok(manager.transfer_literal(0, host, BufferType.F32, MemoryLayout.tiled(minor_to_major)),
                  f"done_with_h2d_transfer of {MANAGER}TransferLiteral")
        result = read_back(buffer, "a buffer filled by TransferLiteral")
    assert_bit_exact(result, data, f"{MANAGER}TransferLiteral of a literal with layout {list(minor_to_major)}, then "
                                   "ToHostBuffer,")


@NEEDS_LITERAL
@pytest.mark.isolated  # the 0.115 XLA CPU plugin aborts (CHECK LayoutUtil::HasLayout in literal.cc)
def test_transfer_literal_without_layout_reads_back(client: Any, device: Any) -> None:
    """The header makes shape_layout optional: NULL is the dense major-to-minor literal, as everywhere else."""
    data = sample_array(np.float32, (3, 4), seed=15)
    with managed(client, [ShapeSpec((3, 4), BufferType.F32)], device.default_memory) as manager:
        buffer = manager.retrieve_buffer(0)
        settle_ok(manager.transfer_literal(0, data, BufferType.F32, None),
                  f"done_with_h2d_transfer of {MANAGER}TransferLiteral (shape_layout NULL)")
        result = read_back(buffer, "a buffer filled by TransferLiteral without a layout")
    assert_bit_exact(result, data, f"{MANAGER}TransferLiteral with shape_layout NULL, then ToHostBuffer,")


def test_add_metadata_keeps_transfers_working(client: Any, device: Any) -> None:
    data = sample_array(np.float32, (16,), seed=16)
    with managed(client, [ShapeSpec((16,), BufferType.F32)], device.default_memory) as manager:
        manager.add_metadata({"pjrt_cts.test": "add_metadata", "pjrt_cts.buffers": "1"})
        buffer = manager.retrieve_buffer(0)
        send_whole(manager, 0, data)
        result = read_back(buffer, "a buffer of a manager given metadata")
    assert_bit_exact(result, data, f"{MANAGER}AddMetadata, then TransferData and ToHostBuffer,")


def test_set_buffer_error_surfaces_on_that_buffer_only(client: Any, device: Any) -> None:
    arrays = [sample_array(np.float32, (8,), seed=30 + i) for i in range(3)]
    message = "pjrt-cts: the producer of buffer 1 gave up"
    with managed(client, [ShapeSpec((8,), BufferType.F32)] * 3, device.default_memory) as manager:
        buffers = [manager.retrieve_buffer(i) for i in range(3)]
        manager.set_buffer_error(1, ErrorCode.DATA_LOSS, message)
        send_whole(manager, 0, arrays[0])
        send_whole(manager, 2, arrays[2])
        assert_buffer_error(buffers[1], "DATA_LOSS", message, f"a buffer given {MANAGER}SetBufferError(DATA_LOSS)")
        for index in (0, 2):
            assert_bit_exact(read_back(buffers[index], f"buffer {index} beside a buffer set in error"), arrays[index],
                             f"buffer {index} of a manager whose buffer 1 was set in error, filled and read back,")


@pytest.mark.isolated  # a plugin that waits for the missing chunk hangs Destroy (the C++ destructor awaits transfers)
@pytest.mark.timeout(READY_BOUND_S * 3)
def test_destroy_with_transfers_pending_never_hangs(client: Any, device: Any) -> None:
    data, chunks = chunked_sample(np.float32, seed=17)
    manager = new_manager(client, [ShapeSpec((64,), BufferType.F32)] * 2, device.default_memory)
    buffer = manager.retrieve_buffer(0)
    offset, chunk = chunks[0]
    settle_ok(manager.transfer_data(0, chunk, offset, is_last=False), "the first of several chunks")
    destroy_within_bound(manager, "with a buffer half transferred (and one untouched)")
    error = settled_error(buffer.ready_event(), "PJRT_Buffer_ReadyEvent of a retrieved buffer whose manager was "
                                                "destroyed before its last chunk")
    assert error is not None, (
        f"a buffer whose manager was destroyed before its last chunk (is_last_transfer) became ready without error: "
        f"its contents were never all transferred ({len(chunk)} of {data.nbytes} bytes)")


@pytest.mark.isolated  # a plugin that dereferences the manager crashes
def test_destroy_of_a_null_manager_is_a_no_op(client: Any) -> None:
    """The header: "Frees `transfer_manager`. `transfer_manager` can be nullptr." """
    AsyncTransferManager(client, 0).close()


# ---- misuse ---------------------------------------------------------------------------------------------------

OUT_OF_RANGE_CHUNKS = [pytest.param(offset, size, id=name) for name, offset, size in
                       [("past_end", 56, 16), ("negative_offset", -4, 4), ("longer_than_buffer", 0, 128),
                        ("offset_at_end", 64, 4)]]


@pytest.mark.isolated  # a plugin that does not check the range writes outside the buffer
@pytest.mark.parametrize(("offset", "size"), OUT_OF_RANGE_CHUNKS)
def test_transfer_data_outside_the_buffer_is_an_error(client: Any, device: Any, offset: int, size: int) -> None:
    spec = [ShapeSpec((16,), BufferType.F32)]  # 64 bytes
    manager = new_manager(client, spec, device.default_memory)
    with managed(client, spec, device.default_memory) as control:
        expect_rejection(lambda: manager.transfer_data(0, bytes(size), offset, is_last=False),
                         control=lambda: control.transfer_data(0, bytes(64), 0, is_last=True),
                         codes=("INVALID_ARGUMENT", "OUT_OF_RANGE"), function=MANAGER + "TransferData",
                         what=f"a chunk of {size} bytes at offset {offset} of a 64-byte buffer")
    leave_undestroyed(manager)


@pytest.mark.isolated  # the 0.115 XLA CPU plugin aborts (CHECK remaining_buffer_count_ > 0), the 0.81 one never completes
@pytest.mark.timeout(READY_BOUND_S * 3)
def test_buffer_completes_after_a_rejected_chunk(client: Any, device: Any) -> None:
    """A rejected call changes nothing: the same buffer still takes its valid chunk and becomes ready with it."""
    data = sample_array(np.float32, (16,), seed=18)
    with managed(client, [ShapeSpec((16,), BufferType.F32)], device.default_memory) as manager:  # Destroy bounded too
        buffer = manager.retrieve_buffer(0)
        try:
            manager.transfer_data(0, bytes(16), 56, is_last=False)
        except PjrtError:
            pass  # the rejection itself is judged by test_transfer_data_outside_the_buffer_is_an_error
        else:
            raise BlockedByFailure("blocked: TransferData accepted a chunk past the end of its buffer "
                                   "(see transfer.async_host_to_device.test_transfer_data_outside_the_buffer_is_an_error)")
        send_whole(manager, 0, data)
        assert_bit_exact(read_back(buffer, "a buffer completed after a rejected chunk"), data,
                         f"{MANAGER}TransferData of the whole buffer after a rejected chunk, then ToHostBuffer,")


def test_transfer_after_the_last_chunk_is_an_error(client: Any, device: Any) -> None:
    data = sample_array(np.float32, (16,), seed=19)
    manager = new_manager(client, [ShapeSpec((16,), BufferType.F32)] * 2, device.default_memory)
    buffer = manager.retrieve_buffer(0)
    send_whole(manager, 0, data)
    expect_rejection(lambda: manager.transfer_data(0, bytes(64), 0, is_last=True),
                     control=lambda: manager.transfer_data(1, data.tobytes(), 0, is_last=True),
                     codes=("INVALID_ARGUMENT", "FAILED_PRECONDITION"), function=MANAGER + "TransferData",
                     what="a chunk for a buffer whose last chunk (is_last_transfer) was already sent")
    assert_bit_exact(read_back(buffer, "a completed buffer"), data, "a completed buffer after a rejected extra chunk")
    leave_undestroyed(manager)


def _index_calls(manager: Any, index: int) -> dict[str, Callable[[], Any]]:
    literal = np.zeros(4, np.float32)
    return {
        "BufferSize": lambda: manager.buffer_size(index),
        "RetrieveBuffer": lambda: manager.retrieve_buffer(index),
        "TransferData": lambda: manager.transfer_data(index, bytes(16), 0, is_last=True),
        "SetBufferError": lambda: manager.set_buffer_error(index, ErrorCode.CANCELLED, "pjrt-cts: index check"),
        "TransferLiteral": lambda: manager.transfer_literal(index, literal, BufferType.F32, MemoryLayout.tiled([0])),
    }


INDEX_FUNCTIONS = [pytest.param(name, id=name, marks=NEEDS_LITERAL if name == "TransferLiteral" else ())
                   for name in ("BufferSize", "RetrieveBuffer", "TransferData", "SetBufferError", "TransferLiteral")]


@pytest.mark.isolated  # the XLA CPU plugins only DCHECK the index: RetrieveBuffer and TransferData crash
@pytest.mark.parametrize("function", INDEX_FUNCTIONS)
def test_buffer_index_past_the_last_is_an_error(client: Any, device: Any, function: str) -> None:
    specs = [ShapeSpec((4,), BufferType.F32)] * 2
    manager = new_manager(client, specs, device.default_memory)
    with managed(client, specs, device.default_memory) as control:
        expect_rejection(_index_calls(manager, len(specs))[function], control=_index_calls(control, 0)[function],
                         codes=("INVALID_ARGUMENT", "OUT_OF_RANGE"), function=MANAGER + function,
                         what=f"buffer_index {len(specs)} of a manager of {len(specs)} buffers")
    leave_undestroyed(manager)
