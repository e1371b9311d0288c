"""`pjrt-cts gate results.json --baseline baseline.json [--level Full]`: the CI release gate.

Exit 0 when the gate passes, 1 on a regression, an INCOMPLETE run (unless --allow-partial), a missed level or an
exceeded waiver budget, 2 on a usage error.
Rules: pjrt_cts/report/gate.py and docs/levels.md.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    from pjrt_cts.judgment.levels import ALL_LEVELS

    parser = subparsers.add_parser(
        "gate",
        help="fail (exit 1) on regressions against a baseline or a missed conformance level",
        description="Compare a run with a committed baseline and/or require a conformance level; print a Markdown "
        "summary suitable for a PR comment. Exit 1 when the gate fails.",
    )
    parser.add_argument("results", type=Path, help="results.json of this run")
    parser.add_argument("--baseline", type=Path, help="baseline results (a results.json or one written by "
                        "--write-baseline); without it the run must be CONFORMANT")
    parser.add_argument("--level", help="required conformance level: " + ", ".join(level.name for level in ALL_LEVELS)
                        + " (default without --baseline: Core)")
    parser.add_argument("--allow-partial", action="store_true",
                        help="let a run that is INCOMPLETE only because not every test ran (a partial selection, one "
                        "shard, a --quick sample, an interrupted run) pass; an INCOMPLETE run fails the gate otherwise, "
                        "with or without a baseline; the headline says it was accepted")
    waivers = parser.add_mutually_exclusive_group()
    waivers.add_argument("--no-waivers", action="store_true",
                         help="fail a run that needs any waiver (an XFAIL from the profile's expectations file)")
    waivers.add_argument("--max-waivers", type=int, metavar="N",
                         help="fail a run that needs more than N waivers (default without --baseline: the waivers "
                         "of the profile's own expectations file, none from any other file)")
    parser.add_argument("--max-waived-defects", type=int, metavar="N",
                        help="fail a run whose waivers cover more than N distinct defects (pjrt_cts/judgment/defects; "
                        "findings no defect explains count as one, 'unclassified')")
    parser.add_argument("--summary", type=Path, help="also append the Markdown summary to this file "
                        "(e.g. \"$GITHUB_STEP_SUMMARY\")")
    parser.add_argument("--report-url", help="link to the HTML report, added to the summary")
    parser.add_argument("--json", dest="json_out", type=Path, help="also write the gate result as JSON here")
    parser.add_argument("--write-baseline", type=Path, metavar="FILE",
                        help="write this run's ids and outcomes as a new baseline file (to commit), then gate as usual")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.cli.main import UsageError
    from pjrt_cts.report.gate import evaluate_gate, gate_markdown, slim_baseline
    from pjrt_cts.cli.results_arg import read_results

    for option, budget in (("--max-waivers", args.max_waivers), ("--max-waived-defects", args.max_waived_defects)):
        if budget is not None and budget < 0:
            raise UsageError(f"{option} must be 0 or more (got {budget})")
    results = read_results(args.results)
    baseline = read_results(args.baseline) if args.baseline else None
    try:
        max_waivers = 0 if args.no_waivers else args.max_waivers
        gate = evaluate_gate(results, baseline, args.level, max_waivers, args.max_waived_defects, args.allow_partial)
    except KeyError as exc:
        raise UsageError(exc.args[0]) from exc
    markdown = gate_markdown(gate, args.report_url)
    print(markdown)
    if args.summary:
        args.summary.parent.mkdir(parents=True, exist_ok=True)
        with args.summary.open("a", encoding="utf-8") as summary:
            summary.write(markdown + "\n")
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(gate.to_dict(), indent=2) + "\n", encoding="utf-8")
    if args.write_baseline:
        args.write_baseline.parent.mkdir(parents=True, exist_ok=True)
        args.write_baseline.write_text(json.dumps(slim_baseline(results), indent=1) + "\n", encoding="utf-8")
    return gate.exit_code
