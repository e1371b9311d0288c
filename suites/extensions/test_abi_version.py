"""ABI_VERSION (pjrt_c_api_abi_version_extension.h): the runtime's and an executable's ABI versions, as a
framework checks that a serialized executable can run here. A version survives its proto round trip (same proto,
same platform id, compatible with the original); the runtime is compatible with its own executables; bytes that
are no proto are refused. Every args struct has struct_size but no extension_start. No level requires the
extension: a function of it that answers UNIMPLEMENTED makes its test NOT_SUPPORTED."""
from __future__ import annotations

from typing import Any

from pjrt_cts.runtime.extensions.abi_version import (AbiVersion, compatible_with_executable, compatible_with_runtime,
                                                     executable_abi_version, runtime_abi_version)
from pjrt_cts.testing import expect_rejection, requires, unsupported_if_unimplemented

pytestmark = requires(extension="ABI_VERSION")


def test_runtime_abi_version_round_trips_through_its_proto(plugin: Any, client: Any) -> None:
    with unsupported_if_unimplemented("ABI_VERSION.client_runtime_abi_version"):
        runtime = runtime_abi_version(client)
    with runtime:
        proto = runtime.to_proto()
        assert proto, "ABI_VERSION.runtime_abi_version_to_proto returned no bytes"
        with AbiVersion.from_proto(plugin, "runtime", proto) as again:
            assert again.to_proto() == proto, "a runtime ABI version read back from its proto serializes differently"
            assert again.platform_id() == runtime.platform_id(), "the platform id changed through the proto"
            # No level requires the compatibility checks: a plugin may answer UNIMPLEMENTED (XLA:GPU does).
            with unsupported_if_unimplemented("ABI_VERSION.runtime_abi_version_is_compatible_with_runtime"):
                compatible_with_runtime(runtime, again)


def test_executable_abi_version_round_trips_through_its_proto(plugin: Any, client: Any, two_in_two_out: Any) -> None:
    """What a framework stores next to a serialized executable: its ABI version's proto, read back with the same
    bytes and platform id (the platform id the runtime's own)."""
    with unsupported_if_unimplemented("ABI_VERSION.client_runtime_abi_version",
                                      "ABI_VERSION.executable_get_abi_version"):
        runtime, executable = runtime_abi_version(client), executable_abi_version(two_in_two_out.executable)
    with runtime, executable:
        proto = executable.to_proto()
        assert proto, "ABI_VERSION.executable_abi_version_to_proto returned no bytes"
        assert executable.platform_id() == runtime.platform_id(), (
            f"an executable's ABI platform id {executable.platform_id()} differs from its runtime's "
            f"{runtime.platform_id()}")
        with AbiVersion.from_proto(plugin, "executable", proto) as again:
            assert again.to_proto() == proto, "an executable ABI version read back from its proto serializes differently"
            assert again.platform_id() == executable.platform_id(), "the platform id changed through the proto"


def test_runtime_is_compatible_with_its_own_executables(plugin: Any, client: Any, two_in_two_out: Any) -> None:
    with unsupported_if_unimplemented("ABI_VERSION.client_runtime_abi_version",
                                      "ABI_VERSION.executable_get_abi_version"):
        runtime, executable = runtime_abi_version(client), executable_abi_version(two_in_two_out.executable)
    with runtime, executable:
        with unsupported_if_unimplemented("ABI_VERSION.runtime_abi_version_is_compatible_with_executable"):
            compatible_with_executable(runtime, executable)
        with AbiVersion.from_proto(plugin, "executable", executable.to_proto()) as again:
            compatible_with_executable(runtime, again)


def test_garbage_is_no_runtime_abi_version(plugin: Any, client: Any) -> None:
    with unsupported_if_unimplemented("ABI_VERSION.client_runtime_abi_version"):
        runtime = runtime_abi_version(client)
    with runtime:
        proto = runtime.to_proto()
        expect_rejection(lambda: AbiVersion.from_proto(plugin, "runtime", b"\xff\xfe\xfd not a proto"),
                         control=lambda: AbiVersion.from_proto(plugin, "runtime", proto),
                         function="ABI_VERSION.runtime_abi_version_from_proto", what="bytes that are no proto")
