"""DLPack import primitive: PJRT_Client_CreateViewOfDeviceBuffer.

Contract: the view is zero-copy over the caller's memory (host array on host-memory platforms, or a device
allocation), has the given dims/element type/layout, and on_delete_callback(ptr, user_arg) runs exactly once
when the view is deleted or destroyed. "Not required on all hardware platforms": UNIMPLEMENTED is NOT_SUPPORTED.
"""
from __future__ import annotations

import numpy as np
import pytest

from pjrt_cts.runtime import MemoryLayout, PjrtError, buffer_type_of
from pjrt_cts.testing import assert_same, optional_input, refuse_or_succeed, requires, unsupported_if_unimplemented

VIEW = "PJRT_Client_CreateViewOfDeviceBuffer"
pytestmark = requires("Client_CreateViewOfDeviceBuffer")


CASES = {
    "f32_3x4": np.arange(12, dtype=np.float32).reshape(3, 4) * 0.5,
    "s32_2x3x2": np.arange(-6, 6, dtype=np.int32).reshape(2, 3, 2),
    "u8_17": np.arange(17, dtype=np.uint8),
    "f64_scalar": np.array(3.25, dtype=np.float64),
    "s64_1x5": np.arange(5, dtype=np.int64).reshape(1, 5) * -(2**40),
}


def _view(client, pointer, shape, dtype, device, **kwargs):
    # Always pass a callback: the XLA CPU plugins abort (std::bad_function_call) destroying a view without one.
    kwargs.setdefault("on_delete", lambda pointer, user_arg: None)
    with unsupported_if_unimplemented(VIEW):
        return client.create_view_of_device_buffer(pointer, shape, buffer_type_of(np.dtype(dtype)), device=device,
                                                   memory=device.default_memory, **kwargs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_view_of_host_array_is_zero_copy(client, host_memory_device, helpers, case) -> None:
    host = helpers.aligned_array(CASES[case])
    view = _view(client, host.ctypes.data, host.shape, host.dtype, host_memory_device)
    assert view.dims == host.shape, f"view dims {view.dims}, CreateViewOfDeviceBuffer was given {host.shape}"
    assert view.dtype == host.dtype, f"view element type {view.element_type!r}, given {buffer_type_of(host.dtype)!r}"
    assert view.opaque_device_memory_pointer == host.ctypes.data, (
        f"view's OpaqueDeviceMemoryDataPointer 0x{view.opaque_device_memory_pointer:x} is not the viewed memory 0x{host.ctypes.data:x}"
    )
    assert_same(view.to_numpy(), host, f"PJRT_Buffer_ToHostBuffer of a view of {case}")
    host.reshape(-1)[0] = host.reshape(-1)[-1] + 1  # zero copy: the view sees the write
    assert_same(view.to_numpy(), host,
                                  "view of host memory does not see a later write to that memory: CreateViewOfDeviceBuffer copied")
    view.close()


def test_view_of_device_allocation_is_zero_copy(client, device, on_delete_recorder) -> None:
    """A view of another buffer's exported device memory: same bytes, usable by Execute, callback on destroy."""
    values = np.arange(8, dtype=np.float32) + 0.25
    # A view made without a stream is ready at once: the owner's transfer must be complete before its memory is
    # viewed (nothing in the C API orders the two; on CUDA the view read zeros).
    owner = client.buffer_from_numpy(values, device).block_until_ready()
    owner.increase_external_reference_count()
    try:
        pointer = owner.opaque_device_memory_pointer
        view = _view(client, pointer, values.shape, values.dtype, device, on_delete=on_delete_recorder, on_delete_arg=42)
        assert view.opaque_device_memory_pointer == pointer, (
            f"view's OpaqueDeviceMemoryDataPointer 0x{view.opaque_device_memory_pointer:x} is not the viewed allocation 0x{pointer:x}"
        )
        assert_same(view.to_numpy(), values, "view of a device allocation reads different values")
        exe = client.compile("""
func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<8xf32>
  return %0 : tensor<8xf32>
}""", device_assignment=[[device.id]])
        assert_same(exe.execute([view])[0].to_numpy(), values * values,
                                      "Execute with a view of a device allocation as argument: wrong result")
        assert on_delete_recorder.count == 0, "on_delete_callback ran while the view was alive"
        view.close()
        assert on_delete_recorder.wait_for(1) == 1, (
            f"on_delete_callback of a destroyed view ran {on_delete_recorder.count} times, expected exactly once"
        )
        assert_same(owner.to_numpy(), values, "destroying a view changed the viewed allocation")
    finally:
        owner.decrease_external_reference_count()


def test_view_on_delete_callback_runs_exactly_once_on_destroy(client, host_memory_device, helpers, on_delete_recorder) -> None:
    host = helpers.aligned_array(np.arange(16, dtype=np.float32))
    view = _view(client, host.ctypes.data, host.shape, host.dtype, host_memory_device, on_delete=on_delete_recorder, on_delete_arg=0x5EED)
    view.to_numpy()
    assert on_delete_recorder.count == 0, "on_delete_callback ran before the view was deleted"
    view.close()
    assert on_delete_recorder.wait_for(1) == 1, (
        f"PJRT_Buffer_Destroy of a view: on_delete_callback ran {on_delete_recorder.count} times, expected exactly once"
    )
    assert on_delete_recorder.calls[0] == (host.ctypes.data, 0x5EED), (
        f"on_delete_callback got (0x{on_delete_recorder.calls[0][0]:x}, {on_delete_recorder.calls[0][1]:#x}); "
        f"expected (device_buffer_ptr 0x{host.ctypes.data:x}, on_delete_callback_arg 0x5eed)"
    )


def test_view_on_delete_callback_runs_once_after_delete_then_destroy(client, host_memory_device, helpers, on_delete_recorder) -> None:
    host = helpers.aligned_array(np.arange(16, dtype=np.float32))
    view = _view(client, host.ctypes.data, host.shape, host.dtype, host_memory_device, on_delete=on_delete_recorder, on_delete_arg=7)
    view.delete()
    assert view.is_deleted, "PJRT_Buffer_IsDeleted is false after PJRT_Buffer_Delete of a view"
    view.close()
    assert on_delete_recorder.wait_for(1) == 1, (
        f"PJRT_Buffer_Delete then PJRT_Buffer_Destroy of a view: on_delete_callback ran {on_delete_recorder.count} times, expected exactly once"
    )


def test_view_honours_column_major_tiled_layout(client, host_memory_device, helpers) -> None:
    logical = np.arange(12, dtype=np.float32).reshape(3, 4)
    storage = helpers.aligned_array(np.asfortranarray(logical).ravel(order="K"))  # column-major bytes
    view = _view(client, storage.ctypes.data, logical.shape, logical.dtype, host_memory_device, layout=MemoryLayout.tiled([0, 1]))
    assert_same(
        view.to_numpy(minor_to_major=[1, 0]), logical,
        "view created with minor_to_major=[0,1] (column-major) read back row-major does not give the logical array",
    )


def test_view_honours_byte_strides_layout(client, host_memory_device, helpers) -> None:
    logical = np.arange(12, dtype=np.float32).reshape(3, 4)
    storage = helpers.aligned_array(np.asfortranarray(logical).ravel(order="K"))
    with optional_input(VIEW, "a Strides layout"):  # the XLA plugins take Tiled layouts only
        view = _view(client, storage.ctypes.data, logical.shape, logical.dtype, host_memory_device,
                     layout=MemoryLayout.strides([4, 12]))
    assert_same(view.to_numpy(minor_to_major=[1, 0]), logical,
                                  "view created with byte_strides [4, 12] does not read as the logical array")


def test_program_on_column_major_view_computes_on_logical_values(client, host_memory_device, helpers) -> None:
    """Execute must relayout (or reject) an argument whose layout differs from the parameter's, never misread it."""
    logical = np.arange(12, dtype=np.float32).reshape(3, 4)
    storage = helpers.aligned_array(np.asfortranarray(logical).ravel(order="K"))
    view = _view(client, storage.ctypes.data, logical.shape, logical.dtype, host_memory_device, layout=MemoryLayout.tiled([0, 1]))
    exe = client.compile("""
func.func @main(%a: tensor<3x4xf32>) -> tensor<3xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %w = stablehlo.constant dense<[1.0, 10.0, 100.0, 1000.0]> : tensor<4xf32>
  %b = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>
  %m = stablehlo.multiply %a, %b : tensor<3x4xf32>
  %0 = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}""", device_assignment=[[host_memory_device.id]])
    expected = (logical * np.array([1, 10, 100, 1000], np.float32)).sum(axis=1)

    def compute() -> np.ndarray:
        with unsupported_if_unimplemented("PJRT_LoadedExecutable_Execute"):
            return exe.execute([view])[0].to_numpy()

    def check(result: np.ndarray) -> None:
        assert_same(result, expected,
                    "Execute on a column-major view (minor_to_major=[0,1]) computed on misread values: layout ignored")

    def control(error: PjrtError) -> None:  # the same program runs on a row-major view
        row_major = helpers.aligned_array(logical)
        control = _view(client, row_major.ctypes.data, logical.shape, logical.dtype, host_memory_device)
        assert_same(exe.execute([control])[0].to_numpy(), expected,
                    f"the control (a row-major view) of a rejected column-major view ({error.code}: {error.message})")
        control.close()

    # Rejecting the layout is the other answer the clause allows.
    refuse_or_succeed(compute, check=check, on_refusal=control, function="PJRT_LoadedExecutable_Execute",
                      what="on a column-major view")
