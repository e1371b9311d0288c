"""The plugin under test, as the runner describes it to worker processes through environment variables.

Nothing here loads a plugin: the runner's controller imports the suites' conftest files too, and only
worker processes may load the plugin under test (the `plugin` fixture does, lazily).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

ENV_PLUGIN = "PJRT_CTS_PLUGIN"  # path of the plugin library
ENV_CREATE_OPTIONS = "PJRT_CTS_CREATE_OPTIONS"  # JSON object: PJRT_Client_Create options
ENV_PROFILE = "PJRT_CTS_PROFILE"  # profile name ("" for a bare --plugin path)
ENV_OUT = "PJRT_CTS_OUT"  # the run's output directory (reproduction files go below it)
ENV_NO_DEVICE_CODES = "PJRT_CTS_NO_DEVICE_CODES"  # comma-separated PJRT error code names: the profile's "no device"
DEFAULT_CPU_OPTIONS = {"cpu_device_count": 4}  # the default plugin, run without the runner


def plugin_path_under_test() -> Path:
    from pjrt_cts.runtime import default_plugin_path

    configured = os.environ.get(ENV_PLUGIN)
    return Path(configured) if configured else default_plugin_path()


def create_options_under_test() -> dict[str, Any]:
    configured = os.environ.get(ENV_CREATE_OPTIONS)
    if configured:
        return dict(json.loads(configured))
    return dict(DEFAULT_CPU_OPTIONS) if ENV_PLUGIN not in os.environ else {}


def profile_name() -> str:
    return os.environ.get(ENV_PROFILE, "")


def no_device_codes() -> frozenset[str]:
    """PJRT error codes with which PJRT_Client_Create says "no device" on this host (the profile documents them)."""
    raw = os.environ.get(ENV_NO_DEVICE_CODES, "")
    return frozenset(code.strip().upper() for code in raw.split(",") if code.strip())


def output_dir() -> Path:
    directory = Path(os.environ.get(ENV_OUT, "out"))
    directory.mkdir(parents=True, exist_ok=True)
    return directory
