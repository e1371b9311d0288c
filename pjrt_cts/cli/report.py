"""`pjrt-cts report results.json -o report.html`: render the self-contained HTML report."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="render results.json as a self-contained HTML report",
        description="Render results.json as one self-contained HTML file (no network, readable without JavaScript).",
    )
    parser.add_argument("results", type=Path, help="results.json written by `pjrt-cts run`")
    parser.add_argument("-o", "--output", type=Path, help="HTML file to write (default: report.html next to results)")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.cli.results_arg import read_results
    from pjrt_cts.report.html import write_report

    results = read_results(args.results)
    output = args.output or args.results.with_name("report.html")
    write_report(results, output, results_dir=args.results.parent)
    print(f"wrote {output}")
    return 0
