"""CUSTOM_PARTITIONER: registering batch-partitionable custom calls and custom-call partitioners with the plugin's
SPMD partitioner (its args have no extension_start)."""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions import custom_partitioner as abi
from pjrt_cts.runtime.extensions.calls import c_string, call

if TYPE_CHECKING:
    from pjrt_cts.runtime.plugin import Plugin

_KEEPALIVE: list[object] = []  # callbacks the plugin holds for the rest of the process


def register_batch_partitionable(plugin: "Plugin", name: str) -> None:
    text, size = c_string(name)
    call(plugin, ExtensionType.CUSTOM_PARTITIONER, "register_batch_partitionable",
         abi.PJRT_Register_Batch_Partitionable_Args(name=ctypes.addressof(text), name_size=size))


def register_custom_partitioner(plugin: "Plugin", name: str, destroyed: list[int] | None = None) -> None:
    """register_custom_partitioner with a callbacks table of the header's version whose partitioning hooks are NULL (a
    target registered but never partitioned by the tests). While the call runs, the table's dtor appends to
    `destroyed` (a plugin that calls it then has let the partitioner go); once it returns, the dtor becomes a C
    function that ignores its argument and touches nothing (libc's getpid), because the plugin keeps the table and
    may call the dtor at process exit, after Python's finalization. The table lives as long as the process."""
    sink = destroyed if destroyed is not None else []
    during_call = _DTOR(lambda _table: sink.append(1))
    callbacks = abi.JAX_CustomCallPartitioner_Callbacks(version=abi.CALLBACKS_VERSION,
                                                        dtor=ctypes.cast(during_call, ctypes.c_void_p).value)
    _KEEPALIVE.extend((callbacks, during_call))
    text, size = c_string(name)
    try:
        call(plugin, ExtensionType.CUSTOM_PARTITIONER, "register_custom_partitioner",
             abi.PJRT_Register_Custom_Partitioner_Args(name=ctypes.addressof(text), name_size=size,
                                                       callbacks=ctypes.addressof(callbacks)))
    finally:
        callbacks.dtor = ctypes.cast(ctypes.CDLL(None).getpid, ctypes.c_void_p).value


_DTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
