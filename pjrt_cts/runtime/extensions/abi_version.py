"""ABI_VERSION: the runtime's and an executable's ABI versions, their serialized protos, platform ids and
compatibility checks (every args struct has no extension_start)."""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions import abi_version as abi
from pjrt_cts.runtime.extensions.calls import call, run_deleter
from pjrt_cts.runtime.handles import OwnedHandle

if TYPE_CHECKING:
    from pjrt_cts.runtime.client import Client
    from pjrt_cts.runtime.executable import Executable
    from pjrt_cts.runtime.plugin import Plugin

ABI_VERSION = ExtensionType.ABI_VERSION


class AbiVersion(OwnedHandle):
    """A PJRT_RuntimeAbiVersion (`kind` "runtime") or PJRT_ExecutableAbiVersion ("executable")."""

    def __init__(self, plugin: "Plugin", handle: int, kind: str) -> None:
        self.plugin, self.kind = plugin, kind

        def destroy(h: int) -> None:
            call(plugin, ABI_VERSION, f"{kind}_abi_version_destroy", abi.PJRT_AbiVersion_Destroy_Args(abi_version=h))

        self._own(handle, destroy)

    def to_proto(self) -> bytes:
        args = call(self.plugin, ABI_VERSION, f"{self.kind}_abi_version_to_proto",
                    abi.PJRT_AbiVersion_ToProto_Args(abi_version=self.handle))
        data = ctypes.string_at(args.serialized_proto, args.serialized_proto_size) if args.serialized_proto else b""
        run_deleter(args.serialized_proto_deleter, args.serialized_proto_holder)
        return data

    def platform_id(self) -> int:
        args = call(self.plugin, ABI_VERSION, f"{self.kind}_abi_version_platform_id",
                    abi.PJRT_AbiVersion_PlatformId_Args(abi_version=self.handle))
        return int(args.platform_id)

    @classmethod
    def from_proto(cls, plugin: "Plugin", kind: str, proto: bytes) -> "AbiVersion":
        data = ctypes.create_string_buffer(proto, max(1, len(proto)))
        args = call(plugin, ABI_VERSION, f"{kind}_abi_version_from_proto", abi.PJRT_AbiVersion_FromProto_Args(
            serialized_proto=ctypes.addressof(data), serialized_proto_size=len(proto)))
        return cls(plugin, int(args.abi_version or 0), kind)


def runtime_abi_version(client: "Client") -> AbiVersion:
    args = call(client.plugin, ABI_VERSION, "client_runtime_abi_version",
                abi.PJRT_Client_RuntimeAbiVersion_Args(client=client.handle))
    return AbiVersion(client.plugin, int(args.abi_version or 0), "runtime")


def executable_abi_version(executable: "Executable") -> AbiVersion:
    args = call(executable.plugin, ABI_VERSION, "executable_get_abi_version",
                abi.PJRT_Executable_GetAbiVersion_Args(executable=executable.handle))
    return AbiVersion(executable.plugin, int(args.abi_version or 0), "executable")


def compatible_with_runtime(runtime: AbiVersion, other: AbiVersion) -> None:
    """runtime_abi_version_is_compatible_with_runtime: returns when compatible, PjrtError when not."""
    call(runtime.plugin, ABI_VERSION, "runtime_abi_version_is_compatible_with_runtime",
         abi.PJRT_RuntimeAbiVersion_IsCompatibleWithRuntime_Args(abi_version=runtime.handle,
                                                                 other_abi_version=other.handle))


def compatible_with_executable(runtime: AbiVersion, executable: AbiVersion) -> None:
    call(runtime.plugin, ABI_VERSION, "runtime_abi_version_is_compatible_with_executable",
         abi.PJRT_RuntimeAbiVersion_IsCompatibleWithExecutable_Args(abi_version=runtime.handle,
                                                                    executable_abi_version=executable.handle))
