"""`pjrt-cts merge A.json B.json ... -o results.json`: one run from the shards of `pjrt-cts run --shard K/N`.

Exit 0 when the merged file is written (its verdict is for `gate` to judge), 2 when the inputs are not the
complete shards of one run (docs/runner.md, "Sharding").
"""
from __future__ import annotations

import argparse
from pathlib import Path

from pjrt_cts.cli.main import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "merge", help="combine the results.json files of `run --shard K/N` into one",
        description="Combine the results.json files of the shards of one run (`pjrt-cts run --shard K/N`) into "
                    "one results.json with a recomputed summary and verdict; report, gate and badge read it "
                    "like any other.")
    parser.add_argument("inputs", nargs="+", type=Path, metavar="RESULTS_JSON", help="the shards' results.json")
    parser.add_argument("-o", "--output", type=Path, required=True, help="merged results.json to write")
    parser.add_argument("--allow-partial", action="store_true",
                        help="merge even when shards are missing (the merged verdict is then INCOMPLETE)")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.judgment.results import ResultsError, write_results
    from pjrt_cts.runner.files.merge import MergeError, merge_shards, read_shards
    from pjrt_cts.judgment.verdict import judge_results

    output = args.output.expanduser()
    if any(output.resolve() == path.expanduser().resolve() for path in args.inputs):
        raise UsageError(f"the output {output} is one of the inputs; write the merged file elsewhere")
    try:
        merged = merge_shards(read_shards(args.inputs), allow_partial=args.allow_partial)
    except (ResultsError, MergeError) as exc:
        raise UsageError(str(exc)) from exc
    output.parent.mkdir(parents=True, exist_ok=True)
    write_results(merged, output)
    shards = merged.merged_from or []
    missing = merged.missing_shards or []
    count = shards[0]["shard"]["count"]
    note = "; missing shard(s) " + ", ".join(f"{index}/{count}" for index in missing) if missing else ""
    print(f"merged {len(shards)} shard(s), {len(merged.tests)} tests, into {output}{note}")
    print(f"verdict: {judge_results(merged).line()}")
    return 0
