"""CUSTOM_PARTITIONER (pjrt_c_api_custom_partitioner_extension.h): what `jax.experimental.custom_partitioning`
and batch-partitionable custom calls register. Registering a batch-partitionable target succeeds and a program
calling it still compiles for two partitions. A custom partitioner (a table of callbacks JAX fills from Python) registers
under a fresh name and the plugin keeps it: its dtor is not called by the registration. The args have struct_size but
no extension_start."""
from __future__ import annotations

import os
from typing import Any

from pjrt_cts.runtime import PjrtError
from pjrt_cts.runtime.extensions.custom_partitioner import register_batch_partitionable, register_custom_partitioner
from pjrt_cts.testing import requires, unsupported_if_unimplemented

pytestmark = requires(extension="CUSTOM_PARTITIONER")


def test_batch_partitionable_target_registers(plugin: Any) -> None:
    with unsupported_if_unimplemented("CUSTOM_PARTITIONER.register_batch_partitionable"):
        register_batch_partitionable(plugin, f"pjrt_cts_batch_partitionable_{os.getpid()}")


def test_registering_a_name_twice_is_answered(plugin: Any) -> None:
    """A second registration of a name succeeds or fails cleanly (a PJRT error), never crashes the process."""
    name = f"pjrt_cts_batch_partitionable_twice_{os.getpid()}"
    with unsupported_if_unimplemented("CUSTOM_PARTITIONER.register_batch_partitionable"):
        register_batch_partitionable(plugin, name)
    try:
        register_batch_partitionable(plugin, name)
    except PjrtError as error:
        assert error.message.strip(), "a refused second registration should say why"


def test_custom_partitioner_registers_and_is_kept(plugin: Any) -> None:
    destroyed: list[int] = []
    with unsupported_if_unimplemented("CUSTOM_PARTITIONER.register_custom_partitioner"):
        register_custom_partitioner(plugin, f"pjrt_cts_custom_partitioner_{os.getpid()}", destroyed)
    assert not destroyed, ("CUSTOM_PARTITIONER.register_custom_partitioner called the callbacks' dtor during the "
                           "registration: the partitioner it registered is already let go")
