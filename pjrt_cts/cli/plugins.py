"""`pjrt-cts plugins`: the plugin profiles, whether each is installed, where its .so is, its API version.

The API version is read by loading each installed plugin (dlopen + GetPjrtApi, nothing else) in a child
process with the profile's worker environment (pjrt_cts.runner.probe), never in this process: plugins are
large, some abort or hang, and several of them in one process may clash. A plugin that dies or hangs
while loading shows `crashed (SIGNAL)` / `timeout (S)` and one line under "Problems" (the signal, the
plugin's last stderr line).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pjrt_cts.cli.main import UsageError

DEFAULT_PROBE_TIMEOUT = 120.0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("plugins", help="list plugin profiles: installed or not, library path, API version")
    parser.add_argument("names", nargs="*", metavar="PROFILE", help="only these profiles (default: all)")
    parser.add_argument("--no-probe", action="store_true", help="do not load plugins (in subprocesses) to read their API version")
    parser.add_argument("--probe-timeout", type=float, default=DEFAULT_PROBE_TIMEOUT, metavar="S",
                        help=f"seconds allowed per plugin probe (default {DEFAULT_PROBE_TIMEOUT:g})")
    parser.add_argument("--json", action="store_true", help="print the profiles as JSON")
    parser.set_defaults(func=run)


def probe_api_version(path: str, create_options: dict[str, Any], env_additions: dict[str, str], timeout: float) -> str:
    """The plugin's PJRT API version, read by loading it (dlopen + GetPjrtApi) in a child process,
    or a short reason why it could not be read."""
    return _api_column(_probe_load(path, create_options, env_additions, timeout))


def _probe_load(path: str, create_options: dict[str, Any], env_additions: dict[str, str], timeout: float) -> Any:
    from pjrt_cts.runner.probe import probe_plugin

    return probe_plugin(path, create_options, steps=("load",), step_timeout=timeout, env={**os.environ, **env_additions})


def _api_column(result: Any) -> str:
    if result.load_error:
        return f"error (exit 2: {result.load_error[:120]})"  # 2: what `pjrt-cts info` exits with for a non-plugin
    death = result.death
    if death is not None:
        if death.kind == "timeout":
            return f"timeout ({death.timeout_s:g}s)"
        return f"crashed ({death.signal or f'exit {death.exit_status}'})"
    return str(result.identity.get("api_version") or "unknown")


def describe(profile: Any, probe: bool, timeout: float) -> dict[str, Any]:
    """One row of the table, as plain data."""
    row: dict[str, Any] = {
        "name": profile.name,
        "description": profile.description,
        "needs_hardware": profile.needs_hardware,
        "expected_device_count": profile.expected_device_count,
        "create_options": profile.create_options,
        "expectations": str(profile.expectations_path) if profile.expectations_path else None,
        "install_hint": profile.install_hint(),
        "installed": False,
        "distribution": None,
        "library": None,
        "api_version": None,
        "problems": [],
    }
    try:
        library = profile.resolve_library()
    except FileNotFoundError as exc:
        row["problems"].append(str(exc))
        return row
    row["installed"] = True
    row["library"] = str(library)
    distribution = profile.installed_distribution()
    row["distribution"] = f"{distribution[0]} {distribution[1]}" if distribution else None
    from pjrt_cts.runner.probe import file_sha256

    row["sha256"] = file_sha256(library)
    pinned = profile.pinned_sha256()
    row["sha256_pinned"] = pinned
    if pinned is not None and pinned != row["sha256"]:
        row["problems"].append(f"{library.name} has SHA-256 {row['sha256']}, not the {pinned} this profile was "
                               "validated with (another build under the same version)")
    report = profile.soname_report()
    for soname, hint in report.unresolved.items():
        row["problems"].append(f"{soname} not found: {hint}")
    try:
        row["shims"] = [shim.name for shim in profile.needed_shims()]
        env = profile.worker_environment()
    except Exception as exc:  # noqa: BLE001 - e.g. no C compiler for a needed shim: say so, keep listing
        row["problems"].append(f"cannot prepare the worker environment: {exc}")
        env = {}
    if probe:
        if report.unresolved:
            row["api_version"] = "unloadable (missing sonames)"
        else:
            result = _probe_load(str(library), profile.create_options, env, timeout)
            row["api_version"] = _api_column(result)
            if result.death is not None:
                row["problems"].append(f"loading {library.name} in a child process: {result.death.one_line()}")
    return row


def render(rows: list[dict[str, Any]], probed: bool) -> str:
    from tabulate import tabulate

    table = []
    for row in rows:
        status = "installed" if row["installed"] else "not installed"
        api = row["api_version"] if probed and row["installed"] else "-"
        if row.get("sha256_pinned"):
            status += " (sha256 ok)" if row["sha256_pinned"] == row["sha256"] else " (sha256 differs)"
        library = row["library"] or row["install_hint"]
        table.append((row["name"], status, row["distribution"] or "-", api, row["needs_hardware"] or "-", library))
    text = tabulate(table, headers=["profile", "status", "distribution", "API", "needs hardware", "library / how to install"],
                    tablefmt="simple", disable_numparse=True)
    notes = [f"  {row['name']}: {problem}" for row in rows if row["installed"] for problem in row["problems"]]
    if notes:
        text += "\n\nProblems:\n" + "\n".join(notes)
    return text


def run(args: argparse.Namespace) -> int:
    from pjrt_cts.profiles import ProfileError, get_profile, list_profiles

    try:
        if args.names:
            profiles = [get_profile(name) for name in args.names]
        else:
            profiles = list_profiles()
    except KeyError as exc:
        raise UsageError(exc.args[0]) from None
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    probe = not args.no_probe
    # Probes are separate processes, mostly waiting on dlopen: two at a time is plenty.
    with ThreadPoolExecutor(max_workers=2) as pool:
        rows = list(pool.map(lambda profile: describe(profile, probe, args.probe_timeout), profiles))
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(render(rows, probe))
    return 0
