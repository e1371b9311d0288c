"""Helpers of the client layer: the create options each platform documents, and the topology under test.

Which platform's options apply follows the profile's `platform` (what the plugin must report, checked by
client.platform.test_platform_name_is_the_profiles), never the name the plugin reports: a plugin that renamed its
platform must not turn its documented options' tests into SKIPs. Without a profile that names the platform, the
reported name decides, and a test it rules out is NOT_SUPPORTED naming that answer (the verdict counts it).
"""
from __future__ import annotations

from typing import Any, Callable

import pytest

from pjrt_cts.testing import not_applicable, unsupported_if_unimplemented
from pjrt_cts.testing.plugin_under_test import expected_platform
from pjrt_cts.testing.requirements import unsupported_by_report

# Platform name (PJRT_Client_PlatformName, any case) -> the family whose documented create options apply.
PLATFORM_FAMILIES = {"cpu": "cpu", "cuda": "gpu", "rocm": "gpu"}


def platform_family_of(name: str) -> str:
    """'cpu', 'gpu', or the platform name itself (lower case) when the suite knows no documented options for it."""
    return PLATFORM_FAMILIES.get(name.lower(), name.lower())


@pytest.fixture(scope="session")
def require_platform_family(client: Any) -> Callable[[str], None]:
    """Options documented for another platform family do not apply here: a SKIP where the profile says which
    platform the plugin is, NOT_SUPPORTED naming the plugin's answer where only that answer says it."""
    profile_platform = expected_platform()
    reported = client.platform_name

    def require(family: str) -> None:
        if profile_platform is not None:
            if platform_family_of(profile_platform) != family:
                not_applicable(f"documented for {family} plugins; the profile says the plugin is {profile_platform!r}")
        elif platform_family_of(reported) != family:
            unsupported_by_report("PJRT_Client_PlatformName", reported,
                                  f"documented for {family} plugins, and no profile names the plugin's platform")

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
