"""`pjrt-cts bench [PATH]`: bandwidth, dispatch latency, compile time and first-run latency of a plugin."""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pjrt_cts.cli.main import UsageError
from pjrt_cts.cli.plugin_arg import add_plugin_arguments, resolve_plugin


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "bench", help="measure transfer bandwidth, dispatch latency and compile time of a plugin",
        description="Benchmark a PJRT plugin: host<->device and device->device bandwidth over 4 KiB..1 GiB, "
                    "Execute dispatch latency (p50/p99), compile time of a mid-size program, first-run vs "
                    "steady-state latency. Writes DIR/bench.json and DIR/bench.html, and adds a \"bench\" key to "
                    "DIR/results.json when a conformance run left one there. See docs/bench.md.")
    add_plugin_arguments(parser)
    parser.add_argument("--out", default="out", metavar="DIR", help="output directory (default: ./out)")
    parser.add_argument("--sizes", metavar="SIZE,...", help="transfer sizes, e.g. 4K,1M,256M (default: 4K..1G in powers of 4)")
    parser.add_argument("--max-size", metavar="SIZE", help="largest transfer size (default: 1G; 64M with --quick)")
    parser.add_argument("--quick", action="store_true", help="sizes up to 64 MiB and fewer repeats (for CI)")
    parser.add_argument("--dispatch-iterations", type=int, metavar="N", help="executions for latency (default 2000; 300 quick)")
    parser.add_argument("--compile-repeats", type=int, metavar="N", help="compiles of the mid-size program (default 5; 2 quick)")
    parser.add_argument("--peak-h2d-gbps", type=float, metavar="GBPS", help="host link peak (e.g. PCIe) for measured/peak ratios")
    parser.add_argument("--peak-hbm-gbps", type=float, metavar="GBPS", help="device memory peak for the on-device ratio")
    parser.add_argument("--peak-d2d-gbps", type=float, metavar="GBPS", help="device-to-device link peak for the d2d ratio")
    parser.add_argument("--create-option", dest="create_options", action="append", default=[], metavar="K=V",
                        help="client create option (value parsed as JSON when possible; repeatable)")
    parser.add_argument("--json", action="store_true", help="print bench.json instead of the table")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.bench import (
        QUICK_MAX_SIZE, BenchOptions, default_sizes, merge_into_results, parse_size, plugin_summary,
        render_bench_page, render_text, run_bench,
    )
    from pjrt_cts.runtime import Plugin, PjrtError

    try:
        max_size = parse_size(args.max_size) if args.max_size else (QUICK_MAX_SIZE if args.quick else None)
        sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()] if args.sizes else default_sizes()
    except ValueError as exc:
        raise UsageError(f"bad size: {exc}") from exc
    if max_size is not None:
        sizes = [s for s in sizes if s <= max_size]
    if not sizes or any(s <= 0 for s in sizes):
        raise UsageError("no valid transfer sizes")
    options = BenchOptions(
        sizes=sizes,
        dispatch_iterations=args.dispatch_iterations or (300 if args.quick else 2000),
        compile_repeats=args.compile_repeats or (2 if args.quick else 5),
        steady_runs=10 if args.quick else 20,
        peak_h2d_gbps=args.peak_h2d_gbps, peak_hbm_gbps=args.peak_hbm_gbps, peak_d2d_gbps=args.peak_d2d_gbps,
    )
    library, create_options, preload = _plugin(args)
    say = (lambda _line: None) if args.json else (lambda line: print(f"bench: {line}", flush=True))
    plugin = Plugin.load(library, preload=preload)
    try:
        client = plugin.create_client(create_options)
    except PjrtError as error:
        raise UsageError(f"cannot create a client: {error.code}: {error.message}") from error
    with client:
        bench = run_bench(client, plugin_summary(plugin, client), options, say=say)
    bench["plugin"]["create_options"] = create_options
    out = Path(args.out).expanduser().resolve()
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(bench, indent=2) + "\n")
    (out / "bench.html").write_text(render_bench_page(bench), encoding="utf-8")
    merged = merge_into_results(out / "results.json", bench)
    if args.json:
        print(json.dumps(bench, indent=2))
    else:
        print(render_text(bench))
        print(f"bench: {out / 'bench.json'}, {out / 'bench.html'}" + (f"; added to {out / 'results.json'}" if merged else ""))
    return 0


def _plugin(args: argparse.Namespace) -> tuple[Path, dict[str, Any], list[Path]]:
    """(library, create options, libraries to preload in this process: the profile's runtime libraries)."""
    from pjrt_cts.cli.run import _parse_create_options

    plugin = resolve_plugin(args.path, args.plugin)
    options = dict(plugin.create_options)
    options.update(_parse_create_options(args.create_options))
    preload: list[Path] = []
    if plugin.profile is not None:
        try:
            preload = list(plugin.profile.preload_libraries())
        except (OSError, ValueError):  # a profile that cannot resolve its runtime: load without preloads
            preload = []
    return plugin.path, options, preload
