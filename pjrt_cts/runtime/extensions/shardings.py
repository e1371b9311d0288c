"""SHARDINGS: an executable's parameter and output shardings (serialized xla.OpSharding, decoded by op_sharding)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions import shardings as abi
from pjrt_cts.runtime.extensions.calls import call, read_byte_strings

if TYPE_CHECKING:
    from pjrt_cts.runtime.executable import Executable


def parameter_shardings(executable: "Executable") -> tuple[int, list[bytes] | None]:
    """(num_parameters, serialized shardings), None for the list where the plugin reports none (NULL arrays)."""
    args = call(executable.plugin, ExtensionType.SHARDINGS, "Executable_ParameterShardings",
                abi.PJRT_Shardings_PJRT_Executable_ParameterShardings_Args(executable=executable.handle))
    return _read(int(args.num_parameters), args.shardings, args.sharding_sizes)


def output_shardings(executable: "Executable") -> tuple[int, list[bytes] | None]:
    """(num_outputs, serialized shardings), None for the list where the plugin reports none (NULL arrays)."""
    args = call(executable.plugin, ExtensionType.SHARDINGS, "Executable_OutputShardings",
                abi.PJRT_Shardings_PJRT_Executable_OutputShardings_Args(executable=executable.handle))
    return _read(int(args.num_outputs), args.shardings, args.sharding_sizes)


def _read(count: int, shardings: int | None, sizes: int | None) -> tuple[int, list[bytes] | None]:
    if not shardings or not sizes:
        return count, None
    return count, read_byte_strings(shardings, sizes, count)
