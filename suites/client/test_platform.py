"""PJRT_Client_PlatformName, PJRT_Client_PlatformVersion, PJRT_Client_ProcessIndex."""
from __future__ import annotations

from typing import Any

from pjrt_cts.testing import not_applicable, profile_name
from pjrt_cts.testing.plugin_under_test import expected_platform


def test_platform_name_is_the_profiles(client: Any) -> None:
    """The profile says which platform its plugin is (profile.toml `platform`), and what applies to the plugin follows
    the profile: a plugin reporting another platform name is not the plugin its profile describes."""
    expected = expected_platform()
    if expected is None:
        not_applicable(f"no profile names the platform this plugin must report (profile {profile_name()!r}; "
                       "profile.toml `platform`)")
    reported = client.platform_name
    assert reported == expected, (
        f"PJRT_Client_PlatformName answered {reported!r}, but the profile {profile_name() or 'cpu'!r} says the plugin "
        f"reports {expected!r} (profile.toml `platform`)")


def test_platform_name_is_non_empty(client: Any) -> None:
    assert client.platform_name, "PJRT_Client_PlatformName should return a non-empty name, but returned ''"


def test_platform_name_is_stable(client: Any) -> None:
    first, second = client.platform_name, client.platform_name
    assert first == second, f"PJRT_Client_PlatformName should not change between calls, but returned {first!r} then {second!r}"


def test_platform_version_is_non_empty(client: Any) -> None:
    assert client.platform_version, "PJRT_Client_PlatformVersion should return a non-empty version, but returned ''"


def test_platform_version_is_stable(client: Any) -> None:
    first, second = client.platform_version, client.platform_version
    assert first == second, f"PJRT_Client_PlatformVersion should not change between calls, but returned {first!r} then {second!r}"


def test_process_index_is_non_negative(client: Any) -> None:
    index = client.process_index
    assert index >= 0, f"PJRT_Client_ProcessIndex should be >= 0, but is {index}"


def test_process_index_matches_addressable_devices(client: Any, devices: list[Any]) -> None:
    index = client.process_index
    others = {d.id: d.process_index for d in devices if d.process_index != index}
    assert not others, (
        f"PJRT_DeviceDescription_ProcessIndex of every addressable device should equal PJRT_Client_ProcessIndex {index}, "
        f"but devices (id: process) {others} differ"
    )


def test_process_index_of_a_single_process_client_is_zero(client: Any) -> None:
    index = client.process_index
    assert index == 0, f"PJRT_Client_ProcessIndex of a client created without distributed options should be 0, but is {index}"
