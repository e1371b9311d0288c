"""Helpers of the client layer: the n-th addressable device, and the options each platform documents."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from pjrt_cts.model import NotSupported

# Platform name (PJRT_Client_PlatformName) -> the family whose documented create options apply.
PLATFORM_FAMILIES = {"cpu": "cpu", "cuda": "gpu", "rocm": "gpu"}


@pytest.fixture(scope="session")
def device_at(devices: list[Any]) -> Callable[[int], Any]:
    """`device_at(i)`: the i-th addressable device, NOT_SUPPORTED when the plugin has fewer."""

    def pick(index: int) -> Any:
        if index >= len(devices):
            raise NotSupported(f"needs {index + 1} addressable devices, the plugin has {len(devices)}")
        return devices[index]

    return pick


@pytest.fixture(scope="session")
def platform_family(client: Any) -> str:
    """'cpu', 'gpu', or the platform name itself when the suite knows no documented options for it."""
    name = client.platform_name
    return PLATFORM_FAMILIES.get(name, name)


@pytest.fixture(scope="session")
def require_platform_family(platform_family: str) -> Callable[[str], None]:
    def require(family: str) -> None:
        if family != platform_family:
            raise NotSupported(f"documented for {family} plugins; the plugin under test is {platform_family}")

    return require
