"""What a test needs from the plugin, and the one place where a missing feature becomes NOT_SUPPORTED.

A test declares its needs with one marker, resolved before it runs by one setup hook (the autouse fixture
of suites/conftest.py calls `resolve_requirements`):

    @requires("Executable_Fingerprint")                 # PJRT_Api slots
    @requires(devices=4)                                  # addressable devices
    @requires(element_type=BufferType.F8E4M3FN)          # probed with a real BufferFromHostBuffer
    @requires(memory_kind="pinned_host")                 # a memory of that kind on device 0
    @requires(feature="multi_node")                       # probed by the layer's `feature_multi_node` fixture
    @requires(extension="LAYOUTS")                        # listed in the plugin's extension chain

and wraps the one call that may legitimately answer UNIMPLEMENTED in

    with unsupported_if_unimplemented("PJRT_Executable_Fingerprint"):
        value = executable.fingerprint

NOT_SUPPORTED is decided by evidence from the plugin after a real attempt: a missing slot, the error code
UNIMPLEMENTED, too few devices, a memory kind its devices do not list, a feature probe that failed; never by
message text, and never by a version the plugin declares alone (a declared version only explains an error
that a real attempt produced: `declared_unsupported=`; the runner confirms it and holds it to the consistency
rules like an UNIMPLEMENTED). Where what applies is decided by what the plugin reports about itself (its platform
name, where no profile says which it must be), the test is NOT_SUPPORTED naming the call and its answer
(`unsupported_by_report`), never a SKIP: the verdict counts it. Everything else that stops a test is not a plugin
gap: `not_applicable` (the clause does not apply to this plugin, as its profile or the suite decides) and
`environment_lacks` (the test machine lacks a tool) are SKIPs that say why, and a failed prerequisite is
`BlockedByFailure` (a FAIL).
"""
from __future__ import annotations

import contextlib
import dataclasses
from typing import TYPE_CHECKING, Any, Iterator, NoReturn, Sequence

import pytest

from pjrt_cts.judgment.outcomes import FeatureNotSupported
from pjrt_cts.testing.outcomes import BlockedByFailure
from pjrt_cts.testing.plugin_under_test import device_less, no_device_codes

if TYPE_CHECKING:
    from pjrt_cts.runtime import Client, Plugin

MARKER = "requires"
CLIENT_CREATE_TEST_ID = "client.client_create.test_client_creates_with_profile_options"
TOPOLOGY_CREATE_TEST_ID = "aot.topology.test_topologies_are_created_without_a_device"


@dataclasses.dataclass(frozen=True)
class Requirements:
    slots: tuple[str, ...] = ()
    devices: int = 0
    element_type: Any = None  # pjrt_cts.abi.enums.BufferType
    memory_kinds: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    extensions: tuple[str, ...] = ()  # PJRT_Extension_Type names (pjrt_cts.abi.enums.ExtensionType)

    def merged(self, other: "Requirements") -> "Requirements":
        return Requirements(
            slots=tuple(dict.fromkeys(self.slots + other.slots)),
            devices=max(self.devices, other.devices),
            element_type=other.element_type if other.element_type is not None else self.element_type,
            memory_kinds=tuple(dict.fromkeys(self.memory_kinds + other.memory_kinds)),
            features=tuple(dict.fromkeys(self.features + other.features)),
            extensions=tuple(dict.fromkeys(self.extensions + other.extensions)),
        )


@dataclasses.dataclass(frozen=True)
class FeatureProbe:
    """What a layer's `feature_<name>` fixture found by trying the feature (never from a declaration alone)."""

    description: str  # "multi-node clients"
    available: bool
    evidence: str  # what the attempt showed


def requires(*slots: str, devices: int = 0, element_type: Any = None, memory_kind: str | Sequence[str] = (),
             feature: str | Sequence[str] = (), extension: str | Sequence[str] = ()) -> pytest.MarkDecorator:
    """The `requires` marker, checked here so that a typo fails at import, not as a silent pass."""
    from pjrt_cts.abi.enums import ExtensionType


    for slot in slots:
        if not isinstance(slot, str) or slot.startswith("PJRT_"):
            raise ValueError(f"requires(): slot names are PJRT_Api member names without 'PJRT_', got {slot!r}")
    if devices < 0:
        raise ValueError(f"requires(devices={devices}): must be >= 0")
    kinds = (memory_kind,) if isinstance(memory_kind, str) else tuple(memory_kind)
    features = (feature,) if isinstance(feature, str) else tuple(feature)
    extensions = (extension,) if isinstance(extension, str) else tuple(extension)
    unknown = [name for name in extensions if name not in ExtensionType.__members__]
    if unknown:
        raise ValueError(f"requires(extension=...): {unknown} are no PJRT_Extension_Type names")
    return pytest.mark.requires(*slots, devices=devices, element_type=element_type, memory_kinds=kinds,
                                features=features, extensions=extensions)


def device_index_params(count: int = 4) -> list[Any]:
    """Parameters `device0`..`device{count-1}` for an `index` argument; device i requires i+1 devices."""
    return [pytest.param(i, id=f"device{i}", marks=requires(devices=i + 1)) for i in range(count)]


def requirements_of(item: pytest.Item) -> Requirements:
    found = Requirements()
    # Outermost first (module, class, then function): a module's prerequisite feature ("nodes") is probed
    # before a function's feature that builds on it ("multi_node_topology").
    for mark in reversed(list(item.iter_markers(MARKER))):
        found = found.merged(Requirements(
            slots=tuple(mark.args), devices=int(mark.kwargs.get("devices", 0) or 0),
            element_type=mark.kwargs.get("element_type"), memory_kinds=tuple(mark.kwargs.get("memory_kinds", ())),
            features=tuple(mark.kwargs.get("features", ())), extensions=tuple(mark.kwargs.get("extensions", ())),
        ))
    return found


def resolve_requirements(request: pytest.FixtureRequest) -> None:
    """NOT_SUPPORTED (naming what is missing) unless the plugin has everything the test declared."""
    __tracebackhide__ = True
    needs = requirements_of(request.node)
    if needs == Requirements():
        return
    if needs.slots or needs.extensions:
        plugin = request.getfixturevalue("plugin")
        for slot in needs.slots:
            _require_slot(plugin, slot)
        for extension in needs.extensions:
            _require_extension(plugin, extension)
    if needs.devices or needs.memory_kinds or needs.element_type is not None:
        client = request.getfixturevalue("client")
        devices = client.addressable_devices
        if len(devices) < needs.devices:
            _not_supported(f"requires {needs.devices} addressable devices; the plugin has {len(devices)}", "devices")
        kinds = [memory.kind for memory in devices[0].memories] if needs.memory_kinds else []
        for kind in needs.memory_kinds:
            if kind not in kinds:
                _not_supported(f"requires memory kind {kind!r}; device {devices[0].id} has {kinds} "
                               "(PJRT_Device_AddressableMemories)", "memory_kind")
        if needs.element_type is not None:
            _require_element_type(client, needs.element_type)
    for feature in needs.features:
        probe: FeatureProbe = request.getfixturevalue(f"feature_{feature}")
        if not probe.available:
            _not_supported(f"requires {probe.description}: {probe.evidence}", "feature")


@contextlib.contextmanager
def unsupported_if_unimplemented(*functions: str, declared_unsupported: str | None = None) -> Iterator[None]:
    """An UNIMPLEMENTED error of one of `functions` raised inside is NOT_SUPPORTED, naming the function. A
    framework runtime error (jaxlib's, "UNIMPLEMENTED: ...") raised inside counts as one of `functions[0]`.

    `declared_unsupported`: the plugin itself declares it does not support the input (its API minor or
    StableHLO window predates it); then any error of `functions` is NOT_SUPPORTED with both facts.
    Errors of other functions, and other codes, propagate (a FAIL).
    """
    __tracebackhide__ = True
    from pjrt_cts.runtime import PjrtError

    try:
        yield
    except PjrtError as error:
        if error.function not in functions:
            raise
        observed = f"{error.function}: {error.code}: {first_line(error.message)}"
        if error.code == "UNIMPLEMENTED":
            _not_supported(observed)
        if declared_unsupported:
            _not_supported(f"{declared_unsupported}; {observed}", "declared")
        raise
    except Exception as error:
        code, message = framework_status(error)
        if code != "UNIMPLEMENTED":
            raise
        _not_supported(f"{functions[0]}: UNIMPLEMENTED: {first_line(message)} ({type(error).__name__})")


# Exceptions of frameworks (jaxlib) that carry a PJRT status as their text: "CODE: message".
_FRAMEWORK_ERRORS = ("JaxRuntimeError", "XlaRuntimeError")


def framework_status(error: BaseException) -> tuple[str | None, str]:
    """(status code, message) of a framework runtime error, which spells the code as its first word (jaxlib has
    no other way to expose it); (None, "") for any other exception."""
    if type(error).__name__ not in _FRAMEWORK_ERRORS:
        return None, ""
    code, separator, message = str(error).partition(": ")
    return (code.strip(), message) if separator and code.strip().isupper() else (None, "")


def create_session_client(plugin: Plugin, options: dict[str, Any]) -> Client:
    """The `client` fixture's client. Fails: no device (a documented code) -> NOT_SUPPORTED, else FAIL (blocked)."""
    __tracebackhide__ = True
    from pjrt_cts.runtime import PjrtError

    _not_supported_if_device_less()
    try:
        created = plugin.create_client(options)
    except PjrtError as error:
        _not_supported_if_no_device(error)
        raise BlockedByFailure(f"blocked: PJRT_Client_Create failed: {error.code}: {first_line(error.message)} "
                               f"(see {CLIENT_CREATE_TEST_ID})", CLIENT_CREATE_TEST_ID) from None
    if not created.addressable_devices:  # nothing a test could place a buffer on or run a program on
        created.close()
        raise BlockedByFailure(f"blocked: PJRT_Client_Create({options}) gave a client whose "
                               f"PJRT_Client_AddressableDevices lists no device (see {CLIENT_CREATE_TEST_ID})",
                               CLIENT_CREATE_TEST_ID)
    return created


def create_client_under_test(plugin: Any, options: dict[str, Any]) -> Any:
    """For the client-creation test itself: no device -> NOT_SUPPORTED, any other error -> FAIL."""
    __tracebackhide__ = True
    from pjrt_cts.runtime import PjrtError

    _not_supported_if_device_less()
    try:
        return plugin.create_client(options)
    except PjrtError as error:
        _not_supported_if_no_device(error)
        raise AssertionError(f"PJRT_Client_Create({options}) should create a client with the profile's options, "
                             f"but failed with {error.code}: {error.message}") from None


def create_session_topology(plugin: Any, spec: Any, *, multi_device: bool = False) -> Any:
    """A topology of the run (`spec`: a pjrt_cts.schema.TopologySpec; `multi_device`: with its multi-device options)
    for the aot layer's tests. The plugin creates none (UNIMPLEMENTED, a missing slot, or the profile's no-device
    code: a plugin that describes its topology from the device it finds) -> NOT_SUPPORTED naming the answer; any
    other error -> FAIL as blocked by the topology-creation test, which reports it."""
    __tracebackhide__ = True
    from pjrt_cts.runtime import PjrtError

    try:
        return _create_topology(plugin, spec, multi_device)
    except PjrtError as error:
        raise BlockedByFailure(f"blocked: {_topology_call(spec, multi_device)} failed: {error.code}: "
                               f"{first_line(error.message)} (see {TOPOLOGY_CREATE_TEST_ID})",
                               TOPOLOGY_CREATE_TEST_ID) from None


def create_topology_under_test(plugin: Any, spec: Any, *, multi_device: bool = False) -> Any:
    """For the topology-creation test itself: the plugin creates none -> NOT_SUPPORTED, any other error -> FAIL."""
    __tracebackhide__ = True
    from pjrt_cts.runtime import PjrtError

    try:
        return _create_topology(plugin, spec, multi_device)
    except PjrtError as error:
        raise AssertionError(f"{_topology_call(spec, multi_device)} should describe the topology without a device, "
                             f"but failed with {error.code}: {error.message}") from None


def _topology_call(spec: Any, multi_device: bool) -> str:
    options = spec.multi_device_options if multi_device and spec.multi_device_options is not None else spec.options
    shown = {key: (value if len(str(value)) <= 40 else f"<{len(str(value))} characters>") for key, value in options.items()}
    return f"PJRT_TopologyDescription_Create({spec.name!r}, {shown}) (topology {spec.label!r})"


def _create_topology(plugin: Any, spec: Any, multi_device: bool) -> Any:
    __tracebackhide__ = True
    from pjrt_cts.runtime import MissingFunction, PjrtError, Topology

    options = spec.multi_device_options if multi_device and spec.multi_device_options is not None else spec.options
    try:
        return Topology.create(plugin, spec.name, options)
    except MissingFunction as missing:
        _not_supported(f"no topology without a device: {missing_slot_reason(missing)}", "topology")
    except PjrtError as error:
        if error.code == "UNIMPLEMENTED" or error.code in no_device_codes():
            why = "" if error.code == "UNIMPLEMENTED" else " (the profile's no-device code)"
            _not_supported(f"no topology without a device: {_topology_call(spec, multi_device)}: {error.code}{why}: "
                           f"{first_line(error.message)}", "topology")
        raise


def not_applicable(reason: str) -> NoReturn:
    """SKIP: the clause under test does not apply to this plugin (e.g. no non-addressable device exists)."""
    __tracebackhide__ = True
    pytest.skip(f"not applicable: {reason}")


def unsupported_by_report(call: str, answer: Any, why: str) -> NoReturn:
    """NOT_SUPPORTED decided by what the plugin reports about itself, with the evidence: `call` answered `answer`, so
    `why` (e.g. no options are documented for that platform). Never a SKIP: the verdict counts these."""
    __tracebackhide__ = True
    _not_supported(f"{why}: {call} answered {answer!r}", "reported", str(answer))


def unsupported_for_devices(reason: str) -> NoReturn:
    """NOT_SUPPORTED: too few devices for the test (`requires(devices=N)` decides it for a client's devices; a test
    whose devices are a topology's says why here)."""
    __tracebackhide__ = True
    _not_supported(reason, "devices")


def environment_lacks(reason: str) -> NoReturn:
    """SKIP: the test machine lacks something the test needs (a Python package, /proc); not a plugin gap."""
    __tracebackhide__ = True
    pytest.skip(f"test environment: {reason}")


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


# ---- internals ---------------------------------------------------------------------------------


def _not_supported(reason: str, kind: str = "unimplemented", subject: str | None = None) -> NoReturn:
    """NOT_SUPPORTED; `kind` says what it rests on (pjrt_cts.judgment.outcomes.UNSUPPORTED_KINDS), `subject` what is missing."""
    __tracebackhide__ = True
    raise FeatureNotSupported(reason, kind, subject)


def _not_supported_if_device_less() -> None:
    __tracebackhide__ = True
    if device_less():
        _not_supported("no device: `run --aot`: a device-less run creates no client (PJRT_Client_Create not called)",
                       "no_device")


def _not_supported_if_no_device(error: Any) -> None:
    __tracebackhide__ = True
    if error.code in no_device_codes():
        _not_supported(f"no device: PJRT_Client_Create: {error.code}: {first_line(error.message)}", "no_device")


def _require_slot(plugin: Any, slot: str) -> None:
    __tracebackhide__ = True
    from pjrt_cts.runtime import MissingFunction

    try:
        plugin.function(slot)
    except MissingFunction as missing:
        _not_supported(missing_slot_reason(missing), "slot")


def _require_extension(plugin: Any, name: str) -> None:
    __tracebackhide__ = True
    from pjrt_cts.abi.enums import ExtensionType

    if plugin.find_extension(ExtensionType[name]) is None:
        listed = ", ".join(e.name for e in plugin.extensions) or "none"
        _not_supported(f"requires the {name} extension: the plugin's extension chain does not list it (it lists "
                       f"{listed})", "extension", name)


def missing_slot_reason(missing: Any) -> str:
    """`requires PJRT_X: missing slot (API 0.m): why` from a runtime.MissingFunction."""
    return f"requires {missing.function}: missing slot (API {missing.plugin_version}): {missing.reason}"


_ELEMENT_TYPE_GAPS: dict[tuple[int, int], str | None] = {}


def _require_element_type(client: Any, buffer_type: Any) -> None:
    """A real BufferFromHostBuffer of two zeros of `buffer_type`: UNIMPLEMENTED is NOT_SUPPORTED; where the plugin's
    API predates the type, the attempt runs in a child process (old plugins crash on enum values they do not know)
    and any error or crash there is NOT_SUPPORTED; other errors are left to the test (it FAILs)."""
    __tracebackhide__ = True
    import numpy as np

    from pjrt_cts.abi.enums import BUFFER_TYPE_SINCE
    from pjrt_cts.runtime import PjrtError
    from pjrt_cts.runtime.dtypes import BUFFER_TYPE_TO_DTYPE

    dtype = BUFFER_TYPE_TO_DTYPE.get(buffer_type)
    if dtype is None:
        environment_lacks(f"no numpy/ml_dtypes host dtype for PJRT_Buffer_Type {buffer_type.name} (upgrade ml_dtypes)")
    key = (id(client), int(buffer_type))
    if key not in _ELEMENT_TYPE_GAPS:
        since = BUFFER_TYPE_SINCE.get(buffer_type)
        plugin = client.plugin
        if since is not None and plugin.api_version[1] < since:
            declared = (f"PJRT_Buffer_Type {buffer_type.name} was added in API 0.{since}; the plugin reports "
                        f"{plugin.version_string}")
            _ELEMENT_TYPE_GAPS[key] = _element_type_gap_in_child(buffer_type, declared)
        else:
            try:
                with unsupported_if_unimplemented("PJRT_Client_BufferFromHostBuffer"):
                    client.buffer_from_numpy(np.zeros(2, dtype)).close()
                _ELEMENT_TYPE_GAPS[key] = None
            except FeatureNotSupported as gap:
                _ELEMENT_TYPE_GAPS[key] = f"requires element type {buffer_type.name}: {gap.reason}"
            except PjrtError:
                _ELEMENT_TYPE_GAPS[key] = None  # another error: the test's own upload fails with it (a FAIL)
    reason = _ELEMENT_TYPE_GAPS[key]
    if reason is not None:
        _not_supported(reason, "element_type", buffer_type.name.lower())


def _element_type_gap_in_child(buffer_type: Any, declared: str) -> str | None:
    """Upload `buffer_type` in a child process; None when it worked, else why it is NOT_SUPPORTED."""
    import json
    import sys

    from pjrt_cts.fuzz.isolate import child_environment, run_command
    from pjrt_cts.testing.plugin_under_test import create_options_under_test, plugin_path_under_test

    outcome = run_command([sys.executable, "-m", "pjrt_cts.testing.element_type_probe", str(plugin_path_under_test()),
                           json.dumps(create_options_under_test()), str(int(buffer_type))],
                          timeout=120, env=child_environment(), may_fork=True)
    result = outcome.result or {}
    if outcome.answered and result.get("status") == "ok":
        return None
    observed = (f"{result.get('code')}: {first_line(str(result.get('message', '')))}" if outcome.answered
                else outcome.describe())
    return (f"requires element type {buffer_type.name}: {declared}; PJRT_Client_BufferFromHostBuffer in a child "
            f"process: {observed}")
