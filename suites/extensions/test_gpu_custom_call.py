"""GPU_CUSTOM_CALL (pjrt_c_api_gpu_extension.h): a custom call target registered through the extension is what
the compiler resolves a `stablehlo.custom_call` to, and what runs: an unregistered target is refused, the
registered one compiles, and its handler is called when the program executes. (Typed XLA FFI handlers: the FFI
tests.) The registration's args have struct_size but no extension_start."""
from __future__ import annotations

import ctypes
import os
from typing import Any

import numpy as np

from pjrt_cts.runtime.extensions.gpu_custom_call import UNTYPED, register_custom_call
from pjrt_cts.testing import expect_rejection, requires

pytestmark = requires(extension="GPU_CUSTOM_CALL")
# void handler(stream, void** buffers, const char* opaque, size_t opaque_len): XLA's legacy GPU custom call.
LegacyHandler = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
_CALLS: list[tuple[int, int]] = []  # (stream, buffers) of each call of the handler
_REGISTERED: dict[str, Any] = {}  # target name -> its handler, alive as long as the process (the plugin keeps it)


def _program(target: str) -> str:
    return f"""func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {{
  %0 = stablehlo.custom_call @{target}(%a) {{api_version = 1 : i32, has_side_effect = true}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}}"""


def _registered_target(plugin: Any) -> str:
    """A target registered once per process (a registry entry cannot be removed)."""
    name = f"pjrt_cts_custom_call_{os.getpid()}"
    if name not in _REGISTERED:
        handler = LegacyHandler(lambda stream, buffers, opaque, size: _CALLS.append((stream or 0, buffers or 0)))
        register_custom_call(plugin, name, UNTYPED, ctypes.cast(handler, ctypes.c_void_p).value or 0)
        _REGISTERED[name] = handler
    return name


def test_only_a_registered_target_compiles(plugin: Any, client: Any) -> None:
    target = _registered_target(plugin)
    expect_rejection(lambda: client.compile(_program(f"pjrt_cts_unregistered_{os.getpid()}")),
                     control=lambda: client.compile(_program(target)), function="PJRT_Client_Compile",
                     codes=("UNIMPLEMENTED", "NOT_FOUND", "INVALID_ARGUMENT"),
                     what="a custom_call to a target nobody registered")


def test_registered_handler_runs_with_the_program(plugin: Any, client: Any, device: Any) -> None:
    executable = client.compile(_program(_registered_target(plugin)))
    before = len(_CALLS)
    executable.execute([client.buffer_from_numpy(np.ones(4, np.float32), device)])[0].block_until_ready()
    calls = _CALLS[before:]
    assert calls, "the handler registered with GPU_CUSTOM_CALL.custom_call was not called when its program ran"
    assert all(buffers for _, buffers in calls), "the custom call handler was called with a NULL buffers array"
