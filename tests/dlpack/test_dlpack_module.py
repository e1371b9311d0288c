"""pjrt_cts.dlpack: DLPack struct layouts, dtype mapping, capsules consumed by numpy, the reference protocol."""
from __future__ import annotations

import ctypes
import gc

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts import dlpack


def test_struct_layouts_match_dlpack_abi() -> None:
    assert ctypes.sizeof(dlpack.DLDevice) == 8
    assert ctypes.sizeof(dlpack.DLDataType) == 4
    offsets = {name: getattr(dlpack.DLTensor, name).offset for name, _ in dlpack.DLTensor._fields_}
    assert offsets == {"data": 0, "device": 8, "ndim": 16, "dtype": 20, "shape": 24, "strides": 32, "byte_offset": 40}
    assert ctypes.sizeof(dlpack.DLTensor) == 48
    assert dlpack.DLManagedTensor.manager_ctx.offset == 48
    assert dlpack.DLManagedTensor.deleter.offset == 56
    assert ctypes.sizeof(dlpack.DLManagedTensor) == 64


@pytest.mark.parametrize("dtype, code, bits", [
    (np.bool_, dlpack.DLDataTypeCode.BOOL, 8), (np.int8, dlpack.DLDataTypeCode.INT, 8),
    (np.int64, dlpack.DLDataTypeCode.INT, 64), (np.uint16, dlpack.DLDataTypeCode.UINT, 16),
    (np.float16, dlpack.DLDataTypeCode.FLOAT, 16), (np.float64, dlpack.DLDataTypeCode.FLOAT, 64),
    (np.complex64, dlpack.DLDataTypeCode.COMPLEX, 64), (ml_dtypes.bfloat16, dlpack.DLDataTypeCode.BFLOAT, 16),
])
def test_dtype_mapping_round_trips(dtype, code, bits) -> None:
    dl_type = dlpack.dl_data_type(dtype)
    assert (dl_type.code, dl_type.bits, dl_type.lanes) == (code, bits, 1)
    assert dlpack.numpy_dtype(dl_type) == np.dtype(dtype)


def test_dtype_mapping_rejects_what_dlpack_cannot_express() -> None:
    with pytest.raises(ValueError):
        dlpack.dl_data_type(np.dtype("U4"))
    with pytest.raises(ValueError):
        dlpack.numpy_dtype(dlpack.DLDataType(int(dlpack.DLDataTypeCode.FLOAT), 32, 4))


def _exporter_over(array: np.ndarray, releases: list[int], strides: tuple[int, ...] | None = None) -> dlpack.ManagedTensor:
    return dlpack.ManagedTensor(array.ctypes.data, array.shape, array.dtype, (int(dlpack.DLDeviceType.CPU), 0),
                                on_release=lambda: releases.append(1), strides=strides)


class _Producer:
    def __init__(self, managed: dlpack.ManagedTensor) -> None:
        self.managed = managed

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.managed.device

    def __dlpack__(self, **_: object) -> object:
        return self.managed.capsule()


def test_numpy_consumes_capsule_zero_copy_and_releases_once() -> None:
    source = np.arange(6, dtype=np.float32).reshape(2, 3)
    releases: list[int] = []
    managed = _exporter_over(source, releases)
    array = np.from_dlpack(_Producer(managed))
    assert array.ctypes.data == source.ctypes.data
    np.testing.assert_array_equal(array, source)
    assert releases == []
    del array
    gc.collect()
    assert releases == [1] and managed.release_count == 1 and managed.extra_deleter_calls == 0


def test_strides_in_elements_describe_column_major_memory() -> None:
    logical = np.arange(12, dtype=np.int32).reshape(3, 4)
    storage = np.asfortranarray(logical).ravel(order="K")
    managed = dlpack.ManagedTensor(storage.ctypes.data, (3, 4), np.int32, (int(dlpack.DLDeviceType.CPU), 0), strides=(1, 3))
    array = np.from_dlpack(_Producer(managed))
    np.testing.assert_array_equal(array, logical)


def test_unconsumed_capsule_calls_deleter_once() -> None:
    releases: list[int] = []
    managed = _exporter_over(np.zeros(3, np.uint8), releases)
    capsule = managed.capsule()
    del capsule
    gc.collect()
    assert releases == [1]


def test_repeated_deleter_call_releases_once() -> None:
    releases: list[int] = []
    managed = _exporter_over(np.zeros(3, np.uint8), releases)
    deleter = dlpack.ManagedTensorDeleter(managed.managed.deleter)
    before = dlpack.unknown_deleter_calls
    deleter(managed.address)
    deleter(managed.address)  # a buggy consumer
    assert releases == [1]
    assert dlpack.unknown_deleter_calls == before + 1


def test_deleter_failure_is_recorded_not_raised() -> None:
    def fail() -> None:
        raise RuntimeError("decrease failed")

    managed = dlpack.ManagedTensor(0, (0,), np.float32, (1, 0), on_release=fail)
    dlpack.ManagedTensorDeleter(managed.managed.deleter)(managed.address)
    assert managed.release_count == 1 and managed.errors == ["RuntimeError: decrease failed"]


def test_imported_numpy_capsule_exposes_tensor_and_releases_once() -> None:
    source = np.arange(10, dtype=np.int16).reshape(2, 5)[:, ::2]  # non-contiguous: strides in elements
    capsule = source.__dlpack__()
    imported = dlpack.ImportedTensor(capsule)
    assert imported.shape == (2, 3)
    assert imported.strides == (5, 2)
    assert not imported.is_row_major
    assert imported.dtype == np.int16
    assert imported.device == (int(dlpack.DLDeviceType.CPU), 0)
    assert imported.data == source.ctypes.data
    with pytest.raises(ValueError):
        dlpack.ImportedTensor(capsule)  # renamed "used_dltensor": cannot be consumed twice
    assert imported.release() is True
    assert imported.release() is False


class _FakeBuffer:
    """Duck-typed PJRT buffer that counts external references."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.references = 0
        self.closed = False
        self.is_on_cpu = True
        self.dims = array.shape
        self.dtype = array.dtype
        self.opaque_device_memory_pointer = array.ctypes.data

    def block_until_ready(self) -> "_FakeBuffer":
        return self

    def increase_external_reference_count(self) -> None:
        self.references += 1

    def decrease_external_reference_count(self) -> None:
        if self.references == 0:
            raise RuntimeError("below zero")
        self.references -= 1


def test_exporter_holds_one_reference_per_export_until_released() -> None:
    buffer = _FakeBuffer(np.arange(4, dtype=np.float64))
    producer = dlpack.DLPackExporter(buffer)
    first = np.from_dlpack(producer)
    second = np.from_dlpack(producer)
    assert buffer.references == 2
    np.testing.assert_array_equal(first, buffer.array)
    del first
    gc.collect()
    assert buffer.references == 1
    del second
    gc.collect()
    assert buffer.references == 0
    assert [e.release_count for e in producer.exports] == [1, 1]


def test_exporter_refuses_copy_and_foreign_device() -> None:
    producer = dlpack.DLPackExporter(_FakeBuffer(np.zeros(2, np.float32)))
    with pytest.raises(BufferError):
        producer.__dlpack__(copy=True)
    with pytest.raises(BufferError):
        producer.__dlpack__(dl_device=(int(dlpack.DLDeviceType.CUDA), 0))


def test_export_of_real_plugin_buffer(plugin_0115) -> None:
    with plugin_0115.create_client({"cpu_device_count": 1}) as client:
        values = np.arange(6, dtype=np.float32).reshape(3, 2)
        buffer = client.buffer_from_numpy(values)
        producer = dlpack.DLPackExporter(buffer)
        array = np.from_dlpack(producer)
        np.testing.assert_array_equal(array, values)
        del array
        gc.collect()
        export = producer.exports[0]
        assert export.release_count == 1 and not export.errors
        with pytest.raises(Exception, match="zero reference count"):
            buffer.decrease_external_reference_count()
