"""PJRT_Device_GetDescription and PJRT_DeviceDescription_{Id,ProcessIndex,Kind,DebugString,ToString,Attributes}."""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from pjrt_cts.runtime import DeviceDescription
from pjrt_cts.testing import device_index_params
from pjrt_cts.runtime.named_values import type_name_of

DEVICE_INDEXES = device_index_params()
VALID_TYPES = {"STRING", "INT64", "INT64_LIST", "FLOAT", "BOOL"}


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_description_id_matches_lookup(client: Any, devices: list[Any], index: int) -> None:
    device = devices[index]
    assert client.lookup_device(device.description.id).handle == device.handle, (
        f"PJRT_DeviceDescription_Id {device.description.id} should name this device in PJRT_Client_LookupDevice"
    )


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_description_is_stable(devices: list[Any], index: int) -> None:
    device = devices[index]
    again = DeviceDescription(device.plugin, device.description.handle)
    assert (again.id, again.kind) == (device.id, device.kind), (
        f"PJRT_DeviceDescription of device {device.id} should answer the same id and kind each time, "
        f"but answered {(again.id, again.kind)} after {(device.id, device.kind)}"
    )


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_device_kind_is_non_empty(devices: list[Any], index: int) -> None:
    device = devices[index]
    assert device.kind, f"PJRT_DeviceDescription_Kind of device {device.id} should be non-empty, but is ''"


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_debug_string_is_non_empty(devices: list[Any], index: int) -> None:
    device = devices[index]
    assert device.description.debug_string, (
        f"PJRT_DeviceDescription_DebugString of device {device.id} should be non-empty, but is ''"
    )


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_to_string_is_non_empty(devices: list[Any], index: int) -> None:
    device = devices[index]
    assert device.description.to_string, f"PJRT_DeviceDescription_ToString of device {device.id} should be non-empty, but is ''"


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_description_process_index_matches_client(client: Any, devices: list[Any], index: int) -> None:
    device = devices[index]
    assert device.process_index == client.process_index, (
        f"PJRT_DeviceDescription_ProcessIndex of addressable device {device.id} should be the client's "
        f"{client.process_index}, but is {device.process_index}"
    )


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_attribute_names_are_unique(devices: list[Any], index: int) -> None:
    device = devices[index]
    counts = Counter(name for name, _ in device.description.attribute_items())
    repeated = {name: n for name, n in counts.items() if n > 1 or not name}
    assert not repeated, f"PJRT_DeviceDescription_Attributes of device {device.id} should have unique non-empty names, but {repeated}"


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_attribute_types_are_valid(devices: list[Any], index: int) -> None:
    device = devices[index]
    bad = {
        name: value for name, value in device.description.attribute_items()
        if type_name_of(value) not in VALID_TYPES or (isinstance(value, str) and value.startswith("<unknown PJRT_NamedValue_Type"))
    }
    assert not bad, f"PJRT_DeviceDescription_Attributes of device {device.id} should have PJRT_NamedValue_Type 0..4, but: {bad}"
