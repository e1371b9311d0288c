"""What packing the corpus buys: every pack compiled once vs its members compiled as their own programs.

For each pack of the shipped corpus (pjrt_cts/golden/generator/packing.py), in one process with no concurrent
load, this compiles the pack from the artifact a framework sends, then each member's own program from the same
artifact version, and reports per family: programs, CPU seconds (user + sys of every thread: XLA compiles with
several) and wall seconds of both layouts, and their ratio. The unpacked layout is what a corpus of one program
per case costs the plugin; the packed one what a run compiles.

    python benchmarks/bench_packing.py [PATH | --plugin PROFILE] [--family conv] [--every N] [--json FILE]

`--every N` measures every N-th pack only (the unpacked side compiles ~10,000 programs: minutes).
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections import defaultdict
from typing import Any


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _compile(client: Any, plugin: Any, unit: Any) -> tuple[float, float, bool]:
    """(wall s, CPU s, compiled) of one compile of `unit` from the artifact a framework sends."""
    import pytest

    from pjrt_cts.runtime import PjrtError
    from pjrt_cts.testing.corpus import framework_artifact_version

    try:
        version = framework_artifact_version(plugin, unit)
    except pytest.skip.Exception:
        version = "text"
    code: Any = unit.program_text() if version == "text" else unit.portable_bytecode(version)
    wall, cpu = time.perf_counter(), _cpu_seconds()
    try:
        client.compile(code).close()
        compiled = True
    except PjrtError:
        compiled = False
    return time.perf_counter() - wall, _cpu_seconds() - cpu, compiled


def main(argv: list[str]) -> int:
    from pjrt_cts.cli.bench import _plugin
    from pjrt_cts.cli.plugin_arg import add_plugin_arguments
    from pjrt_cts.golden.corpus import GoldenProgram
    from pjrt_cts.runtime import Plugin
    from pjrt_cts.testing.corpus import single_device_programs

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_plugin_arguments(parser)
    parser.add_argument("--create-option", dest="create_options", action="append", default=[], metavar="K=V")
    parser.add_argument("--family", action="append", default=[], help="only these families (repeatable)")
    parser.add_argument("--every", type=int, default=1, help="measure every N-th pack")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)

    library, options, preload = _plugin(args)
    plugin = Plugin.load(library, preload=preload)
    client = plugin.create_client(options)
    packs = [p for p in single_device_programs() if p.grouped and (not args.family or p.family in args.family)]
    packs = packs[::args.every]
    # family -> [packs, pack wall, pack CPU, cases, own wall, own CPU, packs rejected, cases rejected]
    rows: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0, 0.0, 0.0, 0, 0])
    for pack in packs:
        row = rows[pack.family]
        wall, cpu, compiled = _compile(client, plugin, pack)
        row[0] += 1
        row[1] += wall
        row[2] += cpu
        row[6] += not compiled
        for case in pack.cases:
            wall, cpu, compiled = _compile(client, plugin, GoldenProgram.of_case(case))
            row[3] += 1
            row[4] += wall
            row[5] += cpu
            row[7] += not compiled
    total = [sum(row[i] for row in rows.values()) for i in range(8)]
    print(f"plugin {library.name}: {int(total[0])} packs holding {int(total[3])} cases "
          f"(every {args.every}th pack{', families ' + ', '.join(args.family) if args.family else ''})\n")
    print("| family | packs | packed CPU s | packed wall s | own programs | own CPU s | own wall s | CPU own / packed |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for family, row in sorted(rows.items(), key=lambda kv: -kv[1][5]) + [("**all**", total)]:
        ratio = row[5] / row[2] if row[2] else float("nan")
        print(f"| {family} | {int(row[0])} | {row[2]:.1f} | {row[1]:.1f} | {int(row[3])} | {row[5]:.1f} | {row[4]:.1f} "
              f"| {ratio:.2f}× |")
    if total[6] or total[7]:
        print(f"\nrejected: {int(total[6])} packs, {int(total[7])} own programs")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as stream:
            json.dump({"plugin": str(library), "every": args.every, "families": rows}, stream, indent=1)
    client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
