"""The plugin's own cost of the golden corpus: every single-device program compiled once, nothing else.

A full run cannot be faster than the CPU time the plugin needs to compile what the corpus holds. This script
compiles each program the compile layer compiles (each group's program, every ungrouped case's own), once, in
one process with no concurrent load, from the same portable artifact the compile layer uses, and reports the
wall time and the process CPU time (user + sys, every thread: a plugin compiles with several) per family.
CPU seconds divided by the machine's cores is the lowest wall time any run of the corpus can have.

    python benchmarks/bench_corpus_compile_floor.py [PATH | --plugin PROFILE] [--family conv] [--part K/N] [--json FILE]

`--part K/N` compiles every N-th program from the K-th: N processes started side by side on a machine with
cores to spare measure the same total CPU sooner (add their CPU seconds up).

The compiles run in a child process. A program that kills it (one that aborts this plugin's compiler but did not
abort XLA:CPU when the corpus was generated) is counted apart, and a new child goes on with the next program.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any


def _cpu_seconds() -> float:
    """This process's CPU time and that of its finished children (a plugin may run a compiler as one)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _programs(args: argparse.Namespace) -> tuple[list[Any], list[str]]:
    """(programs this part compiles, ids of those that aborted XLA's compiler when the corpus was generated)."""
    from pjrt_cts.testing.corpus import killed_xla, single_device_programs

    part, parts = (int(x) for x in args.part.split("/"))
    programs = [p for p in single_device_programs() if not args.family or p.family in args.family][part - 1::parts]
    # The suite runs each of these in a process of its own; here one would end a child at once. Their cost is a
    # crash, not a compile, so they are counted apart.
    aborting = [program.id for program in programs if killed_xla(program.cases)]
    return [program for program in programs if program.id not in aborting], aborting


def _compile_from(args: argparse.Namespace, first: int, progress: Path) -> int:
    """The child: compile programs[first:], one line before and one after each compile, flushed (a line "begin"
    without its "done" names the program the process died in)."""
    import pytest

    from pjrt_cts.cli.bench import _plugin
    from pjrt_cts.runtime import PjrtError, Plugin
    from pjrt_cts.testing.corpus import framework_artifact_version

    library, options, preload = _plugin(args)
    plugin = Plugin.load(library, preload=preload)
    client = plugin.create_client(options)
    programs, _ = _programs(args)
    with progress.open("a", encoding="utf-8") as out:
        for index in range(first, len(programs)):
            program = programs[index]
            try:
                version = framework_artifact_version(plugin, program)
            except pytest.skip.Exception:  # the program ships no portable artifact: its text then
                version = "text"
            code: Any = program.program_text() if version == "text" else program.portable_bytecode(version)
            out.write(json.dumps({"begin": index}) + "\n")
            out.flush()
            wall, cpu = time.perf_counter(), _cpu_seconds()
            rejected_with = None
            try:
                client.compile(code).close()
            except PjrtError as error:
                rejected_with = error.code
            out.write(json.dumps({"done": index, "family": program.family, "rejected_with": rejected_with,
                                  "wall": time.perf_counter() - wall, "cpu": _cpu_seconds() - cpu}) + "\n")
            out.flush()
    return 0


def _measure(argv: list[str], programs: list[Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """Run the compiles in a child, and after a child that dies (a program that aborts the plugin's compiler here
    but did not abort XLA:CPU at generation), in a new one from the next program. (records, ids that died)."""
    records: list[dict[str, Any]] = []
    died: list[str] = []
    first = 0
    with tempfile.TemporaryDirectory() as scratch:
        while first < len(programs):
            progress = Path(scratch) / f"from-{first}.jsonl"
            progress.touch()
            child = subprocess.run([sys.executable, __file__, *argv, "--child-from", str(first),
                                    "--child-progress", str(progress)], check=False)
            lines = [json.loads(line) for line in progress.read_text(encoding="utf-8").splitlines() if line.strip()]
            records += [line for line in lines if "done" in line]
            if child.returncode == 0:
                break
            begun = [line["begin"] for line in lines if "begin" in line]
            finished = {line["done"] for line in lines if "done" in line}
            unfinished = [index for index in begun if index not in finished]
            if not unfinished:
                raise SystemExit(f"compile child exited with {child.returncode} outside a compile")
            died.append(programs[unfinished[-1]].id)
            first = unfinished[-1] + 1
    return records, died


def main(argv: list[str]) -> int:
    from pjrt_cts.cli.plugin_arg import add_plugin_arguments

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_plugin_arguments(parser)
    parser.add_argument("--create-option", dest="create_options", action="append", default=[], metavar="K=V")
    parser.add_argument("--family", action="append", default=[], help="only these families (repeatable)")
    parser.add_argument("--part", default="1/1", metavar="K/N", help="every N-th program from the K-th")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--child-from", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--child-progress", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_from is not None:
        return _compile_from(args, args.child_from, args.child_progress)

    programs, aborting = _programs(args)
    records, died = _measure(argv, programs)
    per_family: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])  # programs, wall, cpu
    rejected = [f"{programs[r['done']].id}: {r['rejected_with']}" for r in records if r["rejected_with"]]
    for record in records:
        if not record["rejected_with"]:
            entry = per_family[record["family"]]
            entry[0] += 1
            entry[1] += record["wall"]
            entry[2] += record["cpu"]

    total_wall = sum(e[1] for e in per_family.values())
    total_cpu = sum(e[2] for e in per_family.values())
    cores = len(os.sched_getaffinity(0))
    compiled = sum(int(e[0]) for e in per_family.values())
    print(f"part {args.part}: {compiled} programs compiled once ({len(rejected)} rejected), "
          f"wall {total_wall:.1f} s, CPU {total_cpu:.1f} s ({total_cpu / max(total_wall, 1e-9):.2f} cores per compile); "
          f"{len(aborting)} programs that aborted XLA's compiler at generation not compiled; "
          f"{len(died)} that killed the compiling process here" + (f" (first: {died[0]})" if died else ""))
    print(f"lowest wall time of a run on this machine's {cores} cores: {total_cpu / cores:.1f} s (compile alone)\n")
    print("| family | programs | wall s | CPU s | CPU ms per program |\n| --- | --- | --- | --- | --- |")
    for family, (count, wall_s, cpu_s) in sorted(per_family.items(), key=lambda kv: -kv[1][2]):
        print(f"| {family} | {int(count)} | {wall_s:.1f} | {cpu_s:.1f} | {1000 * cpu_s / count:.0f} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"cores": cores, "programs": compiled, "rejected": rejected,
                       "not_compiled_abort_xla": aborting, "killed_the_process": died,
                       "wall_seconds": round(total_wall, 3), "cpu_seconds": round(total_cpu, 3),
                       "families": {k: {"programs": int(v[0]), "wall_seconds": round(v[1], 3),
                                        "cpu_seconds": round(v[2], 3)} for k, v in per_family.items()}},
                      handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
