"""Device-less (ahead-of-time) compilation: PJRT_Compile against a PJRT_TopologyDescription, PJRT_Client_Load."""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

from pjrt_cts.abi import structs
from pjrt_cts.runtime.client import make_program
from pjrt_cts.runtime.compile_options import compile_options_bytes
from pjrt_cts.runtime.executable import Executable, LoadedExecutable

if TYPE_CHECKING:
    from pjrt_cts.runtime.client import Client


def client_topology(client: "Client") -> int:
    """PJRT_Client_TopologyDescription: the client's topology handle (owned by the client: never destroy it)."""
    args = client.plugin.call("Client_TopologyDescription", structs.PJRT_Client_TopologyDescription_Args(client=client.handle))
    return int(args.topology)


def compile_for_topology(
    client: "Client",
    topology: int,
    code: str | bytes,
    format: str = "mlir",
    *,
    compile_options: bytes | None = None,
    pass_client: bool = False,
) -> Executable:
    """PJRT_Compile: compile for `topology` without loading; `pass_client` sets the optional client field."""
    options = compile_options if compile_options is not None else compile_options_bytes()
    program, keepalive = make_program(code, format)
    options_buffer = ctypes.create_string_buffer(options, max(1, len(options)))
    args = structs.PJRT_Compile_Args(
        topology=topology, program=ctypes.addressof(program),
        compile_options=ctypes.addressof(options_buffer), compile_options_size=len(options),
        client=client.handle if pass_client else None,
    )
    client.plugin.call("Compile", args)
    del keepalive
    return Executable(client.plugin, args.executable, parent=client)


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
