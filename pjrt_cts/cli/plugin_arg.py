"""The plugin a command works on: `PATH` or `--plugin PROFILE` (or both: PATH with the profile's options).

One resolution for every command that takes a plugin: a profile gives the library, its create options and
the environment its runtime needs (plugins/<name>/profile.toml); no PATH and no profile means the bundled
XLA CPU plugin with the `cpu` profile. Every failure is a UsageError (one line, exit 2).

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import argparse
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pjrt_cts.cli.main import UsageError


@dataclass
class ResolvedPlugin:
    path: Path
    profile: Any | None  # pjrt_cts.profiles.Profile
    create_options: dict[str, Any] = field(default_factory=dict)

    def worker_environment(self) -> dict[str, str]:
        """What the profile's runtime needs on top of os.environ (library dirs, shims, its [environment])."""
        if self.profile is None:
            return {}
        try:
            return {str(k): str(v) for k, v in self.profile.worker_environment().items()}
        except (OSError, ValueError) as exc:  # missing runtime libraries, malformed profile
            raise UsageError(f"profile {self.profile.name!r}: {exc}") from exc

    def environment(self) -> dict[str, str]:
        """os.environ plus worker_environment(): for a child that loads the plugin."""
        return {**os.environ, **self.worker_environment()}


PATH_HELP = "plugin shared library (default: the profile's, else the bundled XLA CPU plugin)"
PROFILE_HELP = "plugin profile (see `pjrt-cts plugins`): library, create options, environment, expectations"


def add_plugin_arguments(parser: argparse.ArgumentParser, *, path_help: str = PATH_HELP,
                         profile_help: str = PROFILE_HELP) -> None:
    """`[PATH] [--plugin PROFILE]`, the same for info, run, bench, selftest and golden validate."""
    parser.add_argument("path", nargs="?", metavar="PATH", help=path_help)
    parser.add_argument("--plugin", metavar="PROFILE", help=profile_help)


_ET_DYN = 3  # e_type of a shared object (or a PIE executable)


def check_plugin_file(library: Path, given: str) -> None:
    """A PJRT plugin is an ELF shared library exporting GetPjrtApi; say which part fails, without loading it."""
    from pjrt_cts.native.elf import NotElfError, defined_dynamic_symbols

    if not library.exists():
        raise UsageError(f"{given}: no such file")
    if not library.is_file():
        raise UsageError(f"{given}: not a file")
    try:
        with open(library, "rb") as data_file:
            header = data_file.read(64)
    except OSError as exc:
        raise UsageError(f"{given}: cannot be read: {exc.strerror or exc}") from None
    cannot = f"{given}: cannot be loaded as a shared library"
    if header[:4] != b"\x7fELF":
        raise UsageError(f"{cannot}: not an ELF file (no \\x7fELF magic)")
    if len(header) < 64:
        raise UsageError(f"{cannot}: a truncated or malformed ELF file")
    if header[4] != 2 or header[5] != 1:
        raise UsageError(f"{cannot}: not a little-endian 64-bit ELF file")
    if int.from_bytes(header[16:18], "little") != _ET_DYN:
        raise UsageError(f"{cannot}: an ELF file but not a shared object")
    try:
        exported = defined_dynamic_symbols(library)
    except (IndexError, struct.error):
        raise UsageError(f"{cannot}: a truncated or malformed ELF file") from None
    except (NotElfError, OSError, ValueError) as exc:
        raise UsageError(f"{cannot}: not an ELF64 shared object ({exc})") from None
    if "GetPjrtApi" not in exported:
        raise UsageError(f"{given}: does not export GetPjrtApi: not a PJRT plugin")


def resolve_plugin(path: str | None, profile_name: str | None) -> ResolvedPlugin:
    from pjrt_cts.profiles import DEFAULT_PROFILE, get_profile

    profile = None
    if profile_name:
        try:
            profile = get_profile(profile_name)
        except KeyError as exc:
            raise UsageError(str(exc.args[0]) if exc.args else f"unknown plugin profile {profile_name!r}") from None
    elif not path:
        profile = get_profile(DEFAULT_PROFILE)
    if path:
        library = Path(path).expanduser().resolve()
        check_plugin_file(library, path)
    else:
        assert profile is not None  # no PATH: the named or the default profile
        try:
            library = Path(profile.resolve_library()).resolve()
        except FileNotFoundError as exc:
            raise UsageError(f"profile {profile.name!r}: {exc}") from None
    options = dict(getattr(profile, "create_options", None) or {})
    return ResolvedPlugin(library, profile, options)
