"""Helpers of the client layer: the create options each platform documents."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from pjrt_cts.testing import not_applicable

# Platform name (PJRT_Client_PlatformName) -> the family whose documented create options apply.
PLATFORM_FAMILIES = {"cpu": "cpu", "cuda": "gpu", "rocm": "gpu"}


@pytest.fixture(scope="session")
def platform_family(client: Any) -> str:
    """'cpu', 'gpu', or the platform name itself when the suite knows no documented options for it."""
    name = client.platform_name
    return PLATFORM_FAMILIES.get(name, name)


@pytest.fixture(scope="session")
def require_platform_family(platform_family: str) -> Callable[[str], None]:
    """Options documented for another platform family do not apply here (a SKIP saying so)."""

    def require(family: str) -> None:
        if family != platform_family:
            not_applicable(f"documented for {family} plugins; the plugin under test is {platform_family}")

    return require
