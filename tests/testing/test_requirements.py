"""pjrt_cts.testing.requirements: the requires marker, the UNIMPLEMENTED context manager, client creation."""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.judgment.outcomes import FeatureNotSupported
from pjrt_cts.runtime import PjrtError, MissingFunction
from pjrt_cts.testing import requirements
from pjrt_cts.testing.outcomes import BlockedByFailure
from pjrt_cts.testing.requirements import FeatureProbe, requires, unsupported_if_unimplemented

# The suites register the `requires` marker (suites/conftest.py); this session builds markers without running them.
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")


class FakeExtension:
    def __init__(self, name: str) -> None:
        self.name = name


class FakePlugin:
    version_string = "0.81"
    api_version = (0, 81)

    def __init__(self, present: set[str]) -> None:
        self.present = present
        self.extensions = [FakeExtension("LAYOUTS")]

    def find_extension(self, extension_type: Any) -> Any:
        return next((e for e in self.extensions if e.name == extension_type.name), None)

    def function(self, name: str) -> Any:
        if name not in self.present:
            raise MissingFunction("PJRT_" + name, self.version_string, "PJRT_Api struct_size 688 ends before slot 95")
        return object()


class FakeMemory:
    def __init__(self, kind: str) -> None:
        self.kind = kind


class FakeDevice:
    id = 0
    memories = [FakeMemory("device")]


class FakeClient:
    def __init__(self, devices: int, plugin: FakePlugin) -> None:
        self.addressable_devices = [FakeDevice() for _ in range(devices)]
        self.plugin = plugin


class FakeNode:
    def __init__(self, *marks: pytest.MarkDecorator) -> None:
        self.marks = [mark.mark for mark in marks]

    def iter_markers(self, name: str) -> Any:
        return (mark for mark in self.marks if mark.name == name)


class FakeRequest:
    def __init__(self, *marks: pytest.MarkDecorator, devices: int = 1, present: set[str] = frozenset(),
                 **fixtures: Any) -> None:
        self.node = FakeNode(*marks)
        plugin = FakePlugin(set(present))
        self.fixtures = {"plugin": plugin, "client": FakeClient(devices, plugin), **fixtures}
        self.requested: list[str] = []

    def getfixturevalue(self, name: str) -> Any:
        self.requested.append(name)
        return self.fixtures[name]


def _reason(request: FakeRequest) -> str:
    with pytest.raises(FeatureNotSupported) as raised:
        requirements.resolve_requirements(request)
    return raised.value.reason


def test_missing_slot_is_not_supported_naming_slot_and_api() -> None:
    reason = _reason(FakeRequest(requires("Executable_Fingerprint")))
    assert reason == ("requires PJRT_Executable_Fingerprint: missing slot (API 0.81): "
                      "PJRT_Api struct_size 688 ends before slot 95")


def test_present_slots_pass_without_a_client() -> None:
    request = FakeRequest(requires("Executable_Fingerprint"), present={"Executable_Fingerprint"})
    requirements.resolve_requirements(request)
    assert request.requested == ["plugin"], "a slot requirement must not create a client"


def test_too_few_devices_is_not_supported_naming_both_counts() -> None:
    assert _reason(FakeRequest(requires(devices=4), devices=1)) == "requires 4 addressable devices; the plugin has 1"


def test_enough_devices_pass() -> None:
    requirements.resolve_requirements(FakeRequest(requires(devices=2), devices=2))


def test_markers_merge_and_the_largest_device_count_wins() -> None:
    request = FakeRequest(requires(devices=2), requires(devices=3), devices=2)
    assert _reason(request) == "requires 3 addressable devices; the plugin has 2"


def test_missing_memory_kind_names_the_kinds_the_device_has() -> None:
    reason = _reason(FakeRequest(requires(memory_kind="pinned_host")))
    assert reason.startswith("requires memory kind 'pinned_host'; device 0 has ['device']")


def test_failed_feature_probe_is_not_supported_with_its_evidence() -> None:
    probe = FeatureProbe("multi-node clients", False, "the plugin never called the KV callbacks")
    reason = _reason(FakeRequest(requires(feature="multi_node"), feature_multi_node=probe))
    assert reason == "requires multi-node clients: the plugin never called the KV callbacks"


def test_outer_features_are_probed_before_the_functions_own() -> None:
    """pytest yields the function's marker first; the module's prerequisite ("nodes") must still be probed first,
    so a host with too few devices is NOT_SUPPORTED rather than blocked by the dependent probe."""
    def blocked() -> None:
        raise AssertionError("the dependent probe must not run when its prerequisite is missing")

    nodes = FeatureProbe("2 nodes on this host", False, "2 nodes need 2 devices; the host has 1")
    request = FakeRequest(requires(feature="multi_node_topology"), requires(feature="nodes"), feature_nodes=nodes,
                          feature_multi_node_topology=property(blocked))
    assert _reason(request) == "requires 2 nodes on this host: 2 nodes need 2 devices; the host has 1"
    assert request.requested == ["feature_nodes"]


def test_no_marker_resolves_nothing() -> None:
    request = FakeRequest()
    requirements.resolve_requirements(request)
    assert request.requested == []


def test_requires_rejects_pjrt_prefixed_slot_names() -> None:
    with pytest.raises(ValueError):
        requires("PJRT_Executable_Fingerprint")


def _error(function: str, code: str, message: str = "why") -> PjrtError:
    return PjrtError(function, code, message)


def test_unimplemented_of_the_named_function_is_not_supported() -> None:
    with pytest.raises(FeatureNotSupported) as raised:
        with unsupported_if_unimplemented("PJRT_Executable_Fingerprint"):
            raise _error("PJRT_Executable_Fingerprint", "UNIMPLEMENTED", "not implemented\nsecond line")
    assert raised.value.reason == "PJRT_Executable_Fingerprint: UNIMPLEMENTED: not implemented"


def test_other_codes_and_other_functions_propagate() -> None:
    with pytest.raises(PjrtError):
        with unsupported_if_unimplemented("PJRT_Executable_Fingerprint"):
            raise _error("PJRT_Executable_Fingerprint", "INVALID_ARGUMENT")
    with pytest.raises(PjrtError):  # UNIMPLEMENTED from a function the test did not expect: a FAIL
        with unsupported_if_unimplemented("PJRT_Executable_Fingerprint"):
            raise _error("PJRT_Client_Compile", "UNIMPLEMENTED")


def test_declared_unsupported_explains_any_error_of_the_function() -> None:
    with pytest.raises(FeatureNotSupported) as raised:
        with unsupported_if_unimplemented("PJRT_Client_Compile", declared_unsupported="the plugin declares 1.0.0"):
            raise _error("PJRT_Client_Compile", "INVALID_ARGUMENT", "cannot parse")
    assert raised.value.reason == "the plugin declares 1.0.0; PJRT_Client_Compile: INVALID_ARGUMENT: cannot parse"


def test_message_text_never_decides() -> None:
    with pytest.raises(PjrtError):
        with unsupported_if_unimplemented("PJRT_Client_Compile"):
            raise _error("PJRT_Client_Compile", "INVALID_ARGUMENT", "unsupported: not implemented")


def test_framework_status_unimplemented_counts() -> None:
    jax_error = type("JaxRuntimeError", (RuntimeError,), {})
    with pytest.raises(FeatureNotSupported) as raised:
        with unsupported_if_unimplemented("jnp.linalg.qr on the plugin (JAX)"):
            raise jax_error("UNIMPLEMENTED: no qr")
    assert raised.value.reason.startswith("jnp.linalg.qr on the plugin (JAX): UNIMPLEMENTED: no qr")
    with pytest.raises(jax_error):
        with unsupported_if_unimplemented("jnp.linalg.qr on the plugin (JAX)"):
            raise jax_error("NOT_FOUND: No FFI handler registered for lapack_sgeqrf_ffi")


class FailingPlugin:
    def __init__(self, code: str) -> None:
        self.code = code

    def create_client(self, options: dict[str, Any]) -> Any:
        raise PjrtError("PJRT_Client_Create", self.code, "No visible GPU devices.")


def test_client_create_with_a_documented_no_device_code_is_not_supported(use_run_context: Any) -> None:
    use_run_context(no_device_codes=frozenset({"FAILED_PRECONDITION", "NOT_FOUND"}))
    with pytest.raises(FeatureNotSupported) as raised:
        requirements.create_session_client(FailingPlugin("FAILED_PRECONDITION"), {})
    assert raised.value.reason == "no device: PJRT_Client_Create: FAILED_PRECONDITION: No visible GPU devices."


def test_any_other_client_create_error_blocks_dependents_as_a_failure(use_run_context: Any) -> None:
    use_run_context(no_device_codes=frozenset({"FAILED_PRECONDITION"}))
    with pytest.raises(BlockedByFailure) as raised:
        requirements.create_session_client(FailingPlugin("INVALID_ARGUMENT"), {"bogus_option": 1})
    assert str(raised.value) == ("blocked: PJRT_Client_Create failed: INVALID_ARGUMENT: No visible GPU devices. "
                                 "(see client.client_create.test_client_creates_with_profile_options)")
    with pytest.raises(AssertionError, match="PJRT_Client_Create.*INVALID_ARGUMENT: No visible GPU devices"):
        requirements.create_client_under_test(FailingPlugin("INVALID_ARGUMENT"), {"bogus_option": 1})


def test_without_documented_codes_no_client_error_is_not_supported(use_run_context: Any) -> None:
    use_run_context()
    with pytest.raises(BlockedByFailure):
        requirements.create_session_client(FailingPlugin("FAILED_PRECONDITION"), {})


def test_extension_the_chain_lacks_is_not_supported_of_kind_extension() -> None:
    with pytest.raises(FeatureNotSupported) as raised:
        requirements.resolve_requirements(FakeRequest(requires(extension="SHARDINGS")))
    assert raised.value.kind == "extension" and raised.value.subject == "SHARDINGS"
    assert raised.value.reason == ("requires the SHARDINGS extension: the plugin's extension chain does not list it "
                                   "(it lists LAYOUTS)")
    requirements.resolve_requirements(FakeRequest(requires(extension="LAYOUTS")))  # advertised: the test runs


def test_unknown_extension_name_fails_at_import() -> None:
    with pytest.raises(ValueError, match="no PJRT_Extension_Type names"):
        requires(extension="LAYOUT")
class DevicelessPlugin:
    """Creates clients that list no addressable device (what the selftest's client_without_devices mutant does)."""

    def __init__(self) -> None:
        self.closed = 0

    def create_client(self, options: dict[str, Any]) -> Any:
        plugin = self

        class Client:
            addressable_devices: list[Any] = []

            def close(self) -> None:
                plugin.closed += 1

        return Client()


def test_a_client_without_devices_blocks_its_dependents_naming_the_creation_test(use_run_context: Any) -> None:
    use_run_context()
    plugin = DevicelessPlugin()
    with pytest.raises(BlockedByFailure) as raised:
        requirements.create_session_client(plugin, {"cpu_device_count": 4})
    assert raised.value.finding == requirements.CLIENT_CREATE_TEST_ID
    assert "PJRT_Client_AddressableDevices lists no device" in str(raised.value) and plugin.closed == 1


def test_a_failed_client_creation_names_the_test_that_reports_it(use_run_context: Any) -> None:
    use_run_context()
    with pytest.raises(BlockedByFailure) as raised:
        requirements.create_session_client(FailingPlugin("INTERNAL"), {})
    assert raised.value.finding == requirements.CLIENT_CREATE_TEST_ID


def test_what_the_plugin_reports_decides_only_as_not_supported_with_the_evidence() -> None:
    with pytest.raises(FeatureNotSupported) as raised:
        requirements.unsupported_by_report("PJRT_Client_PlatformName", "host", "documented for cpu plugins")
    assert raised.value.kind == "reported" and raised.value.subject == "host"
    assert raised.value.reason == "documented for cpu plugins: PJRT_Client_PlatformName answered 'host'"
