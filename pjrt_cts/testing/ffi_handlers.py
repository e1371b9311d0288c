"""The suite's XLA FFI handlers (pjrt_cts/native/ffi_handlers.c), the user data they read, and the StableHLO
programs that call them through `stablehlo.custom_call` with `api_version = 4` (typed FFI).

    handlers = ffi_handlers()                        # compiled on first use against jaxlib's XLA FFI C header
    register_handler(plugin, client, AFFINE)         # FFI.register_handler once per process, for the platform
    client.compile(affine_program((8,)))             # y = 2 x + 1
    datum = Datum.holding(4.5)                       # user data: FfiExtension.add_user_data(..., datum.address)

Where the test machine has no C compiler or no jaxlib headers, or the handlers do not compile against the headers
it has, `ffi_handlers()` is a SKIP "test environment" naming what is missing or the compiler's first errors (never a
silent pass; on a level's mandatory test the verdict is then INCOMPLETE). Handlers move data in host memory (no FFI stream: XLA:CPU) or
through the CUDA driver on the execution's stream; other platforms are a SKIP "test environment" too.
"""
from __future__ import annotations

import ctypes
import functools
import importlib.util
import uuid
from pathlib import Path
from typing import Any

from pjrt_cts.native import NativeBuildError, build_shared_library, find_compiler
from pjrt_cts.testing.requirements import environment_lacks

SOURCE_NAME = "ffi_handlers"
HEADER = Path("xla") / "ffi" / "api" / "c_api.h"  # relative to jaxlib/include
HANDLER_PLATFORMS = ("cpu", "cuda")  # where the handlers know how to reach buffer memory

# Custom-call targets and the exported C function of each.
AFFINE = "pjrt_cts_affine"  # y = 2 x + 1 on f32
USER_DATA = "pjrt_cts_user_data"  # result filled with the context's Datum value
UNSUPPORTED_VERSION = "pjrt_cts_unsupported_version"  # declares XLA FFI API 99.0: registration must fail
NEVER_REGISTERED = "pjrt_cts_never_registered"  # no process ever registers it
_SYMBOLS = {AFFINE: "pjrt_cts_ffi_affine", USER_DATA: "pjrt_cts_ffi_user_data",
            UNSUPPORTED_VERSION: "pjrt_cts_ffi_unsupported_version"}
DATUM_TYPE_NAME = "pjrt_cts.datum"

_registered: set[tuple[int, str, str]] = set()  # (plugin API address, target, platform) registered in this process
_datum_type_ids: dict[int, int] = {}  # plugin API address -> the id type_register gave DATUM_TYPE_NAME


def jaxlib_include_dir() -> Path | None:
    """jaxlib's `include` directory when it ships the XLA FFI C header, else None."""
    spec = importlib.util.find_spec("jaxlib")
    for root in (spec.submodule_search_locations or []) if spec else []:
        if (Path(root) / "include" / HEADER).is_file():
            return Path(root) / "include"
    return None


class Handlers:
    """The compiled handler library, loaded in this process (the plugin under test calls into it)."""

    def __init__(self, library: ctypes.CDLL) -> None:
        self.library = library
        self.library.pjrt_cts_ffi_datum_magic.restype = ctypes.c_uint64

    def address(self, target: str) -> int:
        """The XLA_FFI_Handler* of a custom-call target."""
        return _address(getattr(self.library, _SYMBOLS[target]))

    @property
    def deleter(self) -> int:
        """The user-data deleter that counts its calls in the Datum."""
        return _address(self.library.pjrt_cts_ffi_count_deletion)

    @property
    def datum_magic(self) -> int:
        return int(self.library.pjrt_cts_ffi_datum_magic())


@functools.lru_cache(maxsize=1)
def _load() -> Handlers | str:
    """The handlers, or why the test machine cannot build them."""
    include = jaxlib_include_dir()
    if include is None:
        return f"the XLA FFI C header ({HEADER}) that jaxlib ships is not installed (pip install jaxlib)"
    if find_compiler() is None:
        return "no C compiler (set CC or install gcc)"
    try:
        library = build_shared_library(SOURCE_NAME, include_dirs=[include])
    except NativeBuildError as exc:  # the suite's handler source against these headers: not the plugin's doing
        return f"{exc} (headers: {include})"
    return Handlers(ctypes.CDLL(str(library)))


def ffi_handlers() -> Handlers:
    """The handler library; SKIP "test environment" without a C compiler or jaxlib's FFI header, or when the
    handlers do not compile against that header (the message names the compiler's first errors)."""
    __tracebackhide__ = True
    loaded = _load()
    if isinstance(loaded, str):
        environment_lacks(f"the FFI handler tests build a C handler at run time: {loaded}")
    return loaded


def require_handler_platform(platform: str) -> None:
    """SKIP "test environment" on a platform whose buffers the suite's handlers cannot reach."""
    __tracebackhide__ = True
    if platform not in HANDLER_PLATFORMS:
        environment_lacks(f"the suite's FFI handlers reach buffers in host memory (cpu) or through the CUDA driver "
                          f"(cuda); platform {platform!r} would need a handler of its own")


def register_handler(ffi: Any, platform: str, target: str) -> None:
    """FFI.register_handler of `target` for `platform`, once per process (the registry is the process's)."""
    key = (ffi.plugin.api_address, target, platform)
    if key not in _registered:
        ffi.register_handler(target, ffi_handlers().address(target), platform)
        _registered.add(key)


def datum_type_id(ffi: Any) -> int:
    """The type id of the Datum user data, registered once per plugin table in this process. A name registers once
    per registry, and two tables may share one (a proxy and the plugin it wraps): each table gets a name of its own."""
    key = ffi.plugin.api_address
    if key not in _datum_type_ids:
        _datum_type_ids[key] = ffi.register_type(f"{DATUM_TYPE_NAME}.{uuid.uuid4().hex}")
    return _datum_type_ids[key]


class Datum(ctypes.Structure):
    """The user data the handlers read (pjrt_cts_datum in ffi_handlers.c)."""

    _fields_ = [
        ("magic", ctypes.c_uint64),
        ("value", ctypes.c_float),
        ("deleter_calls", ctypes.c_int32),
        ("handler_calls", ctypes.c_int32),
        ("deleter_calls_at_read", ctypes.c_int32),  # > 0: the handler read a context its caller had destroyed
    ]

    @classmethod
    def holding(cls, value: float) -> "Datum":
        return cls(magic=ffi_handlers().datum_magic, value=value)

    @property
    def address(self) -> int:
        return ctypes.addressof(self)


# ---- programs -------------------------------------------------------------------------------------------------


def _tensor(shape: tuple[int, ...]) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}f32>"


def _custom_call(target: str, operands: str, signature: str, attributes: str = "") -> str:
    return (f"stablehlo.custom_call @{target}({operands}) {{api_version = 4 : i32, backend_config = {{{attributes}}}}} "
            f": {signature}")


def affine_program(shape: tuple[int, ...], target: str = AFFINE) -> str:
    """main(x: f32[shape]) -> custom_call @target(x): the handler's y = 2 x + 1."""
    t = _tensor(shape)
    call = _custom_call(target, "%x", f"({t}) -> {t}")
    return (f"module @pjrt_cts_ffi_{target} {{\n  func.func public @main(%x: {t}) -> {t} {{\n"
            f"    %0 = {call}\n    return %0 : {t}\n  }}\n}}\n")


def user_data_program(type_id: int, elements: int, delay_ms: int = 0) -> str:
    """main(x: f32[elements]) -> custom_call @pjrt_cts_user_data() + x: the Datum's value where x is 0. The handler
    sleeps `delay_ms` before it reads the context."""
    t = _tensor((elements,))
    call = _custom_call(USER_DATA, "", f"() -> {t}", f"delay_ms = {delay_ms} : i64, type_id = {type_id} : i64")
    return (f"module @pjrt_cts_ffi_user_data {{\n  func.func public @main(%x: {t}) -> {t} {{\n"
            f"    %0 = {call}\n    %1 = stablehlo.add %0, %x : {t}\n    return %1 : {t}\n  }}\n}}\n")


def _address(symbol: Any) -> int:
    return int(ctypes.cast(symbol, ctypes.c_void_p).value or 0)
