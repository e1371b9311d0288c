"""The jaxlib PJRT-version policy model (pjrt_cts.framework.compat)."""
from __future__ import annotations

import importlib.util

import pytest

from pjrt_cts.framework import compat

# Messages as jaxlib 0.10.2's loader (xla/pjrt/pjrt_api.cc) prints them.
MINOR_MISMATCH = ("INVALID_ARGUMENT: Mismatched PJRT plugin PJRT API version (0.81) and framework PJRT API "
                  "version 0.112).")
MAJOR_MISMATCH = ("INVALID_ARGUMENT: Mismatched PJRT plugin PJRT API major version (1) and framework PJRT API "
                  "major version 0).")


@pytest.mark.parametrize("value, enabled", [(None, True), ("1", True), ("true", True), ("TRUE", True),
                                            ("0", False), ("false", False), (" False ", False)])
def test_compatibility_env_is_read_like_xla(value: str | None, enabled: bool) -> None:
    environ = {} if value is None else {compat.COMPATIBILITY_ENV: value}
    assert compat.compatibility_enabled(environ) is enabled


def test_lenient_policy_accepts_major0_minor_from_29() -> None:
    policy = compat.JaxlibApiPolicy("0.10.2", compatibility=True)
    assert policy.rejection((0, 29)) is None
    assert policy.rejection((0, 81)) is None
    assert policy.rejection((0, 200)) is None  # newer than the framework is accepted


def test_lenient_policy_rejects_old_minor_and_other_major_saying_which() -> None:
    policy = compat.JaxlibApiPolicy("0.10.2", compatibility=True)
    old = policy.rejection((0, 28))
    assert old is not None and "0.28" in old and "0.29" in old and "jaxlib 0.10.2" in old
    other_major = policy.rejection((1, 0))
    assert other_major is not None and "major 1" in other_major


def test_strict_policy_wants_the_exact_framework_version() -> None:
    policy = compat.JaxlibApiPolicy("0.10.2", compatibility=False, framework_version=(0, 112))
    assert policy.rejection((0, 112)) is None
    for version in ((0, 111), (0, 115), (0, 81)):
        reason = policy.rejection(version)
        assert reason is not None and "0.112" in reason and f"0.{version[1]}" in reason
        assert "ENABLE_PJRT_COMPATIBILITY=false" in reason


def test_strict_policy_without_framework_version_cannot_accept() -> None:
    reason = compat.JaxlibApiPolicy("0.10.2", compatibility=False).rejection((0, 112))
    assert reason is not None and "unknown" in reason


def test_framework_version_parsed_from_jaxlib_messages() -> None:
    assert compat.parse_framework_version(MINOR_MISMATCH) == (0, 112)
    assert compat.parse_framework_version(MAJOR_MISMATCH) == (0, 0)
    assert compat.parse_framework_version("some other error") is None


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("jaxlib") is None, reason="jaxlib not installed (jax extra)")
def test_probe_asks_jaxlib_for_its_framework_version(plugin_081) -> None:
    """jaxlib 0.10.2 is built for API 0.112 (per its loader), so it rejects 0.81 when strict."""
    probe = compat.probe_framework_api_version(plugin_081.path, plugin_081.api_version)
    assert not probe.accepted_exactly, probe.output
    assert probe.framework_version is not None and probe.framework_version[0] == 0, probe.output
    assert probe.framework_version[1] > plugin_081.api_version[1], probe.output
