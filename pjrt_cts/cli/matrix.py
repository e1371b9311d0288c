"""`pjrt-cts matrix FILE... -o matrix.html [--markdown] [--diff OLD NEW]`: many runs on one page."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pjrt_cts.cli.main import UsageError

if TYPE_CHECKING:
    from pjrt_cts.schema import RunSummary


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "matrix",
        help="tabulate many runs: one row per plugin × version × machine, shared defects, version diffs",
        description="Write the conformance matrix of several runs: one row per plugin × version × machine "
        "(identity, verdict, level, spec mark, defects own / shared with XLA / waived, tests, wall time), a "
        "defect × plugin grid showing which defects several plugins share, and with --diff the defects one "
        "version of a plugin fixed, introduced and kept. The output depends on the files' contents only "
        "(rows sorted, no timestamp), so a checked-in page regenerates byte for byte.",
    )
    parser.add_argument("files", type=Path, nargs="*", metavar="FILE",
                        help="results.json or summary.json files written by `pjrt-cts run`")
    parser.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    parser.add_argument("--markdown", action="store_true", help="write Markdown instead of HTML")
    parser.add_argument("--diff", nargs=2, action="append", type=Path, default=[], metavar=("OLD", "NEW"),
                        help="a section comparing two versions of one plugin (repeatable)")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.report.matrix import render_matrix_html, render_matrix_markdown

    if not args.files and not args.diff:
        raise UsageError("matrix: name at least one results.json or summary.json (or a --diff OLD NEW)")
    summaries = [_read(path) for path in args.files]
    diffs = [(_read(old), _read(new)) for old, new in args.diff]
    render = render_matrix_markdown if args.markdown else render_matrix_html
    text = render(summaries, diffs)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output} ({len(summaries)} runs, {len(diffs)} diffs)")
    return 0


def _read(path: Path) -> RunSummary:
    from pjrt_cts.judgment.results import ResultsError
    from pjrt_cts.judgment.summary import load_summary

    try:
        return load_summary(path)
    except ResultsError as exc:
        raise UsageError(str(exc)) from exc
