"""Device-less (ahead-of-time) compilation: PJRT_Compile against a PJRT_TopologyDescription, PJRT_Client_Load."""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

from pjrt_cts.abi import structs
from pjrt_cts.runtime.client import make_program
from pjrt_cts.runtime.compile_options import compile_options_bytes
from pjrt_cts.runtime.executable import Executable, LoadedExecutable
from pjrt_cts.runtime.handles import OwnedHandle

if TYPE_CHECKING:
    from pjrt_cts.runtime.client import Client
    from pjrt_cts.runtime.plugin import Plugin


def client_topology(client: "Client") -> int:
    """PJRT_Client_TopologyDescription: the client's topology handle (owned by the client: never destroy it)."""
    args = client.plugin.call("Client_TopologyDescription", structs.PJRT_Client_TopologyDescription_Args(client=client.handle))
    return int(args.topology)


def compile_for_topology(client: "Client", topology: int, code: str | bytes, format: str = "mlir", *,
                         compile_options: bytes | None = None, pass_client: bool = False) -> Executable:
    """PJRT_Compile: compile for `topology` without loading; `pass_client` sets the optional client field."""
    return compile_without_devices(client.plugin, topology, code, format, compile_options=compile_options,
                                   client=client if pass_client else None, parent=client)


def compile_without_devices(
    plugin: "Plugin",
    topology: int,
    code: str | bytes,
    format: str = "mlir",
    *,
    compile_options: bytes | None = None,
    client: "Client | None" = None,
    parent: OwnedHandle | None = None,
) -> Executable:
    """PJRT_Compile for the topology handle `topology` (a client's, or one PJRT_TopologyDescription_Create made: no
    client need exist); `client` is the optional client field. The executable is freed before `parent` is."""
    options = compile_options if compile_options is not None else compile_options_bytes()
    program, keepalive = make_program(code, format)
    options_buffer = ctypes.create_string_buffer(options, max(1, len(options)))
    args = structs.PJRT_Compile_Args(
        topology=topology, program=ctypes.addressof(program),
        compile_options=ctypes.addressof(options_buffer), compile_options_size=len(options),
        client=client.handle if client is not None else None,
    )
    plugin.call("Compile", args)
    del keepalive
    return Executable(plugin, args.executable, parent=parent)


def load_executable(client: "Client", executable: Executable, compile_options: bytes | None = None) -> LoadedExecutable:
    """PJRT_Client_Load (0.95+): load an unloaded PJRT_Executable onto the client's devices."""
    options = compile_options if compile_options is not None else compile_options_bytes()
    options_buffer = ctypes.create_string_buffer(options, max(1, len(options)))
    args = structs.PJRT_Client_Load_Args(
        client=client.handle, executable=executable.handle,
        compile_options=ctypes.addressof(options_buffer), compile_options_size=len(options),
    )
    client.plugin.call("Client_Load", args)
    return LoadedExecutable(client, args.loaded_executable)
