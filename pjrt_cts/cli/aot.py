"""`pjrt-cts aot ...`: ahead-of-time artifacts across machines (the AOT tier's end-to-end check, docs/levels.md).

    pjrt-cts aot export-target --plugin cuda -o plugins/cuda/targets/h100.txtpb   # on the GPU host
    pjrt-cts aot export DIR --plugin cuda --topology h100                         # on a machine without a GPU
    pjrt-cts aot check DIR --plugin cuda                                          # on the GPU host

Each loads the plugin in a child process with the profile's environment (pjrt_cts.testing.aot_artifacts does the
work); the exit status is the child's.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from pjrt_cts.cli.main import UsageError
from pjrt_cts.cli.plugin_arg import ResolvedPlugin, add_plugin_arguments, resolve_plugin


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "aot", help="compile golden programs without a device, run them where the device is",
        description="Ahead-of-time artifacts: a device's target description exported on its host, golden programs "
                    "compiled for a topology without a device and serialized, then loaded and run on the device.")
    commands = parser.add_subparsers(dest="aot_command", metavar="COMMAND", required=True)
    target = commands.add_parser("export-target", help="write the target description of this host's device (the "
                                 "topology attribute target_config) for a profile's [[topology]]")
    add_plugin_arguments(target)
    target.add_argument("-o", "--output", required=True, type=Path, metavar="FILE", help="the target file to write")
    target.set_defaults(func=handle_export_target)
    export = commands.add_parser("export", help="compile a sample of golden programs for a topology (no device) and "
                                 "serialize them to DIR with a manifest")
    export.add_argument("directory", type=Path, metavar="DIR")
    add_plugin_arguments(export)
    export.add_argument("--topology", metavar="NAME", help="one of the profile's [[topology]] labels, else the name "
                        "PJRT_TopologyDescription_Create gets (default: the profile's first)")
    export.add_argument("--topology-option", dest="topology_options", action="append", default=[], metavar="K=V",
                        help="a PJRT_TopologyDescription_Create option (repeatable)")
    export.add_argument("--program", dest="programs", action="append", default=[], metavar="PATTERN",
                        help="golden program ids to export (fnmatch; repeatable; default: one per family and one "
                             "f32 pack of each core family)")
    export.add_argument("--max-mib", type=float, default=40.0, metavar="MIB",
                        help="leave out programs past this many MiB of serialized executables (default 40)")
    export.set_defaults(func=handle_export)
    check = commands.add_parser("check", help="load every executable of DIR (DeserializeAndLoad), run it on the "
                                "golden inputs and compare with the references: one PASS/FAIL line per program")
    check.add_argument("directory", type=Path, metavar="DIR")
    add_plugin_arguments(check)
    check.add_argument("--create-option", dest="create_options", action="append", default=[], metavar="K=V",
                       help="client create option (repeatable; over the profile's)")
    check.set_defaults(func=handle_check)


def handle_export_target(args: argparse.Namespace) -> int:
    plugin = resolve_plugin(args.path, args.plugin)
    return _run_child(plugin, {"command": "export-target", "output": str(args.output.expanduser().resolve()),
                               "distribution": _distribution(plugin)})


def handle_export(args: argparse.Namespace) -> int:
    from pjrt_cts.cli.run import run_topologies

    plugin = resolve_plugin(args.path, args.plugin)
    specs = run_topologies(plugin.profile, [args.topology] if args.topology else [], args.topology_options)
    if not specs:
        raise UsageError("aot export: no topology: name one with --topology (the profile lists none that is usable)")
    return _run_child(plugin, {"command": "export", "topology": specs[0].to_json(),
                               "directory": str(args.directory.expanduser().resolve()), "programs": args.programs,
                               "budget_bytes": int(args.max_mib * 1024 * 1024)})


def handle_check(args: argparse.Namespace) -> int:
    from pjrt_cts.cli.run import _parse_create_options

    plugin = resolve_plugin(args.path, args.plugin)
    directory = args.directory.expanduser().resolve()
    if not (directory / "manifest.json").is_file():
        raise UsageError(f"aot check: {directory} has no manifest.json (made by `pjrt-cts aot export`)")
    options = {**plugin.create_options, **_parse_create_options(args.create_options)}
    return _run_child(plugin, {"command": "check", "directory": str(directory), "create_options": options})


def _distribution(plugin: ResolvedPlugin) -> str:
    found = plugin.profile.installed_distribution() if plugin.profile is not None else None
    return f"{found[0]} {found[1]}" if found else ""


def _run_child(plugin: ResolvedPlugin, request: dict[str, Any]) -> int:
    """Run the request in `python -m pjrt_cts.testing.aot_artifacts` with the profile's environment."""
    preload: list[str] = []
    if plugin.profile is not None:
        try:
            preload = [str(path) for path in plugin.profile.preload_libraries()]
        except (OSError, ValueError):  # a runtime that cannot be resolved: load without preloads
            preload = []
    request = {**request, "plugin": str(plugin.path), "preload": preload}
    with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="pjrt-cts-aot-", delete=False) as handle:
        json.dump(request, handle)
    try:
        done = subprocess.run([sys.executable, "-m", "pjrt_cts.testing.aot_artifacts", handle.name],
                              env=plugin.environment(), check=False)
    finally:
        Path(handle.name).unlink(missing_ok=True)
    return done.returncode
