"""PJRT_Client_DmaMap / PJRT_Client_DmaUnmap (0.67+): host memory registered for fast transfers.

Contract (pjrt_c_api.h; the C++ PjRtClient::DmaMap: "maps memory for fast transfers; may have backend specific
alignment requirements (most backends will require at least a page)"; DmaUnmap: "the caller is responsible to
ensure that all data transfers are complete"): a plugin implements both or neither (UNIMPLEMENTED for both);
transfers from and into a mapped range are exact; unmapping a range that was never mapped is an error. JAX's
transfer server maps its staging memory this way (`client.dma_map`).
"""
from __future__ import annotations

import contextlib
import ctypes
import mmap
from typing import Any, Iterator

import numpy as np

from pjrt_cts.runtime import BufferType, PjrtError, ShapeSpec
from pjrt_cts.testing import assert_bit_exact, expect_rejection, requires, sample_array, unsupported_if_unimplemented

MAP, UNMAP = "PJRT_Client_DmaMap", "PJRT_Client_DmaUnmap"
PAGES = 4

pytestmark = requires("Client_DmaMap", "Client_DmaUnmap")


@contextlib.contextmanager
def mapped_pages(client: Any) -> Iterator[tuple[mmap.mmap, int]]:
    """PAGES page-aligned pages (anonymous mmap), DmaMap-ped for the block, DmaUnmap-ped after it. UNIMPLEMENTED from
    DmaMap is NOT_SUPPORTED only when DmaUnmap answers UNIMPLEMENTED too."""
    pages = mmap.mmap(-1, PAGES * mmap.PAGESIZE)
    address = ctypes.addressof(ctypes.c_char.from_buffer(pages))
    try:
        client.dma_map(address, len(pages))
    except PjrtError as error:
        if error.code == "UNIMPLEMENTED":
            _unmap_must_be_unimplemented(client, address)
        raise
    try:
        yield pages, address
    finally:
        client.dma_unmap(address)


def _unmap_must_be_unimplemented(client: Any, address: int) -> None:
    __tracebackhide__ = True
    try:
        client.dma_unmap(address)
    except PjrtError as error:
        if error.code == "UNIMPLEMENTED":
            return
        raise AssertionError(f"{MAP} answers UNIMPLEMENTED but {UNMAP} answers {error.code}: {error.message} (the "
                             "pair is implemented together or not at all)") from None


def test_map_and_unmap_are_both_implemented_or_both_unimplemented(client: Any) -> None:
    with unsupported_if_unimplemented(MAP), mapped_pages(client):
        pass


def test_transfers_through_a_mapped_range_are_exact(client: Any, device: Any) -> None:
    data = sample_array(np.float32, (256,), seed=91)
    with unsupported_if_unimplemented(MAP), mapped_pages(client) as (pages, address):
        staging = np.frombuffer(pages, np.float32, count=data.size)
        staging[:] = data
        uploaded = client.buffer_from_numpy(staging, device)
        assert_bit_exact(uploaded.to_numpy(), data, f"BufferFromHostBuffer from a {MAP}-ped range, read back,")
        readback = np.frombuffer(pages, np.float32, count=data.size, offset=mmap.PAGESIZE * 2)
        event = uploaded.to_host_into(readback.ctypes.data, data.nbytes)
        event.wait()
        assert_bit_exact(readback.copy(), data, f"ToHostBuffer into a {MAP}-ped range")
        if not client.plugin.has("Client_CreateBuffersForAsyncHostToDevice"):
            return  # the plugin has no transfer manager to stream from the range
        with client.create_buffers_for_async_host_to_device([ShapeSpec((256,), BufferType.F32)], device.default_memory) as manager:
            streamed = manager.retrieve_buffer(0)
            done = manager.transfer_data(0, address, 0, size=data.nbytes, is_last=True)
            if done is not None:
                done.wait()
            assert_bit_exact(streamed.to_numpy(), data, f"AsyncHostToDeviceTransferManager_TransferData from a {MAP}-ped range")


def test_unmap_of_a_range_never_mapped_is_an_error(client: Any) -> None:
    with unsupported_if_unimplemented(MAP), mapped_pages(client) as (_pages, mapped):
        elsewhere = mmap.mmap(-1, mmap.PAGESIZE)
        never_mapped = ctypes.addressof(ctypes.c_char.from_buffer(elsewhere))

        def unmap_and_map_again() -> None:
            client.dma_unmap(mapped)
            client.dma_map(mapped, PAGES * mmap.PAGESIZE)  # mapped again for mapped_pages' own unmap

        expect_rejection(lambda: client.dma_unmap(never_mapped), control=unmap_and_map_again,
                         codes=("INVALID_ARGUMENT", "NOT_FOUND", "FAILED_PRECONDITION"), function=UNMAP,
                         what="a page-aligned address that was never DmaMap-ped")
