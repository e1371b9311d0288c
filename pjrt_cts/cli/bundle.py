"""`pjrt-cts bundle OUT_DIR -o FILE`: the submission bundle of a finished run (what `run --bundle` packs).

Exit 0 when the bundle is written, 2 when the run directory cannot be bundled (docs/bundles.md).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from pjrt_cts.cli.main import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "bundle", help="pack a finished run into a submission bundle that `pjrt-cts verify` checks",
        description="Pack the run in OUT_DIR (results.json, summary.json when written, the expectations file, "
                    "the plugin's SHA-256, the suite and corpus hashes, the machine) into one deterministic zip "
                    "with a manifest of every member's SHA-256; `pjrt-cts run --bundle FILE` does the same at "
                    "the end of a run.")
    parser.add_argument("out_dir", type=Path, metavar="OUT_DIR", help="the run's output directory (holds results.json)")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="FILE", help="bundle to write (.zip)")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.runner.files.bundle import BundleError, pack_bundle

    try:
        digest = pack_bundle(args.out_dir.expanduser(), args.output.expanduser())
    except BundleError as exc:
        raise UsageError(str(exc)) from exc
    print(f"bundle: {args.output} (manifest SHA-256 {digest})")
    return 0
