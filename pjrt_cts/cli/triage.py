"""`pjrt-cts triage results.json`: the named defects of a run (profiled or not), and a draft expectations file."""
from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "triage",
        help="list the named defects of a run and draft a defect-level expectations file",
        description="Attribute every finding of a results.json (FAIL, CRASH, TIMEOUT, ERROR, XPASS, XFAIL and "
        "deviations shared with XLA) to a named defect of the catalogue (pjrt_cts/judgment/defects/catalogue.toml) and print "
        "one row per defect: scope, tests by outcome, the rule it breaks, the smallest reproduction.",
    )
    parser.add_argument("results", type=Path, nargs="?", help="results.json written by `pjrt-cts run`")
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    parser.add_argument("--write-expectations", type=Path, metavar="FILE",
                        help="write a draft expectations file waiving each defect by name: every entry is marked "
                        "`draft = true` (a run judged with one is INCOMPLETE) until reviewed")
    parser.add_argument("--catalogue", action="store_true", help="list the defect catalogue instead")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.cli.main import UsageError
    from pjrt_cts.judgment.defects import load_catalogue

    if args.catalogue:
        for defect in load_catalogue():
            print(f"{defect.id}  [{defect.scope}]  {defect.title}")
        return 0
    if args.results is None:
        raise UsageError("triage: a results.json is required (or --catalogue)")
    from pjrt_cts.cli.results_arg import read_results
    from pjrt_cts.report.triage import draft_expectations, format_table, triage_table

    results = read_results(args.results)
    rows = triage_table(results)
    print(json.dumps(rows, indent=2) if args.json else format_table(rows))
    if args.write_expectations is not None:
        plugin = str((results.plugin or {}).get("path") or args.results)
        draft = draft_expectations(results, plugin)
        args.write_expectations.write_text(draft, encoding="utf-8")
        entries = draft.count("\ndraft = true")
        print(f"wrote {args.write_expectations}: {entries} draft entr{'y' if entries == 1 else 'ies'} (`draft = true`): "
              "a run judged with them is INCOMPLETE until each is reviewed, given its reason and unmarked")
    return 0
