"""DLPack (unversioned, "dltensor" capsules) over PJRT buffers: the structs, an exporter and a capsule reader.

DLPack ABI (dlpack.h, x86-64):
    DLDevice        {int32 device_type; int32 device_id}                                   8 B
    DLDataType      {uint8 code; uint8 bits; uint16 lanes}                                 4 B
    DLTensor        {void* data@0; DLDevice device@8; int32 ndim@16; DLDataType dtype@20;
                     int64* shape@24; int64* strides@32 (elements, NULL = row-major); uint64 byte_offset@40}  48 B
    DLManagedTensor {DLTensor dl_tensor@0; void* manager_ctx@48; void (*deleter)(DLManagedTensor*)@56}         64 B
Capsule protocol: a producer returns a PyCapsule named "dltensor" holding a DLManagedTensor*; a consumer
renames it "used_dltensor" and later calls `deleter` exactly once; a capsule destroyed while still named
"dltensor" was never consumed and its destructor calls `deleter`.

Export of a PJRT buffer = PJRT_Buffer_IncreaseExternalReferenceCount + OpaqueDeviceMemoryDataPointer; the
managed tensor's deleter calls DecreaseExternalReferenceCount exactly once.
"""
from __future__ import annotations

import ctypes
import enum
import threading
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

if TYPE_CHECKING:
    from pjrt_cts.runtime.buffer import Buffer

CAPSULE_NAME = b"dltensor"
USED_CAPSULE_NAME = b"used_dltensor"


class DLDeviceType(enum.IntEnum):
    CPU = 1
    CUDA = 2
    CUDA_HOST = 3
    OPENCL = 4
    VULKAN = 7
    METAL = 8
    VPI = 9
    ROCM = 10
    ROCM_HOST = 11
    EXT_DEV = 12
    CUDA_MANAGED = 13
    ONEAPI = 14
    WEBGPU = 15
    HEXAGON = 16


class DLDataTypeCode(enum.IntEnum):
    INT = 0
    UINT = 1
    FLOAT = 2
    OPAQUE_HANDLE = 3
    BFLOAT = 4
    COMPLEX = 5
    BOOL = 6


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.c_void_p),  # int64_t*
        ("strides", ctypes.c_void_p),  # int64_t*, in elements; NULL = compact row-major
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


# void (*deleter)(DLManagedTensor* self)
ManagedTensorDeleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# void (*PyCapsule_Destructor)(PyObject*)
CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

_NUMPY_CODES = {"b": DLDataTypeCode.BOOL, "i": DLDataTypeCode.INT, "u": DLDataTypeCode.UINT,
                "f": DLDataTypeCode.FLOAT, "c": DLDataTypeCode.COMPLEX}


def dl_data_type(dtype: Any) -> DLDataType:
    """The DLDataType of a numpy (or ml_dtypes) dtype; ValueError if DLPack has no code for it."""
    dtype = np.dtype(dtype)
    if dtype.name == "bfloat16":
        return DLDataType(int(DLDataTypeCode.BFLOAT), 16, 1)
    code = _NUMPY_CODES.get(dtype.kind)
    if code is None:
        raise ValueError(f"no DLPack data type for numpy dtype {dtype}")
    return DLDataType(int(code), dtype.itemsize * 8, 1)


def numpy_dtype(dl_type: DLDataType) -> np.dtype:
    """The numpy dtype of a DLDataType (lanes must be 1)."""
    if dl_type.lanes != 1:
        raise ValueError(f"vector DLPack types (lanes={dl_type.lanes}) have no numpy dtype")
    code, bits = DLDataTypeCode(dl_type.code), int(dl_type.bits)
    if code == DLDataTypeCode.BFLOAT and bits == 16:
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    if code == DLDataTypeCode.BOOL and bits == 8:
        return np.dtype(np.bool_)
    kind = {DLDataTypeCode.INT: "i", DLDataTypeCode.UINT: "u", DLDataTypeCode.FLOAT: "f", DLDataTypeCode.COMPLEX: "c"}.get(code)
    if kind is None:
        raise ValueError(f"no numpy dtype for DLPack code {code.name} bits {bits}")
    return np.dtype(f"{kind}{bits // 8}")


# ---- Python C API through ctypes (the GIL is held: pythonapi is a PyDLL) ------------------------------
_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_void_p]
# The destructor gets a dying object: take it as a raw pointer, never as py_object (no new reference).
_is_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(("PyCapsule_IsValid", _api))
_get_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(("PyCapsule_GetPointer", _api))

# Names must outlive every capsule that uses them: module-level C strings.
_CAPSULE_NAME_C = ctypes.create_string_buffer(CAPSULE_NAME)
_USED_NAME_C = ctypes.create_string_buffer(USED_CAPSULE_NAME)


class ManagedTensor:
    """One DLManagedTensor over `pointer`; `on_release()` runs when its deleter is first called.

    `release_count` counts deleter calls that released (must end at 1); `extra_deleter_calls` counts
    repeated calls; `errors` records failures inside the deleter (a C callback cannot raise).
    """

    def __init__(self, pointer: int, shape: tuple[int, ...], dtype: Any, device: tuple[int, int],
                 on_release: Callable[[], None] | None = None, strides: tuple[int, ...] | None = None) -> None:
        self.pointer = int(pointer)
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.device = (int(device[0]), int(device[1]))
        self._on_release = on_release
        self._lock = threading.Lock()
        self.release_count = 0
        self.extra_deleter_calls = 0
        self.errors: list[str] = []
        self._shape = (ctypes.c_int64 * max(1, len(self.shape)))(*self.shape)
        self._strides = (ctypes.c_int64 * max(1, len(strides)))(*strides) if strides is not None else None
        self.managed = DLManagedTensor()
        tensor = self.managed.dl_tensor
        tensor.data = self.pointer
        tensor.device = DLDevice(*self.device)
        tensor.ndim = len(self.shape)
        tensor.dtype = dl_data_type(self.dtype)
        tensor.shape = ctypes.addressof(self._shape)
        tensor.strides = ctypes.addressof(self._strides) if self._strides is not None else None
        tensor.byte_offset = 0
        self.address = ctypes.addressof(self.managed)
        self.managed.manager_ctx = self.address
        self.managed.deleter = ctypes.cast(_DELETER, ctypes.c_void_p)
        with _registry_lock:
            _registry[self.address] = self

    @property
    def released(self) -> bool:
        return self.release_count > 0

    def _delete(self) -> None:
        with self._lock:
            if self.release_count:
                self.extra_deleter_calls += 1
                return
            self.release_count += 1
        if self._on_release is not None:
            try:
                self._on_release()
            except Exception as exc:  # noqa: BLE001 - recorded: the deleter is a C callback and cannot raise
                self.errors.append(f"{type(exc).__name__}: {exc}")

    def capsule(self) -> Any:
        """A new PyCapsule named "dltensor" over this managed tensor (one consumer may take it)."""
        return _api.PyCapsule_New(self.address, ctypes.addressof(_CAPSULE_NAME_C), ctypes.cast(_CAPSULE_DESTRUCTOR, ctypes.c_void_p))


class ExportedTensor(ManagedTensor):
    """A PJRT buffer exported as a DLManagedTensor: holds exactly one external reference until the deleter runs."""

    def __init__(self, buffer: "Buffer", device: tuple[int, int] | None = None) -> None:
        self.buffer = buffer  # keeps the PJRT buffer alive while referenced
        buffer.block_until_ready()  # consumers read the memory at once: the data must be there
        buffer.increase_external_reference_count()
        try:
            pointer = buffer.opaque_device_memory_pointer
            shape, dtype = buffer.dims, buffer.dtype
            device = device if device is not None else dl_device_of(buffer)
        except BaseException:
            buffer.decrease_external_reference_count()
            raise
        super().__init__(pointer, shape, dtype, device, on_release=self._release_reference)

    def _release_reference(self) -> None:
        if self.buffer.closed:
            raise RuntimeError("buffer was destroyed before the DLPack deleter ran; reference not released")
        self.buffer.decrease_external_reference_count()


_registry: dict[int, ManagedTensor] = {}
_registry_lock = threading.Lock()
unknown_deleter_calls = 0  # deleter calls for a tensor that was already released or never exported here


def _managed_tensor_deleter(address: int | None) -> None:
    global unknown_deleter_calls
    with _registry_lock:
        export = _registry.pop(int(address or 0), None)
    if export is None:
        unknown_deleter_calls += 1
        return
    export._delete()


def _capsule_destructor(capsule: int | None) -> None:
    # Still named "dltensor": nobody consumed it, so the producer must call the deleter.
    if capsule and _is_valid_raw(capsule, ctypes.addressof(_CAPSULE_NAME_C)):
        address = _get_pointer_raw(capsule, ctypes.addressof(_CAPSULE_NAME_C))
        if address:
            _managed_tensor_deleter(address)


_DELETER = ManagedTensorDeleter(_managed_tensor_deleter)  # module lifetime: consumers call it any time
_CAPSULE_DESTRUCTOR = CapsuleDestructor(_capsule_destructor)


def dl_device_of(buffer: "Buffer") -> tuple[int, int]:
    """(DLDeviceType, device_id) for a PJRT buffer: host memory is kDLCPU; CUDA/ROCm use the local hardware id."""
    if buffer.is_on_cpu:
        return int(DLDeviceType.CPU), 0
    platform = buffer.client.platform_name.lower()
    device_type = {"cuda": DLDeviceType.CUDA, "gpu": DLDeviceType.CUDA, "rocm": DLDeviceType.ROCM}.get(platform)
    if device_type is None:
        raise ValueError(f"no DLPack device type for PJRT platform {platform!r} memory that is not host memory")
    return int(device_type), int(buffer.device.local_hardware_id)


class DLPackExporter:
    """A DLPack producer over a PJRT buffer: `numpy.from_dlpack(DLPackExporter(buffer))`.

    Every `__dlpack__` call exports anew (one external reference per capsule); `exports` lists them.
    """

    def __init__(self, buffer: "Buffer", device: tuple[int, int] | None = None) -> None:
        self.buffer = buffer
        self.device = device if device is not None else dl_device_of(buffer)
        self.exports: list[ExportedTensor] = []

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None, copy: Any = None) -> Any:
        # Unversioned capsules are what this producer makes; consumers asking for max_version accept them.
        if copy:
            raise BufferError("this DLPack producer shares memory; copy=True is not supported")
        if dl_device is not None and tuple(dl_device) != tuple(self.device):
            raise BufferError(f"cannot export to DLPack device {tuple(dl_device)}; the buffer is on {self.device}")
        export = ExportedTensor(self.buffer, self.device)
        self.exports.append(export)
        return export.capsule()


class PointerExporter:
    """A DLPack producer over raw memory (no ownership): lets a framework read memory behind a pointer."""

    def __init__(self, pointer: int, shape: tuple[int, ...], dtype: Any, device: tuple[int, int]) -> None:
        self.pointer, self.shape, self.dtype, self.device = pointer, tuple(shape), np.dtype(dtype), tuple(device)
        self.exports: list[ManagedTensor] = []

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device  # type: ignore[return-value]  # the device is a (type, id) pair built by the caller

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None, copy: Any = None) -> Any:
        if copy:
            raise BufferError("this DLPack producer shares memory; copy=True is not supported")
        export = ManagedTensor(self.pointer, self.shape, self.dtype, self.device)  # type: ignore[arg-type]  # shape and device were validated when the tensor was wrapped
        self.exports.append(export)
        return export.capsule()


# ---- consuming a capsule from another producer ----------------------------------------------------------
class ImportedTensor:
    """A DLManagedTensor taken from a "dltensor" capsule (renamed "used_dltensor"); call release() once."""

    def __init__(self, capsule: Any) -> None:
        if not _api.PyCapsule_IsValid(capsule, CAPSULE_NAME):
            raise ValueError('not an unconsumed "dltensor" capsule (already used, or a versioned capsule)')
        self.address = int(_api.PyCapsule_GetPointer(capsule, CAPSULE_NAME))
        if _api.PyCapsule_SetName(capsule, ctypes.addressof(_USED_NAME_C)) != 0:
            raise RuntimeError("PyCapsule_SetName failed")
        self.managed = DLManagedTensor.from_address(self.address)
        tensor = self.managed.dl_tensor
        self.data = int(tensor.data or 0) + int(tensor.byte_offset)
        self.device = (int(tensor.device.device_type), int(tensor.device.device_id))
        self.dtype = numpy_dtype(tensor.dtype)
        ndim = int(tensor.ndim)
        self.shape = tuple((ctypes.c_int64 * ndim).from_address(tensor.shape)) if ndim else ()
        self.strides = tuple((ctypes.c_int64 * ndim).from_address(tensor.strides)) if ndim and tensor.strides else None
        self._released = False
        self._lock = threading.Lock()

    @property
    def is_row_major(self) -> bool:
        if self.strides is None:
            return True
        expected, step = [], 1
        for dim in reversed(self.shape):
            expected.append(step)
            step *= dim
        return all(s == e or d == 1 for s, e, d in zip(self.strides, reversed(expected), self.shape))

    def release(self) -> bool:
        """Call the producer's deleter exactly once; False if it was already called."""
        with self._lock:
            if self._released:
                return False
            self._released = True
        deleter = self.managed.deleter
        if deleter:
            ManagedTensorDeleter(deleter)(self.address)
        return True
