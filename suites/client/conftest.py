"""Helpers of the client layer: the create options each platform documents.

Which platform's options apply follows the profile's `platform` (what the plugin must report, checked by
client.platform.test_platform_name_is_the_profiles), never the name the plugin reports: a plugin that renamed its
platform must not turn its documented options' tests into SKIPs. Without a profile that names the platform, the
reported name decides, and a test it rules out is NOT_SUPPORTED naming that answer (the verdict counts it).
"""
from __future__ import annotations

from typing import Any, Callable

import pytest

from pjrt_cts.testing import not_applicable
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
