"""Round trips through real DLPack consumers and producers, with DLManagedTensors built by pjrt_cts.dlpack.

Consumers: numpy.from_dlpack for host memory; cupy or torch for CUDA/ROCm memory (device machine).
The capsule's deleter must release the PJRT external reference exactly once.
"""
from __future__ import annotations

import gc
import time

import numpy as np
import pytest

from pjrt_cts import dlpack
from pjrt_cts.runtime import buffer_type_of
from pjrt_cts.testing import assert_same, expect_rejection, not_applicable, requires, unsupported_if_unimplemented

pytestmark = requires("Buffer_IncreaseExternalReferenceCount", "Buffer_DecreaseExternalReferenceCount",
                      "Buffer_OpaqueDeviceMemoryDataPointer")


VALUES = {
    "f32": np.arange(12, dtype=np.float32).reshape(3, 4) / 3,
    "f64": np.linspace(-2, 2, 6, dtype=np.float64).reshape(2, 3),
    "f16": np.arange(8, dtype=np.float16) * 0.5,
    "s8": np.arange(-4, 4, dtype=np.int8),
    "s32": np.arange(-6, 6, dtype=np.int32).reshape(2, 2, 3),
    "u16": np.arange(65530, 65536, dtype=np.uint16),
    "u8": np.arange(5, dtype=np.uint8),
    "pred": np.array([[True, False], [False, True]]),
    "c64": (np.arange(4) + 1j * np.arange(4)).astype(np.complex64),
}


def _assert_released_once(export: dlpack.ExportedTensor, buffer, what: str) -> None:
    assert export.release_count == 1, f"{what}: the DLPack deleter released the external reference {export.release_count} times, expected once"
    assert not export.errors, f"{what}: PJRT_Buffer_DecreaseExternalReferenceCount in the DLPack deleter failed: {export.errors[0]}"
    assert export.extra_deleter_calls == 0, f"{what}: the consumer called the DLPack deleter {1 + export.extra_deleter_calls} times"
    expect_rejection(buffer.decrease_external_reference_count,
                     control=lambda: (buffer.increase_external_reference_count(),
                                      buffer.decrease_external_reference_count()),
                     function="PJRT_Buffer_DecreaseExternalReferenceCount",
                     what=f"a decrease after {what} released its reference")


@pytest.mark.parametrize("dtype", sorted(VALUES))
def test_consumer_from_dlpack_reads_exported_buffer(client, device, helpers, dtype) -> None:
    values = VALUES[dtype]
    buffer = client.buffer_from_numpy(values, device)
    producer = dlpack.DLPackExporter(buffer)
    seen = helpers.consume_with_framework(producer)
    gc.collect()
    assert_same(seen, values, f"DLPack consumer read different {dtype} values from an exported PJRT buffer")
    assert len(producer.exports) == 1, f"the consumer called __dlpack__ {len(producer.exports)} times"
    _assert_released_once(producer.exports[0], buffer, "a consumer that dropped its array")
    assert_same(buffer.to_numpy(), values, "buffer changed by a DLPack export round trip")


def test_numpy_array_from_dlpack_shares_buffer_memory(client, device) -> None:
    values = VALUES["f32"]
    buffer = client.buffer_from_numpy(values, device)
    if not buffer.is_on_cpu:
        not_applicable("buffer memory is device memory: numpy cannot consume it (covered by the framework consumer test)")
    producer = dlpack.DLPackExporter(buffer)
    array = np.from_dlpack(producer)
    export = producer.exports[0]
    assert array.ctypes.data == export.pointer, (
        f"numpy.from_dlpack array at 0x{array.ctypes.data:x} does not share the exported memory 0x{export.pointer:x}"
    )
    assert export.release_count == 0, "the DLPack deleter ran while numpy still uses the memory"
    assert_same(array, values, "numpy view of an exported PJRT buffer")
    del array
    gc.collect()
    _assert_released_once(export, buffer, "numpy.from_dlpack array")


def test_unconsumed_capsule_releases_reference_once(client, device) -> None:
    buffer = client.buffer_from_numpy(VALUES["s32"], device)
    producer = dlpack.DLPackExporter(buffer)
    capsule = producer.__dlpack__()
    assert producer.exports[0].release_count == 0
    del capsule
    gc.collect()
    _assert_released_once(producer.exports[0], buffer, "an unconsumed DLPack capsule")


@requires("Client_CreateViewOfDeviceBuffer")
def test_framework_producer_round_trip_through_view(client, device, helpers) -> None:
    """producer tensor -> its own DLPack capsule -> CreateViewOfDeviceBuffer -> Execute -> export -> consumer.

    The producer is numpy for host memory and cupy or torch for CUDA/ROCm memory.
    """
    values = np.arange(6, dtype=np.float32).reshape(2, 3) * 2
    producer = helpers.framework_producer(values, helpers.dl_device_of_device(client, device))
    imported = dlpack.ImportedTensor(producer.__dlpack__())
    assert imported.is_row_major, f"producer exported strides {imported.strides} for a fresh row-major tensor"
    releases: list[bool] = []
    with unsupported_if_unimplemented("PJRT_Client_CreateViewOfDeviceBuffer"):
        view = client.create_view_of_device_buffer(
            imported.data, imported.shape, buffer_type_of(imported.dtype), device=device,
            memory=device.default_memory, on_delete=lambda ptr, arg: releases.append(imported.release()))
    exe = client.compile("""
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<2x3xf32>
  %0 = stablehlo.add %a, %c : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}""", device_assignment=[[device.id]])
    result = exe.execute([view])[0]
    back = helpers.consume_with_framework(dlpack.DLPackExporter(result))
    assert_same(back, values + 1, "producer -> DLPack -> PJRT view -> Execute -> DLPack -> consumer: wrong values")
    view.close()
    deadline = time.monotonic() + 5.0  # the callback may run on a plugin thread
    while not releases and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)
    assert releases == [True], (
        f"destroying the view released the producer's DLManagedTensor {len(releases)} times (on_delete_callback calls), expected once"
    )
