"""PJRT_Client_Devices / AddressableDevices / LookupDevice / LookupAddressableDevice, PJRT_Device_* getters."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from pjrt_cts.testing import device_index_params, expect_rejection, not_applicable

DEVICE_INDEXES = device_index_params()
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1

# Ids no device has, chosen relative to the ids the plugin reports (name -> f(existing ids)).
BAD_IDS: dict[str, Callable[[list[int]], int]] = {
    "minus_one": lambda ids: -1,
    "minus_two": lambda ids: -2,
    "one_past_max": lambda ids: max(ids) + 1,
    "far_past_max": lambda ids: max(ids) + 1000,
    "int32_max": lambda ids: INT32_MAX,
    "int32_min": lambda ids: INT32_MIN,
}
BAD_ID_PARAMS = [pytest.param(name, id=name) for name in BAD_IDS]


def _bad_id(kind: str, existing: list[int]) -> int:
    value = BAD_IDS[kind](existing)
    if value in existing:
        not_applicable(f"{kind} ({value}) is a real id of this plugin")
    return value


def test_devices_are_non_empty(client: Any) -> None:
    assert client.devices, "PJRT_Client_Devices should return at least one device, but returned none"


def test_addressable_devices_are_non_empty(client: Any) -> None:
    assert client.addressable_devices, "PJRT_Client_AddressableDevices should return at least one device, but returned none"


def test_addressable_devices_are_among_devices(client: Any) -> None:
    everything = {d.handle for d in client.devices}
    outside = [d.id for d in client.addressable_devices if d.handle not in everything]
    assert not outside, f"PJRT_Client_AddressableDevices should be a subset of PJRT_Client_Devices, but ids {outside} are not"


def test_device_ids_are_unique(client: Any) -> None:
    ids = [d.id for d in client.devices]
    assert len(ids) == len(set(ids)), f"PJRT_DeviceDescription_Id should be unique across PJRT_Client_Devices, but ids are {ids}"


def test_device_ids_are_non_negative(client: Any) -> None:
    ids = [d.id for d in client.devices]
    assert all(i >= 0 for i in ids), f"PJRT_DeviceDescription_Id should be >= 0, but ids are {ids}"


def test_device_handles_are_unique(client: Any) -> None:
    handles = [d.handle for d in client.devices]
    assert len(handles) == len(set(handles)), "PJRT_Client_Devices should list each PJRT_Device once, but repeats one"


def test_device_list_is_stable(client: Any) -> None:
    first, second = [d.handle for d in client.devices], [d.handle for d in client.devices]
    assert first == second, "PJRT_Client_Devices should return the same devices in the same order on each call"


def test_local_hardware_ids_are_unique(client: Any, devices: list[Any]) -> None:
    ids = [d.local_hardware_id for d in devices]
    assert len(ids) == len(set(ids)), (
        f"PJRT_Device_LocalHardwareId should be unique across addressable devices, but ids are {ids}"
    )


def test_non_addressable_devices_say_so(client: Any) -> None:
    addressable = {d.handle for d in client.addressable_devices}
    others = [d for d in client.devices if d.handle not in addressable]
    if not others:
        not_applicable("every device of this client is addressable")
    wrong = [d.id for d in others if d.is_addressable]
    assert not wrong, f"PJRT_Device_IsAddressable should be false for devices not in AddressableDevices, but ids {wrong} say true"


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_addressable_device_is_addressable(devices: list[Any], index: int) -> None:
    device = devices[index]
    assert device.is_addressable, f"PJRT_Device_IsAddressable of addressable device id {device.id} should be true, but is false"


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_lookup_device_round_trips(client: Any, devices: list[Any], index: int) -> None:
    device = devices[index]
    found = client.lookup_device(device.id)
    assert found.handle == device.handle, (
        f"PJRT_Client_LookupDevice(id={device.id}) should return that device, but returned device id {found.id}"
    )


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_lookup_addressable_device_round_trips(client: Any, devices: list[Any], index: int) -> None:
    device = devices[index]
    local_id = device.local_hardware_id
    found = client.lookup_addressable_device(local_id)
    assert found.handle == device.handle, (
        f"PJRT_Client_LookupAddressableDevice(local_hardware_id={local_id}) should return device id {device.id}, "
        f"but returned device id {found.id}"
    )


@pytest.mark.parametrize("kind", BAD_ID_PARAMS)
def test_lookup_device_rejects_bad_id(client: Any, kind: str) -> None:
    bad = _bad_id(kind, [d.id for d in client.devices])
    good = client.devices[0].id
    expect_rejection(lambda: client.lookup_device(bad), control=lambda: client.lookup_device(good),
                     codes=("INVALID_ARGUMENT", "NOT_FOUND"), function="PJRT_Client_LookupDevice",
                     what=f"id {bad}, which no device has")


@pytest.mark.parametrize("kind", BAD_ID_PARAMS)
def test_lookup_addressable_device_rejects_bad_id(client: Any, devices: list[Any], kind: str) -> None:
    bad = _bad_id(kind, [d.local_hardware_id for d in devices])
    good = devices[0].local_hardware_id
    expect_rejection(lambda: client.lookup_addressable_device(bad),
                     control=lambda: client.lookup_addressable_device(good),
                     codes=("INVALID_ARGUMENT", "NOT_FOUND"), function="PJRT_Client_LookupAddressableDevice",
                     what=f"local_hardware_id {bad}, which no addressable device has")
