"""Helpers of the client layer: the create options each platform documents, and the topology under test."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from pjrt_cts.testing import not_applicable, unsupported_if_unimplemented

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


@pytest.fixture(scope="session")
def topology(client: Any) -> Any:
    """The PJRT_TopologyDescription the topology tests (test_topology.py) run against, as a runtime Topology: the
    client's own (PJRT_Client_TopologyDescription; UNIMPLEMENTED is NOT_SUPPORTED). The tests that take only this
    fixture hold for any topology (one made by PJRT_TopologyDescription_Create for ahead-of-time compilation too);
    those that also take `client` compare it with the client's devices and memories."""
    from pjrt_cts.runtime import Topology

    with unsupported_if_unimplemented("PJRT_Client_TopologyDescription"):
        found = Topology.of_client(client)
    assert found.handle, "PJRT_Client_TopologyDescription succeeded but returned a NULL topology"
    return found
