"""Which PJRT C API versions the installed jaxlib accepts.

jaxlib does not expose its own (framework) PJRT API version as data; its loader
(`xla/pjrt/pjrt_api.cc`, InitializePjrtPlugin) applies this policy:

- ENABLE_PJRT_COMPATIBILITY unset or true: the plugin's major must equal the framework's (0) and
  its minor must be >= 29 (XLA's kMinPjRtMinor); a plugin newer than the framework is accepted.
- ENABLE_PJRT_COMPATIBILITY=false (or 0): major.minor must equal the framework's exactly.

The framework version itself is learned by asking jaxlib (`probe_framework_api_version`): in a
child process with compatibility off, initializing the plugin either succeeds (framework ==
plugin) or fails with a message naming the framework version.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

FRAMEWORK_API_MAJOR = 0
FRAMEWORK_MIN_MINOR = 29
COMPATIBILITY_ENV = "ENABLE_PJRT_COMPATIBILITY"
_FALSE_WORDS = ("0", "false")
_FRAMEWORK_VERSION = re.compile(r"framework PJRT API (?:major )?version (\d+)(?:\.(\d+))?")
_PROBE_TIMEOUT_S = 120.0

ApiVersion = tuple[int, int]


def compatibility_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """ENABLE_PJRT_COMPATIBILITY as XLA reads it: on unless set to false/0."""
    value = (os.environ if environ is None else environ).get(COMPATIBILITY_ENV)
    return value is None or value.strip().lower() not in _FALSE_WORDS


def format_version(version: ApiVersion | None) -> str:
    return "unknown" if version is None else f"{version[0]}.{version[1]}"


@dataclass(frozen=True)
class JaxlibApiPolicy:
    """The PJRT API versions one jaxlib accepts, given its compatibility setting."""

    jaxlib_version: str
    compatibility: bool
    framework_version: ApiVersion | None = None  # needed only when compatibility is off

    def describe(self) -> str:
        if self.compatibility:
            return (f"jaxlib {self.jaxlib_version} accepts PJRT API {FRAMEWORK_API_MAJOR}.x with minor >= "
                    f"{FRAMEWORK_MIN_MINOR} ({COMPATIBILITY_ENV} on)")
        return (f"jaxlib {self.jaxlib_version} accepts exactly PJRT API {format_version(self.framework_version)} "
                f"({COMPATIBILITY_ENV}=false)")

    def rejection(self, plugin_version: ApiVersion) -> str | None:
        """None when jaxlib accepts a plugin of `plugin_version`, else why not (names both sides)."""
        major, minor = plugin_version
        plugin = f"the plugin's PJRT API version {major}.{minor}"
        if major != FRAMEWORK_API_MAJOR:
            return f"{plugin} has major {major}; {self.describe()}"
        if self.compatibility:
            if minor < FRAMEWORK_MIN_MINOR:
                return f"{plugin} is older than the framework minimum {FRAMEWORK_API_MAJOR}.{FRAMEWORK_MIN_MINOR}; {self.describe()}"
            return None
        if self.framework_version is None:
            return f"{plugin} cannot be checked: the framework version of jaxlib {self.jaxlib_version} is unknown"
        if tuple(plugin_version) != tuple(self.framework_version):
            return f"{plugin} differs from the framework's; {self.describe()}"
        return None


def parse_framework_version(message: str) -> ApiVersion | None:
    """The framework version named in jaxlib's version-mismatch error, if any."""
    match = _FRAMEWORK_VERSION.search(message)
    if not match:
        return None
    return int(match[1]), int(match[2] or 0)


_PROBE = """
import ctypes, sys
for library in sys.argv[2:]:
    ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
from jaxlib import xla_client
xla_client.load_pjrt_plugin_dynamically("pjrt_cts_probe", sys.argv[1])
try:
    xla_client.initialize_pjrt_plugin("pjrt_cts_probe")
except Exception as error:
    print("REJECTED", error)
else:
    print("ACCEPTED")
"""


@dataclass(frozen=True)
class ProbeResult:
    accepted_exactly: bool  # jaxlib accepted the plugin with compatibility off
    framework_version: ApiVersion | None
    output: str


def probe_framework_api_version(plugin_path: Path | str, plugin_version: ApiVersion,
                                preload: Sequence[Path | str] = ()) -> ProbeResult:
    """Ask jaxlib, in a child process with ENABLE_PJRT_COMPATIBILITY=false, which version it is built for."""
    env = dict(os.environ, **{COMPATIBILITY_ENV: "false", "TF_CPP_MIN_LOG_LEVEL": "3"})
    command = [sys.executable, "-c", _PROBE, str(plugin_path), *map(str, preload)]
    completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=_PROBE_TIMEOUT_S)
    output = (completed.stdout + completed.stderr).strip()
    if "ACCEPTED" in completed.stdout:
        return ProbeResult(True, tuple(plugin_version), output)  # type: ignore[arg-type]  # plugin_version was parsed into ints above
    return ProbeResult(False, parse_framework_version(output), output)


def installed_jaxlib_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("jaxlib")
    except metadata.PackageNotFoundError:
        return "not installed"
