"""The plugin under test, as the run context describes it (pjrt_cts.schema.run_context).

Nothing here loads a plugin: the runner's controller imports the suites' conftest files too, and only
worker processes may load the plugin under test (the `plugin` fixture does, lazily).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from pjrt_cts.schema import TopologySpec, UserSettings, run_context


def plugin_path_under_test() -> Path:
    from pjrt_cts.runtime import default_plugin_path

    configured = run_context().plugin_path
    return Path(configured) if configured else default_plugin_path()


def create_options_under_test() -> dict[str, Any]:
    return dict(run_context().create_options)


def profile_name() -> str:
    return run_context().profile


def expected_platform() -> str | None:
    """The platform name the profile under test says PJRT_Client_PlatformName must answer (profile.toml `platform`);
    for a bare run of the bundled plugin, the default profile's. None: no profile names it."""
    from pjrt_cts.profiles import DEFAULT_PROFILE, get_profile

    context = run_context()
    name = context.profile or ("" if context.plugin_path else DEFAULT_PROFILE)
    return get_profile(name).platform if name else None


def no_device_codes() -> frozenset[str]:
    """PJRT error codes with which PJRT_Client_Create says "no device" on this host (the profile documents them)."""
    return run_context().no_device_codes


def output_dir() -> Path:
    directory = Path(run_context().out_dir)
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def user_settings() -> UserSettings:
    """The user's knobs of the run (fuzzer seed, node count, key-value backend)."""
    return run_context().settings


# The topology the aot layer compiles for when the run names none: the plugin's default (an empty name).
DEFAULT_TOPOLOGY = TopologySpec(label="default")


def topology_specs() -> tuple[TopologySpec, ...]:
    """The topologies the aot layer compiles for without a device (the profile's, or `run --topology`), in order."""
    return run_context().topologies or (DEFAULT_TOPOLOGY,)


def device_less() -> bool:
    """`run --aot`: no client is created in this run, as on a host without the plugin's device."""
    return run_context().device_less
