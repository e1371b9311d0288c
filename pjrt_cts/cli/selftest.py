"""`pjrt-cts selftest [PATH]`: run the suite against mutants of a plugin and report the mutation score."""
from __future__ import annotations

import argparse
import json
import sys

from pathlib import Path

from pjrt_cts.cli.main import UsageError
from pjrt_cts.cli.plugin_arg import add_plugin_arguments, resolve_plugin

DEFAULT_MIN_SCORE = 0.95


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "selftest", help="prove the suite's power: run it against plugins with injected defects",
        description="Build the proxy plugin, run the suite against the passthrough proxy (over every mutant's "
                    "selection and every mandatory test id), the real plugin and one mutant per defect, and print, "
                    "per defect, caught / missed with the run verdict and level the mutant produced and the "
                    "catching tests, then the mutation score. A defect is caught when its verdict is off "
                    "CONFORMANT at the level it breaks. See docs/selftest.md.")
    add_plugin_arguments(parser, path_help="real plugin to mutate (default: the profile's, else the bundled CPU plugin)",
                         profile_help="plugin profile: library, create options and expectations (default: cpu for "
                                      "the bundled plugin)")
    parser.add_argument("--out", default="out/selftest", metavar="DIR", help="output directory (default: out/selftest)")
    parser.add_argument("--full", action="store_true", help="run the whole suite per mutant (slow; release gating)")
    parser.add_argument("--defects", metavar="NAME,...", help="only these defects (default: all)")
    parser.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                        help="suite runs at a time (default: min(4, CPUs))")
    parser.add_argument("-n", "--workers", type=int, default=None, metavar="N",
                        help="pytest workers per suite run (default: 1; 2 with --full)")
    parser.add_argument("--timeout", type=float, default=None, metavar="S",
                        help="per-test timeout in mutant runs (default: 30; 120 with --full)")
    parser.add_argument("--wall-limit", type=float, default=240.0, metavar="S",
                        help="stop one targeted mutant run after S seconds, keeping its results (default: 240)")
    parser.add_argument("--no-real-baseline", action="store_true",
                        help="do not also run the real plugin to check the passthrough proxy changes nothing")
    parser.add_argument("--min-score", type=float, default=DEFAULT_MIN_SCORE, metavar="F",
                        help=f"exit 1 below this mutation score (default: {DEFAULT_MIN_SCORE}); also when the "
                             "passthrough is not green, an escape hatch is not caught or a wrong judgement is "
                             "unexplained")
    parser.add_argument("--list", action="store_true", help="list the defect catalogue and exit")
    parser.add_argument("--json", action="store_true", help="print selftest.json instead of the table")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.proxy.catalogue import DEFECTS, DEFECTS_BY_NAME
    from pjrt_cts.selftest import SelftestOptions, default_parallelism, run_selftest
    from pjrt_cts.selftest.table import render_catalogue, render_table

    defects = list(DEFECTS)
    if args.defects:
        names = [n.strip() for n in args.defects.split(",") if n.strip()]
        unknown = [n for n in names if n not in DEFECTS_BY_NAME]
        if unknown:
            raise UsageError(f"unknown defect(s) {', '.join(unknown)}; see `pjrt-cts selftest --list`")
        defects = [DEFECTS_BY_NAME[n] for n in names]
    if args.list:
        print(render_catalogue(defects))
        return 0
    target, profile = _target(args.path, args.plugin)
    options = SelftestOptions(
        target=target, out_dir=Path(args.out).expanduser().resolve(), profile=profile, defects=defects,
        full=args.full, parallel=max(1, args.jobs or default_parallelism()),
        workers=max(1, args.workers or (2 if args.full else 1)),
        test_timeout=args.timeout or (120.0 if args.full else 30.0), wall_limit=args.wall_limit,
        compare_real=not args.no_real_baseline,
    )
    say = (lambda _line: None) if args.json else (lambda line: print(line, flush=True))
    try:
        report = run_selftest(options, say=say)
    except Exception as exc:  # the proxy could not be built: a usage-level problem on this host
        from pjrt_cts.native import NativeBuildError

        if isinstance(exc, NativeBuildError):
            raise UsageError(str(exc)) from exc
        raise
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print()
        print(render_table(report))
        print(f"results: {options.out_dir / 'selftest.json'}")
    problems = report.problems(args.min_score)
    for problem in problems:
        print(f"selftest: FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


def _target(path: str | None, profile: str | None) -> tuple[Path, str | None]:
    plugin = resolve_plugin(path, profile)
    return plugin.path, (plugin.profile.name if plugin.profile is not None else None)


