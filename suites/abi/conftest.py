"""Helpers of the abi layer: what the plugin's PJRT_Api table says about itself.

The abi layer needs no client: every check reads the function table, its version, its
extension chain and the plugin attributes.
"""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.abi.slots import HEADER_MINOR


@pytest.fixture(scope="session")
def reported_minor(plugin: Any) -> int:
    """The minor version the plugin reports in PJRT_Api.pjrt_api_version."""
    return int(plugin.api_version[1])


@pytest.fixture(scope="session")
def known_minor(reported_minor: int) -> int:
    """The reported minor, capped at the newest header this suite mirrors (newer plugins have >= its slots)."""
    return min(reported_minor, HEADER_MINOR)
