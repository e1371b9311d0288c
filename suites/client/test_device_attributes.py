"""PJRT_Device_GetAttributes (0.92+): the attribute list frameworks read for every device at client start-up.

JAX's C API client calls it once per device when the plugin's minor has the slot, CHECKs that the returned
attributes_deleter is non-NULL (even for an empty list) and exposes the values as `device.<attr>`. The list must be
freed through that deleter, agree with PJRT_DeviceDescription_Attributes of the same device (each attribute of the
description, with its value; the live device may add some), and be the same on every call.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from pjrt_cts.runtime.named_values import type_name_of
from pjrt_cts.testing import device_index_params, requires

pytestmark = requires("Device_GetAttributes")
DEVICE_INDEXES = device_index_params()
MISSING = object()  # an attribute the device does not have
VALID_TYPES = {"STRING", "INT64", "INT64_LIST", "FLOAT", "BOOL"}


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_attributes_come_with_a_deleter(devices: list[Any], index: int) -> None:
    device = devices[index]
    attributes = device.read_attributes()
    assert attributes.freed, (
        f"PJRT_Device_GetAttributes of device {device.id} returned a NULL attributes_deleter with "
        f"{len(attributes.items)} attributes: the list cannot be freed (JAX's C API client CHECKs the deleter)")


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_attribute_names_are_unique(devices: list[Any], index: int) -> None:
    device = devices[index]
    counts = Counter(name for name, _ in device.read_attributes().items)
    repeated = {name: n for name, n in counts.items() if n > 1 or not name}
    assert not repeated, f"PJRT_Device_GetAttributes of device {device.id} should have unique non-empty names, but {repeated}"


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_attribute_types_are_valid(devices: list[Any], index: int) -> None:
    device = devices[index]
    bad = {name: value for name, value in device.read_attributes().items
           if type_name_of(value) not in VALID_TYPES
           or (isinstance(value, str) and value.startswith("<unknown PJRT_NamedValue_Type"))}
    assert not bad, f"PJRT_Device_GetAttributes of device {device.id} should have PJRT_NamedValue_Type 0..4, but: {bad}"


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_attributes_agree_with_the_device_description(devices: list[Any], index: int) -> None:
    device = devices[index]
    """Every attribute of the description is the device's, with the same value. The live device may add attributes
    its static description lacks (XLA:GPU adds numa_node: a description also stands for devices of a topology
    compiled for elsewhere), never drop or change one."""
    from_device = dict(device.read_attributes().items)
    from_description = dict(device.description.attribute_items())
    differing = {name: (from_device.get(name, "<missing>"), value) for name, value in from_description.items()
                 if from_device.get(name, MISSING) != value}
    assert not differing, (
        f"PJRT_Device_GetAttributes of device {device.id} ({from_device}) should agree with "
        f"PJRT_DeviceDescription_Attributes of its description ({from_description}); (device, description) values "
        f"that differ: {differing}")


@pytest.mark.parametrize("index", DEVICE_INDEXES)
def test_attributes_are_the_same_on_every_call(devices: list[Any], index: int) -> None:
    device = devices[index]
    readings = [device.read_attributes().items for _ in range(3)]
    assert readings[1:] == readings[:-1], (
        f"PJRT_Device_GetAttributes of device {device.id} should return the same attributes each call, but returned "
        f"{readings}")
