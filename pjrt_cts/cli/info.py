"""`pjrt-cts info [PATH] [--plugin PROFILE]`: a plugin's API version, slots, extensions, attributes, platform and devices.

The plugin is loaded in a child process (pjrt_cts.runner.probe). Exit codes: 0 described; 2 usage error
(no such file, not a PJRT plugin); 4 the plugin crashed (signal, abort, exit) or hung while being described:
what was learned before is printed as usual, and one line on stderr names the PJRT function in progress,
the signal or timeout and the plugin's last stderr line.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tabulate import tabulate

from pjrt_cts.abi.slots import SLOTS, SLOTS_BY_NAME

from pjrt_cts.cli.main import UsageError
from pjrt_cts.cli.plugin_arg import add_plugin_arguments, resolve_plugin

EXIT_PLUGIN_DIED = 4
DEFAULT_TIMEOUT = 120.0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("info", help="describe a PJRT plugin (default: the bundled CPU plugin)")
    add_plugin_arguments(parser)
    parser.add_argument("--create-option", action="append", default=[], metavar="K=V", help="client create option")
    parser.add_argument("--create-options-json", default=None, help="client create options as a JSON object")
    parser.add_argument("--json", action="store_true", help="print the identity card as JSON")
    parser.add_argument("--no-sha256", action="store_true", help="skip hashing the library")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                        help=f"seconds each step (load, initialize, client create, ...) may take (default {DEFAULT_TIMEOUT:g})")
    parser.set_defaults(func=run)


def _create_options(args: argparse.Namespace, options: dict[str, Any]) -> dict[str, Any]:
    """The profile's options, then --create-options-json, then each --create-option."""
    from pjrt_cts.runtime.named_values import parse_option_assignments

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
    from pjrt_cts.runner.probe import DESCRIBE_STEPS, file_sha256, probe_plugin

    plugin = resolve_plugin(args.path, args.plugin)
    options = _create_options(args, dict(plugin.create_options))
    path = str(plugin.path)
    result = probe_plugin(path, options, steps=DESCRIBE_STEPS, step_timeout=args.timeout, env=plugin.environment())
    if result.load_error:
        raise UsageError(result.load_error)
    identity = result.identity_card()
    if not args.no_sha256:
        identity["sha256"] = file_sha256(Path(identity["path"]))
    if args.json:
        json.dump(identity, sys.stdout, default=str)
        sys.stdout.write("\n")
    else:
        print(render_identity(identity))
    sys.stdout.flush()
    if result.death is not None:
        print(f"pjrt-cts info: {Path(path).name}: {result.death.one_line()}", file=sys.stderr)
        return EXIT_PLUGIN_DIED
    return 0


def render_identity(identity: dict[str, Any]) -> str:
    missing = identity["missing_slots"]
    present = identity.get("slots_present")
    summary = [
        ("path", identity["path"]),
        ("sha256", identity["sha256"] or "-"),
        ("API version", identity["api_version"]),
        ("PJRT_Api struct_size", identity["struct_size"]),
        ("slots present", f"{present} of {len(SLOTS)} (header 0.114)" if present is not None else "-"),
        ("slots missing", len(missing)),
        ("extensions", ", ".join(f"{e['name']}({e['type']})" for e in identity["extensions"]) or "-"),
        ("platform", f"{identity['platform_name']} / {identity['platform_version']}" if identity["platform_name"] else "-"),
        ("devices", len(identity["devices"])),
    ]
    if identity["client_error"]:
        error = identity["client_error"]
        summary.append(("client create", f"{error.get('code', 'error')}: {error['message']}"))
    if identity.get("failure"):
        summary.append(("probe stopped", identity["failure"]["summary"]))
    if identity.get("attributes_error"):
        error = identity["attributes_error"]
        summary.append(("attributes", f"{error.get('code', 'error')}: {error['message']}"))
    parts = [tabulate([(name, "-" if value is None else value) for name, value in summary], tablefmt="simple_grid",
                      disable_numparse=True)]
    parts.append("Plugin attributes\n" + tabulate(sorted(identity["attributes"].items()), headers=["name", "value"], tablefmt="simple_grid"))
    if missing:
        rows = [(name, SLOTS_BY_NAME[name[5:]].index, f"0.{SLOTS_BY_NAME[name[5:]].since_minor}") for name in missing]
        parts.append(f"Missing slots ({len(missing)})\n" + tabulate(rows, headers=["function", "slot", "added in"], tablefmt="simple_grid", disable_numparse=True))
    if identity["devices"]:
        device_rows = [
            (d["id"], d["kind"], d["process_index"], d.get("local_hardware_id", "-"), "yes" if d["addressable"] else "no", ", ".join(d.get("memories", [])))
            for d in identity["devices"]
        ]
        parts.append("Devices\n" + tabulate(device_rows, headers=["id", "kind", "process", "local hw id", "addressable", "memories"], tablefmt="simple_grid"))
    return "\n\n".join(parts)
