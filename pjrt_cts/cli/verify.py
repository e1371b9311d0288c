"""`pjrt-cts verify FILE [--plugin-binary PATH] [--other-suite-ok]`: does a submission bundle's claim hold?

One line per check, then `claim holds: <verdict line>` (exit 0) or `claim does not hold: <reasons>` (exit 1);
2 on a usage error (no such file). Exit 0 says the claim is the one its records support, whatever verdict it
claims: gate on the verdict itself with `pjrt-cts gate` on the bundled results.json (docs/bundles.md).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from pjrt_cts.cli.main import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "verify", help="check a submission bundle: manifest, hashes, and the verdict recomputed from its records",
        description="Check a bundle of `pjrt-cts run --bundle` / `pjrt-cts bundle`: every member against the "
                    "manifest, the claimed facts against results.json, the waivers against the bundled "
                    "expectations file, the verdict and level recomputed from the records against the claim, "
                    "the plugin binary's SHA-256 (with --plugin-binary) and every file that judged the run (code, "
                    "suites, golden corpus, profiles) against this pjrt-cts, naming each that differs. Exit 0 when "
                    "the claim holds, 1 when it does not.")
    parser.add_argument("bundle", type=Path, metavar="FILE", help="the bundle (.zip)")
    parser.add_argument("--plugin-binary", type=Path, metavar="PATH",
                        help="the plugin the claim should be about: its SHA-256 must be the claimed one")
    parser.add_argument("--other-suite-ok", action="store_true",
                        help="accept a claim judged by another pjrt-cts (version, code, suites, golden corpus or "
                             "profiles; reported as a note; the verdict is recomputed with this installation's levels)")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.runner.files.bundle import verify_bundle

    for path in (args.bundle, args.plugin_binary):
        if path is not None and not path.expanduser().is_file():
            raise UsageError(f"no such file: {path}")
    binary = args.plugin_binary.expanduser() if args.plugin_binary else None
    found = verify_bundle(args.bundle.expanduser(), binary, other_suite_ok=args.other_suite_ok)
    for check in found.checks:
        print(check.line())
    if found.digest:
        print(f"bundle: {args.bundle} (manifest SHA-256 {found.digest})")
    print(found.conclusion())
    return 0 if found.holds else 1
