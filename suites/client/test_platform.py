"""PJRT_Client_PlatformName, PJRT_Client_PlatformVersion, PJRT_Client_ProcessIndex."""
from __future__ import annotations

from typing import Any


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
