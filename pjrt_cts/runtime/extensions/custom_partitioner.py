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


def register_custom_partitioner(plugin: "Plugin", name: str) -> None:
    """register_custom_partitioner with a callbacks table of the header's version whose hooks are all NULL (a
    target registered but never partitioned by the tests); the table lives as long as the process."""
    callbacks = abi.JAX_CustomCallPartitioner_Callbacks(version=abi.CALLBACKS_VERSION)
    _KEEPALIVE.append(callbacks)
    text, size = c_string(name)
    call(plugin, ExtensionType.CUSTOM_PARTITIONER, "register_custom_partitioner",
         abi.PJRT_Register_Custom_Partitioner_Args(name=ctypes.addressof(text), name_size=size,
                                                   callbacks=ctypes.addressof(callbacks)))
