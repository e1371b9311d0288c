"""`pjrt-cts coverage results.json`: which PJRT functions a run's tests called, and which the plugin offers that none
reached, with why."""
from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "coverage",
        help="show which PJRT functions a run's tests called and which offered ones none reached",
        description="The PJRT API coverage of a results.json: every function the tests called (PJRT_Api slots, "
        "extension functions as EXTENSION.function) with its calls, the tests that called it and the worst outcome "
        "of those tests, then every function the plugin offers (a non-NULL slot, a function of an advertised "
        "extension) that no test reached, with why, from the records of the tests that looked for it.",
    )
    parser.add_argument("results", type=Path, help="results.json written by `pjrt-cts run`")
    parser.add_argument("--json", action="store_true", help="print the coverage as JSON")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.cli.results_arg import read_results
    from pjrt_cts.judgment.api_coverage import api_coverage
    from pjrt_cts.report.api_coverage import coverage_text

    results = read_results(args.results)
    coverage = api_coverage(results.tests, results.plugin)
    if args.json:
        print(json.dumps(coverage.to_json() if coverage is not None else None, indent=1))
    else:
        print(coverage_text(coverage, results), end="")
    return 0
