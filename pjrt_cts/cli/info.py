"""`pjrt-cts info [PATH]`: a plugin's API version, slots, extensions, attributes, platform and devices."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tabulate import tabulate

from pjrt_cts.cli.main import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("info", help="describe a PJRT plugin (default: the bundled CPU plugin)")
    parser.add_argument("path", nargs="?", help="plugin shared library (default: bundled XLA CPU plugin)")
    parser.add_argument("--create-option", action="append", default=[], metavar="K=V", help="client create option")
    parser.add_argument("--create-options-json", default=None, help="client create options as a JSON object")
    parser.add_argument("--json", action="store_true", help="print the identity card as JSON")
    parser.add_argument("--no-sha256", action="store_true", help="skip hashing the library")
    parser.set_defaults(func=run)


def _create_options(args: argparse.Namespace) -> dict[str, Any]:
    from pjrt_cts.runtime.named_values import parse_option_assignments

    options: dict[str, Any] = {}
    if args.create_options_json:
        try:
            options.update(json.loads(args.create_options_json))
        except json.JSONDecodeError as exc:
            raise UsageError(f"--create-options-json is not valid JSON: {exc}") from None
    try:
        options.update(parse_option_assignments(args.create_option))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return options


def run(args: argparse.Namespace) -> int:
    from pjrt_cts.runtime import Plugin, PluginLoadError, default_plugin_path
    from pjrt_cts.runtime.identity import plugin_identity

    options = _create_options(args)
    if args.path:
        path = args.path
    else:
        path = str(default_plugin_path())
        options.setdefault("cpu_device_count", 4)
    try:
        plugin = Plugin.load(path)
    except PluginLoadError as exc:
        raise UsageError(str(exc)) from None
    identity = plugin_identity(plugin, options, with_sha256=not args.no_sha256)
    if args.json:
        json.dump(identity, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(render_identity(identity, plugin))
    return 0


def render_identity(identity: dict[str, Any], plugin: Any) -> str:
    missing = identity["missing_slots"]
    summary = [
        ("path", identity["path"]),
        ("sha256", identity["sha256"] or "-"),
        ("API version", identity["api_version"]),
        ("PJRT_Api struct_size", identity["struct_size"]),
        ("slots present", f"{identity['num_slots'] - len(plugin.null_slots_within_struct_size())} of {138} (header 0.114)"),
        ("slots missing", len(missing)),
        ("extensions", ", ".join(f"{e['name']}({e['type']})" for e in identity["extensions"]) or "-"),
        ("platform", f"{identity['platform_name']} / {identity['platform_version']}" if identity["platform_name"] else "-"),
        ("devices", len(identity["devices"])),
    ]
    if identity["client_error"]:
        error = identity["client_error"]
        summary.append(("client create", f"{error['code']}: {error['message']}"))
    parts = [tabulate(summary, tablefmt="simple_grid", disable_numparse=True)]
    parts.append("Plugin attributes\n" + tabulate(sorted(identity["attributes"].items()), headers=["name", "value"], tablefmt="simple_grid"))
    if missing:
        from pjrt_cts.abi.slots import SLOTS_BY_NAME

        rows = [(name, SLOTS_BY_NAME[name[5:]].index, f"0.{SLOTS_BY_NAME[name[5:]].since_minor}") for name in missing]
        parts.append(f"Missing slots ({len(missing)})\n" + tabulate(rows, headers=["function", "slot", "added in"], tablefmt="simple_grid", disable_numparse=True))
    if identity["devices"]:
        rows = [
            (d["id"], d["kind"], d["process_index"], d.get("local_hardware_id", "-"), "yes" if d["addressable"] else "no", ", ".join(d.get("memories", [])))
            for d in identity["devices"]
        ]
        parts.append("Devices\n" + tabulate(rows, headers=["id", "kind", "process", "local hw id", "addressable", "memories"], tablefmt="simple_grid"))
    return "\n\n".join(parts)
