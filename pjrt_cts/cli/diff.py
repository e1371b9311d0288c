"""`pjrt-cts diff old.json new.json`: which tests changed outcome, and which defects came and went, between two runs."""
from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "diff",
        help="compare two runs: new failures, fixes, new waivers, coverage change, defects introduced and fixed",
        description="Compare two results.json files: list every test whose outcome changed (classified as in "
        "docs/levels.md, \"Gate rules\": a test that became XFAIL is newly waived, never a fix) and every defect "
        "(pjrt_cts/judgment/defects) introduced, fixed or unchanged. Always exits 0; use `pjrt-cts gate` to fail on regressions.",
    )
    parser.add_argument("old", type=Path, help="earlier results.json (or baseline)")
    parser.add_argument("new", type=Path, help="later results.json")
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text", help="output format")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.cli.results_arg import read_results
    from pjrt_cts.report.diff import diff_runs, format_diff

    old, new = read_results(args.old), read_results(args.new)
    diff = diff_runs(old, new)
    if args.format == "json":
        print(json.dumps(diff.to_dict(), indent=2))
    else:
        print(format_diff(diff, "github" if args.format == "markdown" else "simple"), end="")
    return 0
