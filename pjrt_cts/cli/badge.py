"""`pjrt-cts badge results.json -o conformance.svg`: an SVG status badge of a run."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "badge",
        help="write an SVG conformance badge for a run",
        description="Write a shields-style SVG badge for a results.json: the level with its spec mark and waived "
        "defects (e.g. \"Full · spec ✗ · 2 waived defects\"), or why the run has none.",
    )
    parser.add_argument("results", type=Path, help="results.json written by `pjrt-cts run`")
    parser.add_argument("-o", "--output", type=Path, default=Path("conformance.svg"), help="SVG file to write")
    parser.add_argument("--label", default="PJRT conformance", help="left-hand text of the badge")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.cli.results_arg import read_results
    from pjrt_cts.report.badge import badge_message, write_badge

    results = read_results(args.results)
    write_badge(results, args.output, args.label)
    print(f"wrote {args.output} ({args.label}: {badge_message(results)[0]})")
    return 0
