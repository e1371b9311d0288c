"""The FFI extension end to end on the real CPU plugins: its ctypes layout, the runtime's ExecuteContext and
FfiExtension, the suite's handlers built at run time (pjrt_cts/native/ffi_handlers.c) and the programs calling them."""
from __future__ import annotations

import ctypes
import shutil
import uuid
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from pjrt_cts import native
from pjrt_cts.native import elf
from pjrt_cts.abi.extensions import ffi as abi
from pjrt_cts.runtime import Client, ExecuteContext, ExtensionType, FfiExtension, Plugin, PjrtError
from pjrt_cts.runtime.hooks import CallHook
from pjrt_cts.testing import ffi_handlers
from pjrt_cts.testing.ffi_handlers import (AFFINE, USER_DATA, Datum, affine_program, datum_type_id,
                                          jaxlib_include_dir, register_handler, user_data_program)

needs_handlers = pytest.mark.skipif(jaxlib_include_dir() is None or native.find_compiler() is None,
                                    reason="needs jaxlib's xla/ffi/api/c_api.h and a C compiler")


def test_layout_is_the_headers() -> None:
    """Offsets and PJRT_STRUCT_SIZEs of xla/pjrt/c/pjrt_c_api_ffi_extension.h (openxla/xla 2c8308ee)."""
    offsets = {name: [(field[0], getattr(cls, field[0]).offset) for field in cls._fields_]
               for name, cls in (("register", abi.PJRT_FFI_Type_Register_Args), ("add", abi.PJRT_FFI_UserData_Add_Args),
                                 ("handler", abi.PJRT_FFI_Register_Handler_Args))}
    assert offsets["register"] == [("struct_size", 0), ("extension_start", 8), ("type_name", 16),
                                   ("type_name_size", 24), ("type_id", 32), ("type_info", 40)]
    assert offsets["add"] == [("struct_size", 0), ("extension_start", 8), ("context", 16), ("user_data", 24)]
    assert offsets["handler"] == [("struct_size", 0), ("target_name", 8), ("target_name_size", 16), ("handler", 24),
                                  ("platform_name", 32), ("platform_name_size", 40), ("traits", 48)]
    assert (abi.PJRT_FFI_Type_Register_Args.STRUCT_SIZE, abi.PJRT_FFI_UserData_Add_Args.STRUCT_SIZE,
            abi.PJRT_FFI_Register_Handler_Args.STRUCT_SIZE) == (48, 48, 52)
    assert ctypes.sizeof(abi.PJRT_FFI_UserData) == ctypes.sizeof(abi.PJRT_FFI_Type_Info) == 24
    assert (abi.TYPE_REGISTER_OFFSET, abi.USER_DATA_ADD_OFFSET, abi.REGISTER_HANDLER_OFFSET) == (24, 32, 40)


def test_both_plugins_advertise_the_whole_extension(any_plugin: Plugin) -> None:
    info = any_plugin.find_extension(ExtensionType.FFI)
    assert info is not None and info.struct_size == abi.EXTENSION_STRUCT_SIZE


class _Names(CallHook):
    def __init__(self) -> None:
        self.names: list[str] = []

    def slot_function(self, plugin: Plugin, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        self.names.append(name)
        return function


def test_context_and_user_data_calls_go_through_the_call_hooks(plugin_0115: Plugin) -> None:
    hook = _Names()
    Plugin.add_call_hook(hook)
    try:
        ffi = FfiExtension(plugin_0115)
        payload = ctypes.c_int64(3)
        with ExecuteContext.create(plugin_0115) as context:
            ffi.add_user_data(context, ffi.register_type(f"pjrt_cts.test.{uuid.uuid4().hex}"), ctypes.addressof(payload))
    finally:
        Plugin.remove_call_hook(hook)
    assert hook.names == ["ExecuteContext_Create", "FFI.type_register", "FFI.user_data_add", "ExecuteContext_Destroy"]


def test_user_data_add_errors_name_the_extension_function(plugin_0115: Plugin) -> None:
    with pytest.raises(PjrtError) as caught:
        FfiExtension(plugin_0115).add_user_data(None, 1, 0)
    assert (caught.value.function, caught.value.code) == ("FFI.user_data_add", "INVALID_ARGUMENT")


def test_execute_takes_a_context(any_client: Client) -> None:
    add = "func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.add %a, %a : tensor<4xf32>\n" \
          "  return %0 : tensor<4xf32>\n}\n"
    with any_client.compile(add) as executable, ExecuteContext.create(any_client.plugin) as context:
        x = any_client.buffer_from_numpy(np.arange(4, dtype=np.float32))
        np.testing.assert_array_equal(executable.execute([x], context=context)[0].to_numpy(), [0, 2, 4, 6])


@needs_handlers
def test_handler_library_builds_once_per_header_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PJRT_CTS_CACHE_DIR", str(tmp_path / "cache"))
    include = jaxlib_include_dir()
    assert include is not None
    first = native.build_shared_library("ffi_handlers", include_dirs=[include])
    assert native.build_shared_library("ffi_handlers", include_dirs=[include]) == first
    edited = tmp_path / "include"
    shutil.copytree(include, edited)
    header = edited / ffi_handlers.HEADER
    header.write_text(header.read_text() + "\n/* another version */\n")
    assert native.build_shared_library("ffi_handlers", include_dirs=[edited]) != first


@needs_handlers
def test_handlers_compute_and_read_user_data_on_both_plugins(any_client: Client) -> None:
    plugin = any_client.plugin
    ffi = FfiExtension(plugin)
    for target in (AFFINE, USER_DATA):
        register_handler(ffi, any_client.platform_name, target)
    x = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    with any_client.compile(affine_program((2, 3))) as executable:
        y = executable.execute([any_client.buffer_from_numpy(x)])[0].to_numpy()
    np.testing.assert_array_equal(y, 2 * x + 1)
    type_id = datum_type_id(ffi)
    datum = Datum.holding(1.5)
    with any_client.compile(user_data_program(type_id, 4)) as executable, ExecuteContext.create(plugin) as context:
        ffi.add_user_data(context, type_id, datum.address, ffi_handlers.ffi_handlers().deleter)
        out = executable.execute([any_client.buffer_from_numpy(np.ones(4, np.float32))], context=context)[0]
        np.testing.assert_array_equal(out.to_numpy(), [2.5] * 4)
    assert (datum.handler_calls, datum.deleter_calls_at_read) == (1, 0)


def test_programs_name_their_target_and_attributes() -> None:
    assert "@pjrt_cts_affine(%x)" in affine_program((8,))
    assert "tensor<3x5xf32>" in affine_program((3, 5))
    text = user_data_program(7, 16, delay_ms=200)
    assert "backend_config = {delay_ms = 200 : i64, type_id = 7 : i64}" in text and "tensor<16xf32>" in text


def _as_ffi_api_0_4(header: Path) -> None:
    """Rewrite a 0.3 c_api.h with the names XLA FFI API 0.4 (jaxlib 0.11) gave the same structs and slots."""
    text = header.read_text()
    for old, new in (("XLA_FFI_Extension_Base", "XLA_FFI_InternalExtension"),
                     ("XLA_FFI_ExecutionContext_Get", "XLA_FFI_InvokeContext_Get"),
                     ("#define XLA_FFI_API_MINOR 3", "#define XLA_FFI_API_MINOR 4")):
        text = text.replace(old, new)
    header.write_text(text)


@needs_handlers
def test_handler_library_builds_against_the_ffi_api_0_4_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """jaxlib 0.11's header renamed XLA_FFI_Extension_Base and XLA_FFI_ExecutionContext_Get; the handlers build
    against either naming (the 0.3 header of the local jaxlib, and that header with the 0.4 names)."""
    monkeypatch.setenv("PJRT_CTS_CACHE_DIR", str(tmp_path / "cache"))
    include = jaxlib_include_dir()
    assert include is not None
    if "XLA_FFI_Extension_Base" not in (include / ffi_handlers.HEADER).read_text():
        pytest.skip(f"the installed jaxlib's {ffi_handlers.HEADER} already has the 0.4 names")
    renamed = tmp_path / "include"
    shutil.copytree(include, renamed)
    _as_ffi_api_0_4(renamed / ffi_handlers.HEADER)
    library = native.build_shared_library("ffi_handlers", include_dirs=[renamed])
    assert {"pjrt_cts_ffi_affine", "pjrt_cts_ffi_user_data"} <= elf.defined_dynamic_symbols(library)


@needs_handlers
def test_handlers_that_do_not_compile_are_a_test_environment_skip_naming_the_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PJRT_CTS_CACHE_DIR", str(tmp_path / "cache"))
    broken = tmp_path / "include"
    (broken / ffi_handlers.HEADER).parent.mkdir(parents=True)
    (broken / ffi_handlers.HEADER).write_text("#error this XLA FFI header is broken\n")
    monkeypatch.setattr(ffi_handlers, "jaxlib_include_dir", lambda: broken)
    ffi_handlers._load.cache_clear()
    try:
        with pytest.raises(pytest.skip.Exception) as skipped:
            ffi_handlers.ffi_handlers()
        # The compiler's first error comes first (a cut message still says why); no temporary file names, so two
        # observations of the same failure read the same.
        assert skipped.value.msg.startswith("test environment: the FFI handler tests build a C handler at run time: "
                                            "building libffi_handlers.so failed: ")
        assert "error: #error this XLA FFI header is broken" in skipped.value.msg.split("(compiler exit status")[0]
        assert ".tmp" not in skipped.value.msg
    finally:
        ffi_handlers._load.cache_clear()
