"""`pjrt-cts contract`: show, check or regenerate the frozen mandatory test lists of the levels."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pjrt_cts.cli.main import UsageError

if TYPE_CHECKING:
    from pjrt_cts.judgment.contract import LevelContract


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "contract", help="the mandatory tests of each conformance level (check or regenerate the frozen lists)",
        description="Each level's mandatory test ids are frozen in pjrt_cts/judgment/mustpass/<level>.txt. --check fails when "
        "the suites and the committed lists disagree, or when a list holds a test that declares more devices than its "
        "level's minimum; --write regenerates them from the rules in pjrt_cts/judgment/levels.py.")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if the tree and the committed lists disagree, or "
                      "a mandatory test needs more devices than its level's minimum")
    mode.add_argument("--write", action="store_true", help="regenerate pjrt_cts/judgment/mustpass/*.txt from the tree")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.judgment import contract
    from pjrt_cts.judgment.levels import ALL_LEVELS
    from pjrt_cts.resources import golden_dir, suites_dir

    if not args.check and not args.write:
        for level in ALL_LEVELS:
            print(f"{level.name}: {len(level.mandatory_ids())} mandatory tests, at least {level.min_devices} "
                  f"device(s) — {level.summary}")
            for feature in level.features:
                print(f"  - {feature.name}: {feature.description}")
        return 0
    try:
        collected = contract.collect_tests(suites_dir())
        contracts = contract.build_contracts(collected, contract.golden_cases(golden_dir()))
    except (contract.ContractError, OSError, KeyError, ValueError) as exc:
        raise UsageError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from exc
    if args.write:
        for path, built in zip(contract.write(contracts), contracts):
            beyond = f"; {len(built.informative)} selected but needing more devices stay informative" if built.informative else ""
            print(f"wrote {path} ({len(built.ids)} tests{beyond})")
        return 0
    return _report_check(contract.check(contracts, collected), contracts)


def _report_check(problems: list[str], contracts: list[LevelContract]) -> int:
    for problem in problems:
        print(f"contract: {problem}")
    if problems:
        print("regenerate with `pjrt-cts contract --write` if the change is intended, and review the diff; a test "
              "that needs more devices than its level's minimum must leave the level's rules")
        return 1
    print("contract: the committed mandatory lists match the tree "
          + ", ".join(f"{c.level.name} {len(c.ids)}" for c in contracts)
          + "; none needs more devices than its level's minimum ("
          + ", ".join(f"{c.level.name} {c.level.min_devices}" for c in contracts) + ")")
    return 0
