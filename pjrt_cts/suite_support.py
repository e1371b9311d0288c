"""Helpers the suites share: the plugin under test from the runner's environment, and clause-style checks.

The runner passes the plugin to worker processes through environment variables; nothing here
loads a plugin at import time (the controller imports suites/conftest.py too).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, TypeVar

import pytest

from pjrt_cts.model import NotSupported
from pjrt_cts.runtime import PjrtError, Plugin, Unsupported, default_plugin_path

T = TypeVar("T")

ENV_PLUGIN = "PJRT_CTS_PLUGIN"
ENV_CREATE_OPTIONS = "PJRT_CTS_CREATE_OPTIONS"
ENV_PROFILE = "PJRT_CTS_PROFILE"
ENV_OUT = "PJRT_CTS_OUT"
DEFAULT_CPU_OPTIONS = {"cpu_device_count": 4}


def plugin_path_under_test() -> Path:
    configured = os.environ.get(ENV_PLUGIN)
    return Path(configured) if configured else default_plugin_path()


def create_options_under_test() -> dict[str, Any]:
    configured = os.environ.get(ENV_CREATE_OPTIONS)
    if configured:
        return dict(json.loads(configured))
    return dict(DEFAULT_CPU_OPTIONS) if ENV_PLUGIN not in os.environ else {}


def output_dir() -> Path:
    directory = Path(os.environ.get(ENV_OUT, "out"))
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def not_supported(reason: str) -> None:
    """Report the test NOT_SUPPORTED with the plugin's reason (never a silent skip)."""
    raise NotSupported(reason)


def skip_not_supported(reason: str) -> None:
    """NOT_SUPPORTED from a fixture (setup phase): the runner maps this skip prefix to NOT_SUPPORTED."""
    pytest.skip(f"NOT_SUPPORTED: {reason}")


def require_slot(plugin: Plugin, name: str) -> None:
    if not plugin.has(name):
        try:
            plugin.function(name)
        except Unsupported as exc:
            raise NotSupported(str(exc)) from None


def require_devices(client: Any, count: int) -> list[Any]:
    devices = client.addressable_devices
    if len(devices) < count:
        raise NotSupported(f"needs {count} addressable devices, the plugin has {len(devices)}")
    return devices[:count]


def expect_error(call: Callable[[], T], *codes: str, function: str) -> PjrtError:
    """Assert `call` fails with a PjrtError whose code is one of `codes`; returns it.

    The message names the PJRT function and the code and message observed (or that it succeeded).
    """
    try:
        call()
    except PjrtError as error:
        assert error.code in codes, (
            f"{function} should fail with {' or '.join(codes)}, but failed with {error.code}: {error.message}"
        )
        return error
    raise AssertionError(f"{function} should fail with {' or '.join(codes)}, but succeeded")


def unimplemented_is_not_supported(call: Callable[[], T]) -> T:
    """Run `call`; an UNIMPLEMENTED answer from the plugin becomes NOT_SUPPORTED with its message."""
    try:
        return call()
    except PjrtError as error:
        if error.code == "UNIMPLEMENTED":
            raise NotSupported(f"{error.function}: UNIMPLEMENTED: {error.message}") from None
        raise
