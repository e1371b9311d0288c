"""PJRT_Client_Create / PJRT_Client_Destroy: options, strict option validation, lifetimes."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

from pjrt_cts.runtime import PjrtError
from pjrt_cts.testing import assert_bit_exact, create_client_under_test, expect_rejection, first_line, not_applicable

# Options the XLA plugins document, by platform family: (family, name, value), one per PJRT_NamedValue_Type used.
DOCUMENTED_OPTIONS = [
    pytest.param("cpu", "cpu_device_count", 2, id="cpu-cpu_device_count-int64"),
    pytest.param("cpu", "asynchronous", True, id="cpu-asynchronous-bool_true"),
    pytest.param("cpu", "asynchronous", False, id="cpu-asynchronous-bool_false"),
    pytest.param("cpu", "process_id", 0, id="cpu-process_id-int64"),
    pytest.param("gpu", "platform_name", None, id="gpu-platform_name-string"),  # None: the platform's own name
    pytest.param("gpu", "allocator", "platform", id="gpu-allocator-string"),
    pytest.param("gpu", "memory_fraction", 0.5, id="gpu-memory_fraction-float"),
    pytest.param("gpu", "preallocate", False, id="gpu-preallocate-bool"),
    pytest.param("gpu", "visible_devices", [0], id="gpu-visible_devices-int64_list"),
    pytest.param("gpu", "max_inflight_computations", 8, id="gpu-max_inflight_computations-int64"),
]

# Documented options given a value of the wrong PJRT_NamedValue_Type (few: each runs in its own process).
WRONG_TYPE_OPTIONS = [
    pytest.param("cpu", "cpu_device_count", "4", id="cpu-cpu_device_count-string"),
    pytest.param("cpu", "cpu_device_count", 4.0, id="cpu-cpu_device_count-float"),
    pytest.param("cpu", "cpu_device_count", True, id="cpu-cpu_device_count-bool"),
    pytest.param("cpu", "asynchronous", 1, id="cpu-asynchronous-int64"),
    pytest.param("gpu", "preallocate", 0, id="gpu-preallocate-int64"),
    pytest.param("gpu", "memory_fraction", "0.5", id="gpu-memory_fraction-string"),
]

UNKNOWN_OPTIONS = [
    pytest.param(7, id="int64"),
    pytest.param("value", id="string"),
    pytest.param(True, id="bool"),
    pytest.param(0.25, id="float"),
    pytest.param([1, 2], id="int64_list"),
]
UNKNOWN_OPTION_NAME = "pjrt_cts_option_no_plugin_defines"


def _create(plugin: Any, options: dict[str, Any]) -> Any:
    try:
        return plugin.create_client(options)
    except PjrtError as error:
        raise AssertionError(
            f"PJRT_Client_Create({options}) should succeed, but failed with {error.code}: {error.message}"
        ) from None


def test_client_creates_with_profile_options(plugin: Any, create_options: dict[str, Any]) -> None:
    """The client every other test uses, created here without the `client` fixture: its failure is this FAIL
    (NOT_SUPPORTED only for the profile's documented "no device" error codes)."""
    with create_client_under_test(plugin, create_options) as created:
        assert created.addressable_devices, (
            f"PJRT_Client_Create({create_options}) should give a client with at least one addressable device, "
            "but PJRT_Client_AddressableDevices lists none")


def test_create_with_no_options(plugin: Any, create_options: dict[str, Any]) -> None:
    if not create_options:
        created = create_client_under_test(plugin, {})
    else:
        try:
            created = plugin.create_client({})
        except PjrtError as error:  # e.g. a GPU plugin that needs platform options on this host
            not_applicable(f"the profile creates clients with options {sorted(create_options)}; "
                           f"PJRT_Client_Create({{}}) failed: {error.code}: {first_line(error.message)}")
    with created:
        assert created.addressable_devices, "PJRT_Client_Create({}) should give a client with devices, but it has none"


@pytest.mark.parametrize(("family", "name", "value"), DOCUMENTED_OPTIONS)
def test_create_with_documented_option(
    plugin: Any, client: Any, create_options: dict[str, Any], require_platform_family: Callable[[str], None],
    family: str, name: str, value: Any,
) -> None:
    require_platform_family(family)
    if value is None:
        value = client.platform_name
    with _create(plugin, {**create_options, name: value}) as created:
        assert created.addressable_devices, f"PJRT_Client_Create({name}={value!r}) gave a client without devices"


@pytest.mark.parametrize("count", [1, 2, 3])
def test_cpu_device_count_sets_number_of_devices(
    plugin: Any, create_options: dict[str, Any], require_platform_family: Callable[[str], None], count: int
) -> None:
    require_platform_family("cpu")
    with _create(plugin, {**create_options, "cpu_device_count": count}) as created:
        found = len(created.addressable_devices)
        assert found == count, f"PJRT_Client_Create(cpu_device_count={count}) should give {count} devices, but gave {found}"


@pytest.mark.parametrize("value", UNKNOWN_OPTIONS)
def test_unknown_option_name_is_invalid_argument(plugin: Any, create_options: dict[str, Any], client: Any,
                                                 value: Any) -> None:
    # `client`: the control (the profile's options) needs a device; without one this is NOT_SUPPORTED.
    options = {**create_options, UNKNOWN_OPTION_NAME: value}
    expect_rejection(lambda: plugin.create_client(options), control=lambda: plugin.create_client(create_options),
                     function="PJRT_Client_Create", what=f"an unknown option {UNKNOWN_OPTION_NAME}={value!r}")


@pytest.mark.isolated  # the API 0.81 XLA CPU plugin aborts (std::bad_variant_access) on a mistyped option
@pytest.mark.parametrize(("family", "name", "value"), WRONG_TYPE_OPTIONS)
def test_wrong_option_type_is_invalid_argument(
    plugin: Any, create_options: dict[str, Any], require_platform_family: Callable[[str], None],
    family: str, name: str, value: Any,
) -> None:
    require_platform_family(family)
    options = {**create_options, name: value}
    expect_rejection(lambda: plugin.create_client(options), control=lambda: plugin.create_client(create_options),
                     function="PJRT_Client_Create", what=f"option {name}={value!r} of the wrong type")


def test_destroy_then_create_again(plugin: Any, create_options: dict[str, Any], client: Any) -> None:
    # `client`: where the session cannot create a client at all (no device), this is NOT_SUPPORTED.
    with _create(plugin, create_options) as first:
        platform, count = first.platform_name, len(first.devices)
    with _create(plugin, create_options) as second:
        again = (second.platform_name, len(second.devices))
    assert again == (platform, count), (
        f"PJRT_Client_Create after PJRT_Client_Destroy should give the same platform and device count "
        f"{(platform, count)}, but gave {again}"
    )


def test_two_clients_in_one_process(plugin: Any, create_options: dict[str, Any], client: Any) -> None:
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    with _create(plugin, create_options) as second:
        assert second.handle != client.handle, "PJRT_Client_Create should return a new client, but returned the existing one"
        mine = client.buffer_from_numpy(data)
        theirs = second.buffer_from_numpy(data + 1)
        assert_bit_exact(theirs.to_numpy(), data + 1, "PJRT_Buffer_ToHostBuffer of a buffer of the second client")
        theirs.close()
    assert_bit_exact(mine.to_numpy(), data,
                     "PJRT_Buffer_ToHostBuffer of a buffer of the first client after PJRT_Client_Destroy of a second client")
    mine.close()


def test_create_and_destroy_repeatedly(plugin: Any, create_options: dict[str, Any], client: Any) -> None:
    # `client`: where the session cannot create a client at all (no device), this is NOT_SUPPORTED.
    counts = []
    for _ in range(3):
        with _create(plugin, create_options) as created:
            counts.append(len(created.addressable_devices))
    assert len(set(counts)) == 1, f"repeated PJRT_Client_Create/Destroy should give the same devices, but gave {counts}"
