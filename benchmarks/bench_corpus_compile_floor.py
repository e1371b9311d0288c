"""The plugin's own cost of the golden corpus: every single-device program compiled once, nothing else.

A full run cannot be faster than the CPU time the plugin needs to compile what the corpus holds. This script
compiles each program the compile layer compiles (each group's program, every ungrouped case's own), once, in
one process with no concurrent load, from the same portable artifact the compile layer uses, and reports the
wall time and the process CPU time (user + sys, every thread: a plugin compiles with several) per family.
CPU seconds divided by the machine's cores is the lowest wall time any run of the corpus can have.

    python benchmarks/bench_corpus_compile_floor.py [PATH | --plugin PROFILE] [--family conv] [--part K/N] [--json FILE]

`--part K/N` compiles every N-th program from the K-th: N processes started side by side on a machine with
cores to spare measure the same total CPU sooner (add their CPU seconds up).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections import defaultdict
from typing import Any


def _cpu_seconds() -> float:
    """This process's CPU time and that of its finished children (a plugin may run a compiler as one)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(argv: list[str]) -> int:
    import pytest

    from pjrt_cts.cli.bench import _plugin
    from pjrt_cts.cli.plugin_arg import add_plugin_arguments
    from pjrt_cts.runtime import PjrtError, Plugin
    from pjrt_cts.testing.corpus import framework_artifact_version, killed_xla, single_device_programs

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_plugin_arguments(parser)
    parser.add_argument("--create-option", dest="create_options", action="append", default=[], metavar="K=V")
    parser.add_argument("--family", action="append", default=[], help="only these families (repeatable)")
    parser.add_argument("--part", default="1/1", metavar="K/N", help="every N-th program from the K-th")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    part, parts = (int(x) for x in args.part.split("/"))

    library, options, preload = _plugin(args)
    plugin = Plugin.load(library, preload=preload)
    client = plugin.create_client(options)
    programs = [p for p in single_device_programs() if not args.family or p.family in args.family][part - 1::parts]
    per_family: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])  # programs, wall, cpu
    rejected: list[str] = []
    # Programs that abort (or hang) XLA's compiler: the suite runs each in a process of its own; here one would end
    # the measurement. Their cost is a crash, not a compile, so they are counted apart.
    aborting = [program.id for program in programs if killed_xla(program.cases)]
    programs = [program for program in programs if program.id not in aborting]
    for program in programs:
        try:
            version = framework_artifact_version(plugin, program)
        except pytest.skip.Exception:  # the program ships no portable artifact: its text then
            version = "text"
        code: Any = program.program_text() if version == "text" else program.portable_bytecode(version)
        wall, cpu = time.perf_counter(), _cpu_seconds()
        try:
            client.compile(code).close()
        except PjrtError as error:
            rejected.append(f"{program.id}: {error.code}")
            continue
        entry = per_family[program.family]
        entry[0] += 1
        entry[1] += time.perf_counter() - wall
        entry[2] += _cpu_seconds() - cpu

    total_wall = sum(e[1] for e in per_family.values())
    total_cpu = sum(e[2] for e in per_family.values())
    cores = len(os.sched_getaffinity(0))
    compiled = sum(int(e[0]) for e in per_family.values())
    print(f"plugin {library.name}, part {args.part}: {compiled} programs compiled once ({len(rejected)} rejected), "
          f"wall {total_wall:.1f} s, CPU {total_cpu:.1f} s ({total_cpu / max(total_wall, 1e-9):.2f} cores per compile); "
          f"{len(aborting)} programs that abort XLA's compiler not compiled")
    print(f"lowest wall time of a run on this machine's {cores} cores: {total_cpu / cores:.1f} s (compile alone)\n")
    print("| family | programs | wall s | CPU s | CPU ms per program |\n| --- | --- | --- | --- | --- |")
    for family, (count, wall_s, cpu_s) in sorted(per_family.items(), key=lambda kv: -kv[1][2]):
        print(f"| {family} | {int(count)} | {wall_s:.1f} | {cpu_s:.1f} | {1000 * cpu_s / count:.0f} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"plugin": str(library), "cores": cores, "programs": compiled, "rejected": rejected,
                       "not_compiled_abort_xla": aborting,
                       "wall_seconds": round(total_wall, 3), "cpu_seconds": round(total_cpu, 3),
                       "families": {k: {"programs": int(v[0]), "wall_seconds": round(v[1], 3),
                                        "cpu_seconds": round(v[2], 3)} for k, v in per_family.items()}},
                      handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
