"""`pjrt-cts` entry point: dispatches to one module per subcommand.

Each command module exposes `register(subparsers)` which adds its parser and sets
`func(args) -> int` as the handler. Modules are imported lazily so that a missing optional
dependency of one command never breaks the others.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

# command name -> module under pjrt_cts.cli
COMMANDS: dict[str, str] = {
    "info": "info",
    "run": "run",
    "report": "report",
    "diff": "diff",
    "gate": "gate",
    "badge": "badge",
    "bundle": "bundle",
    "verify": "verify",
    "golden": "golden",
    "plugins": "plugins",
    "selftest": "selftest",
    "bench": "bench",
    "contract": "contract",
    "merge": "merge",
    "triage": "triage",
    "matrix": "matrix",
    "coverage": "coverage",
    "aot": "aot",
    "schema": "schema",
}


class UsageError(Exception):
    """A user mistake (bad path, unknown layer...): one line on stderr, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    from pjrt_cts import __version__

    parser = argparse.ArgumentParser(prog="pjrt-cts", description="Conformance test suite for PJRT plugins.")
    parser.add_argument("--version", action="version", version=f"pjrt-cts {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMANDS.values():
        try:
            module = importlib.import_module(f"pjrt_cts.cli.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("pjrt_cts.cli."):
                continue  # command not built yet
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"pjrt-cts {command_name(args)}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:  # an unreadable input, an unwritable output: the file and the reason, no traceback
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"pjrt-cts {command_name(args)}: error: {where}{exc.strerror or _one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def command_name(args: argparse.Namespace) -> str:
    """`run`, or `golden validate` for a command with subcommands."""
    sub = next((value for key, value in vars(args).items() if key.endswith("_command") and isinstance(value, str)), None)
    return f"{args.command} {sub}" if sub else str(args.command)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())  # errors are one line on stderr
    return text or type(exc).__name__


if __name__ == "__main__":
    # Run the imported module's main so that command modules and this share one UsageError class.
    from pjrt_cts.cli.main import main as imported_main

    sys.exit(imported_main())
