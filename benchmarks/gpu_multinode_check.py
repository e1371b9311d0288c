"""Multi-node check on one host with several GPUs: N node processes, one global PJRT client, a cross-process
all-reduce, timed. Built on the multiprocess layer's own launcher and node (pjrt_cts.multiprocess).

    python benchmarks/gpu_multinode_check.py                       # profile cuda, 2 nodes, 1 GPU each
    python benchmarks/gpu_multinode_check.py --plugin cpu --option cpu_device_count=1   # the machinery, on CPU

Steps:
1. probe: one single-process node (no KV callbacks) reports the platform and the local device count (skipped
   with --local-devices), so that this process never creates a client itself;
2. N nodes, each with the profile's create options plus the platform's multi-node options
   (pjrt_cts/multiprocess/schemes.py: for cuda/rocm node_id, num_nodes and visible_devices = its slice of GPUs)
   and the KV callbacks on jaxlib's distributed runtime service when jaxlib is importable, else on the suite's
   loopback store (--kv-backend; which one ran is printed);
3. each node compiles the all_reduce over every global device (one participant per device) and executes it
   --repeats times; results are checked against numpy.

Prints a short summary, then one JSON object (also written to --json FILE). Exit status: 0 when every node
saw one global topology (N x its share of devices, its share addressable) and every all-reduce result is the
reference; 0 as well, with outcome NOT_SUPPORTED, where the platform does not document multi-node clients
(the CPU plugins) and builds no global topology; 1 on a failure; 2 on a usage error.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from pjrt_cts.cli.main import UsageError
from pjrt_cts.cli.plugin_arg import ResolvedPlugin, resolve_plugin
from pjrt_cts.multiprocess import LaunchSpec, NodeReport, run_nodes, scheme_for_platform
from pjrt_cts.multiprocess.checks import client_failures, global_topology_problem
from pjrt_cts.multiprocess.collective_programs import collective_expected
from pjrt_cts.schema import KV_BACKEND_ENV

PROBE_TIMEOUT_S = 180.0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", nargs="?", help="plugin library (default: the profile's)")
    parser.add_argument("--plugin", default="cuda", metavar="PROFILE", help="plugin profile (default: cuda)")
    parser.add_argument("--num-nodes", type=int, default=2)
    parser.add_argument("--local-devices", type=int, default=None,
                        help="devices one single-process client addresses on this host (default: probed)")
    parser.add_argument("--kv-backend", choices=("auto", "jaxlib", "loopback"), default=None,
                        help=f"store behind the KV callbacks (default: ${KV_BACKEND_ENV}, else auto)")
    parser.add_argument("--scenario", choices=("all_reduce", "all_reduce_partitions", "spmd_sum"), default="all_reduce")
    parser.add_argument("--repeats", type=int, default=5, help="timed executions of the program per node")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="override a create option (int, float, true/false or text)")
    parser.add_argument("--timeout", type=float, default=300.0, help="bound of the node run, seconds")
    parser.add_argument("--json", type=Path, default=None, help="also write the JSON result here")
    return parser.parse_args(argv)


def option_value(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def node_setup(resolved: ResolvedPlugin) -> tuple[list[str], dict[str, str]]:
    """(libraries to preload, environment) for node processes, as suites/multiprocess/conftest.py does."""
    if resolved.profile is None:
        return [], {}
    return [str(p) for p in resolved.profile.preload_libraries()], resolved.worker_environment()


def probe(resolved: ResolvedPlugin, options: dict[str, Any], setup: tuple[list[str], dict[str, str]]) -> dict[str, Any]:
    """A single-process client in a node process: its `client` event (platform, devices, creation time)."""
    spec = LaunchSpec(str(resolved.path), 1, [options], preload=setup[0], environment=setup[1], kv_callbacks=False,
                      kv_backend="loopback")
    [report] = run_nodes(spec, timeout_s=PROBE_TIMEOUT_S)
    client = report.event("client")
    if client is None:
        raise SystemExit(f"probe: the plugin made no single-process client: {report.summary()}")
    return client


def node_row(report: NodeReport, expected: np.ndarray) -> dict[str, Any]:
    """One node's facts and timings."""
    kv, client = report.event("kv_backend") or {}, report.event("client") or {}
    collective, error = report.event("collective"), report.event("collective_error") or report.event("error")
    row: dict[str, Any] = {
        "node_id": report.node_id, "kv_connect_s": kv.get("connect_seconds"), "client_create_s": client.get("seconds"),
        "process_index": client.get("process_index"), "global_devices": [d["id"] for d in client.get("devices", [])],
        "addressable_devices": [d["id"] for d in client.get("addressable", [])],
        "kv_calls": len((client.get("kv") or {}).get("calls", [])),
        "compile_s": (collective or error or {}).get("compile_seconds"),
        "execute_s": (collective or error or {}).get("execute_seconds"),
        "returncode": report.returncode, "killed": report.killed_by_launcher or None,
    }
    if collective is not None:
        row["results_ok"] = all(np.array_equal(np.asarray(v, dtype=np.float32), expected)
                                for v in collective["results"].values())
        row["participants"] = collective["participants"]
    if error is not None:
        row["error"] = f"{error.get('function') or error.get('stage')}: {error.get('code')}: {error.get('message')}"[:600]
    return row


def judge(reports: list[NodeReport], rows: list[dict[str, Any]], documented: bool, per_node: int,
          num_nodes: int) -> tuple[str, list[str]]:
    """PASS / FAIL / NOT_SUPPORTED and why."""
    reasons = client_failures(reports)
    problem = global_topology_problem(reports)
    if problem is not None:
        reasons.append(f"no global topology: {problem}")
    for row in rows:
        if len(row["global_devices"]) != per_node * num_nodes or len(row["addressable_devices"]) != per_node:
            reasons.append(f"node {row['node_id']}: {len(row['global_devices'])} global / "
                           f"{len(row['addressable_devices'])} addressable devices, expected "
                           f"{per_node * num_nodes} / {per_node}")
        if "error" in row or not row.get("results_ok"):
            reasons.append(f"node {row['node_id']}: all-reduce {row.get('error') or 'result differs from the reference'}")
    if not reasons:
        return "PASS", []
    if not documented and problem is not None:
        return "NOT_SUPPORTED", reasons  # e.g. the CPU plugins: each node is its own single-process client
    return "FAIL", reasons


def versions() -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for name in ("jaxlib", "jax-cuda13-pjrt", "jax-cuda12-pjrt", "lammps-jax-pjrt-cpu"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def seconds(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(f"{v:.3f}" for v in value) + "]" if value else "-"
    return "-" if value is None else f"{value:.3f}"


def print_summary(result: dict[str, Any]) -> None:
    print(f"plugin     {result['plugin']} (profile {result['profile']}, platform {result['platform']})")
    print(f"kv backend {result['kv_backend']}  ({result['kv_backend_reason']})")
    print(f"probe      single-process client: {result['local_devices']} local devices, "
          f"created in {seconds(result['probe_client_create_s'])} s")
    print(f"nodes      {result['num_nodes']} x {result['devices_per_node']} device(s), scenario {result['scenario']}, "
          f"run {result['run_wall_s']:.1f} s")
    for row in result["nodes"]:
        print(f"  node {row['node_id']}: kv connect {seconds(row['kv_connect_s'])} s, client create "
              f"{seconds(row['client_create_s'])} s, process_index {row['process_index']}, global devices "
              f"{row['global_devices']}, addressable {row['addressable_devices']}, KV calls {row['kv_calls']}")
        print(f"          compile {seconds(row['compile_s'])} s, execute {seconds(row['execute_s'])} s, "
              f"result {'ok' if row.get('results_ok') else 'NOT OK'}{'; ' + row['error'] if 'error' in row else ''}")
    print(f"outcome    {result['outcome']}")
    for reason in result["reasons"]:
        print(f"  - {reason[:1000]}")


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        resolved = resolve_plugin(args.path, args.plugin)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    options = {**resolved.create_options, **{k: option_value(v) for k, v in (o.split("=", 1) for o in args.option)}}
    setup = node_setup(resolved)
    probed = probe(resolved, options, setup)
    local = args.local_devices or len(probed["addressable"])
    scheme = scheme_for_platform(probed["platform"])
    if scheme is None:
        print(f"error: no multi-node options known for platform {probed['platform']!r}", file=sys.stderr)
        return 2
    per_node = scheme.devices_per_node(args.num_nodes, local)
    if scheme.documented and per_node * args.num_nodes > local:
        print(f"error: {args.num_nodes} nodes need {per_node * args.num_nodes} devices, the host has {local}",
              file=sys.stderr)
        return 2
    node_options = [{**options, **scheme.node_options(i, args.num_nodes, local)} for i in range(args.num_nodes)]
    spec = LaunchSpec(str(resolved.path), args.num_nodes, node_options, scenario=args.scenario, preload=setup[0],
                      environment=setup[1], kv_backend=args.kv_backend, repeats=args.repeats)
    started = time.monotonic()
    reports = run_nodes(spec, timeout_s=args.timeout)
    wall = time.monotonic() - started
    global_count = max((len((r.event("client") or {}).get("devices", [])) for r in reports), default=0)
    rows = [node_row(r, collective_expected(args.scenario, global_count)) for r in reports]
    outcome, reasons = judge(reports, rows, scheme.documented, per_node, args.num_nodes)
    result = {
        "outcome": outcome, "reasons": reasons, "plugin": str(resolved.path),
        "profile": resolved.profile.name if resolved.profile else None, "platform": probed["platform"],
        "kv_backend": reports[0].kv_backend, "kv_backend_reason": reports[0].kv_backend_reason,
        "versions": versions(), "num_nodes": args.num_nodes, "local_devices": local, "devices_per_node": per_node,
        "scenario": args.scenario, "repeats": args.repeats, "node_options": node_options,
        "probe_client_create_s": probed["seconds"], "run_wall_s": wall, "nodes": rows,
    }
    print_summary(result)
    text = json.dumps(result, indent=2, default=str)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 1 if outcome == "FAIL" else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
