"""How far a full `pjrt-cts run` is from the plugin's own floor: wall time vs time spent inside PJRT calls.

Runs `pjrt-cts run` once with PJRT_CTS_CALL_TIMES set (pjrt_cts/runtime/calltimes.py: every process that
loads the plugin accounts the seconds spent inside each PJRT function), then reports:

- wall: the run's wall time; workers: its -n;
- plugin floor: seconds inside compile, execute and wait calls in the worker processes and in the processes
  they fork to run their own tests (findings' reruns, isolated tests), summed, and as wall-equivalent
  (divided by the number of workers: the best a perfectly balanced run could do);
- overhead = wall / floor-per-worker (the suite's cost over the plugin floor);
- where the rest goes: inside tests but outside the plugin (test durations minus plugin time: numpy
  references, comparisons, Python binding), outside tests (workers x wall minus test durations:
  process start, collection, corpus loading, result recording, idle workers at the end), isolation
  children (processes that load the plugin besides the workers and the processes they fork for their own tests:
  their count, lifetime, CPU and plugin time);
- per layer: tests, summed test seconds, and the plugin seconds of the top functions;
- CPU: the run's CPU seconds (user + sys of every process it waited for) and its compiles' (the process CPU
  while each compile call ran, with the child processes the call waited for, such as XLA:GPU's `ptxas`; workers
  and the processes they fork), each divided by the machine's cores: the lowest wall time
  the run, and its compiles alone, could have on this machine;
- machine: the core-seconds every CPU was busy during the run (/proc/stat), the idle ones (wall x CPUs - busy:
  what waits, serial ends and imbalance cost), and the CPU that processes outside the run took meanwhile.

    python benchmarks/bench_run_overhead.py [--out DIR] [-- RUN ARGS...]   # e.g. -- -n 2 --plugin cpu

Prints a Markdown summary (for docs/bench.md) and writes DIR/overhead.json.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from pjrt_cts.runtime.calltimes import CPU_ACCOUNTED

# PJRT functions that are the plugin doing the work a program needs (the floor), by kind.
FLOOR_FUNCTIONS = {
    "compile": tuple(sorted(CPU_ACCOUNTED)),  # the functions whose calls' process CPU calltimes reads
    "execute": ("LoadedExecutable_Execute",),
    "wait": ("Event_Await", "Buffer_ReadyEvent", "Event_OnReady"),
    "transfer": ("Client_BufferFromHostBuffer", "Buffer_ToHostBuffer", "Buffer_CopyToDevice",
                 "Buffer_CopyToMemory", "Buffer_CopyRawToHost"),
}
FLOOR_KINDS = ("compile", "execute", "wait", "transfer")


def machine_busy_seconds() -> float | None:
    """Core-seconds every CPU of the machine has spent busy since boot (Linux /proc/stat; None elsewhere)."""
    try:
        with open("/proc/stat", encoding="ascii") as stream:
            fields = [int(value) for value in stream.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")  # user .. steal; guest time is inside user


def run_suite(out: Path, run_args: list[str]) -> tuple[float, tuple[float, float], float | None, Path, Path]:
    """(wall, (user, sys) CPU seconds of the run's processes, core-seconds the whole machine was busy meanwhile,
    results.json, call-times directory)."""
    times_dir = out / "calltimes"
    run_dir = out / "run"
    shutil.rmtree(times_dir, ignore_errors=True)
    env = {**os.environ, "PJRT_CTS_CALL_TIMES": str(times_dir)}
    command = [sys.executable, "-m", "pjrt_cts.cli.main", "run", "--no-progress", "--out", str(run_dir), *run_args]
    busy_before = machine_busy_seconds()
    start, before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall, after = time.monotonic() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    busy_after = machine_busy_seconds()
    busy = None if busy_before is None or busy_after is None else busy_after - busy_before
    cpu = (after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime)
    if not (run_dir / "results.json").is_file():
        raise SystemExit(f"pjrt-cts run wrote no results.json (exit {done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return wall, cpu, busy, run_dir / "results.json", times_dir


def load_call_times(times_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(times_dir.glob("calltimes-*.json"))]


def seconds_by_kind(functions: dict[str, dict[str, float]]) -> dict[str, float]:
    totals = {kind: sum(functions.get(name, {}).get("seconds", 0.0) for name in names)
              for kind, names in FLOOR_FUNCTIONS.items()}
    counted = {name for names in FLOOR_FUNCTIONS.values() for name in names}
    totals["other"] = sum(entry["seconds"] for name, entry in functions.items() if name not in counted)
    return totals


def merged_functions(processes: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    merged: dict[str, dict[str, float]] = defaultdict(lambda: {"calls": 0, "seconds": 0.0, "cpu_seconds": 0.0})
    for process in processes:
        for name, entry in process["functions"].items():
            merged[name]["calls"] += entry["calls"]
            merged[name]["seconds"] += entry["seconds"]
            merged[name]["cpu_seconds"] += entry.get("cpu_seconds", 0.0)
    return dict(merged)


def phases(run_dir: Path, results: dict[str, Any]) -> dict[str, float | None]:
    """Seconds from the run's start to: the preflight's end, each worker's end of collection (the file it writes
    then), the last streamed test record; and from there to the end (results.json, junit, report.html)."""
    from datetime import datetime

    start = datetime.fromisoformat(results["started_at"]).timestamp()
    collected = [path.stat().st_mtime - start for path in (run_dir / "logs").glob("*.collection.json")]
    last_record = (run_dir / "results.jsonl").stat().st_mtime - start
    steps = (results.get("plugin") or {}).get("probe_steps") or []
    return {
        "preflight_child": round(sum(float(step.get("seconds") or 0.0) for step in steps), 2),
        "workers_collected_after": round(max(collected), 1) if collected else None,
        "last_test_record_after": round(last_record, 1),
        "finish_after_last_record": round(max(0.0, float(results.get("wall_seconds") or 0.0) - last_record), 1),
    }


def cpu_budget(run_cpu: tuple[float, float], processes: list[dict[str, Any]], wall: float,
               machine_busy: float | None = None) -> dict[str, float | None]:
    """The run's CPU seconds and its compiles', and the lowest wall time each allows on this machine's cores; with
    `machine_busy` (core-seconds every CPU was busy during the run), the idle core-seconds, and the CPU that
    processes outside the run (the kernel's threads, other jobs) took meanwhile."""
    cores = len(os.sched_getaffinity(0))
    everything = merged_functions(processes)
    compile_cpu = sum(everything.get(name, {}).get("cpu_seconds", 0.0) for name in FLOOR_FUNCTIONS["compile"])
    run_total = run_cpu[0] + run_cpu[1]
    machine_cpus = os.cpu_count() or cores
    return {"cores": cores, "run_user_seconds": round(run_cpu[0], 1), "run_sys_seconds": round(run_cpu[1], 1),
            "run_cpu_seconds": round(run_total, 1), "run_lowest_wall": round(run_total / cores, 1),
            "compile_cpu_seconds": round(compile_cpu, 1), "compile_lowest_wall": round(compile_cpu / cores, 1),
            "machine_cpus": machine_cpus,
            "machine_busy_seconds": None if machine_busy is None else round(machine_busy, 1),
            "idle_core_seconds": None if machine_busy is None else round(wall * machine_cpus - machine_busy, 1),
            "outside_run_cpu_seconds": None if machine_busy is None else round(machine_busy - run_total, 1)}


def summarize(wall: float, results: dict[str, Any], processes: list[dict[str, Any]],
              run_phases: dict[str, float | None] | None = None,
              run_cpu: tuple[float, float] | None = None, machine_busy: float | None = None) -> dict[str, Any]:
    command = results.get("command", [])
    workers = next((int(command[i + 1]) for i, arg in enumerate(command[:-1]) if arg in ("-n", "--workers")),
                   min(4, os.cpu_count() or 1))
    worker_processes = [p for p in processes if p.get("worker")]
    children = [p for p in processes if not p.get("worker")]
    forked = [p for p in worker_processes if p.get("forked")]
    in_workers = seconds_by_kind(merged_functions(worker_processes))
    in_forked = seconds_by_kind(merged_functions(forked))
    in_children = seconds_by_kind(merged_functions(children))
    floor = sum(in_workers[kind] for kind in FLOOR_KINDS)
    test_seconds = sum(float(test.get("duration") or 0.0) for test in results["tests"])
    by_layer: dict[str, dict[str, float]] = defaultdict(lambda: {"tests": 0, "seconds": 0.0})
    for test in results["tests"]:
        by_layer[test["layer"]]["tests"] += 1
        by_layer[test["layer"]]["seconds"] += float(test.get("duration") or 0.0)
    top = sorted(merged_functions(worker_processes).items(), key=lambda item: -item[1]["seconds"])[:12]
    return {
        "wall_seconds": round(wall, 1),
        "run_wall_seconds": results.get("wall_seconds"),
        "tests": len(results["tests"]),
        "verdict": results.get("summary", {}).get("verdict"),
        "level": results.get("summary", {}).get("level"),
        "workers": workers,
        "plugin_seconds_in_workers": {kind: round(value, 2) for kind, value in in_workers.items()},
        "plugin_floor_seconds": round(floor, 2),
        "plugin_floor_per_worker": round(floor / workers, 2),
        "overhead_ratio": round(wall / (floor / workers), 2) if floor else None,
        # Reruns are not in the tests' durations: only the workers' own plugin time is inside them.
        "inside_tests_outside_plugin_seconds": round(
            test_seconds - sum(in_workers[kind] - in_forked[kind] for kind in (*FLOOR_KINDS, "other")), 2),
        "test_seconds": round(test_seconds, 2),
        "outside_tests_seconds": round(workers * wall - test_seconds, 2),
        "forked_from_workers": {"processes": len(forked),
                                "floor_seconds": round(sum(in_forked[kind] for kind in FLOOR_KINDS), 2)},
        "isolation_children": {"processes": len(children), "plugin_seconds": {k: round(v, 2) for k, v in in_children.items()},
                               "process_seconds": round(sum(p.get("process_seconds", 0.0) for p in children), 1),
                               "cpu_seconds": round(sum(p.get("process_cpu_seconds", 0.0) for p in children), 1)},
        "phases": run_phases or {},
        "cpu": cpu_budget(run_cpu, processes, wall, machine_busy) if run_cpu else {},
        "top_functions_in_workers": [{"function": name, **entry} for name, entry in top],
        "layers": {layer: {"tests": int(v["tests"]), "seconds": round(v["seconds"], 1)}
                   for layer, v in sorted(by_layer.items(), key=lambda item: -item[1]["seconds"])},
    }


def markdown(summary: dict[str, Any]) -> str:
    w = summary["plugin_seconds_in_workers"]
    lines = [
        f"| run | {summary['tests']} tests, {summary['workers']} workers, verdict {summary['verdict']}"
        f"{' · ' + summary['level'] if summary.get('level') else ''} |",
        "| --- | --- |",
        f"| wall | {summary['wall_seconds']} s |",
        f"| plugin floor (compile + execute + wait + transfer, in workers and the "
        f"{summary['forked_from_workers']['processes']} processes they forked for reruns and isolated tests, "
        f"{summary['forked_from_workers']['floor_seconds']} s of it) | {summary['plugin_floor_seconds']} s "
        f"(compile {w['compile']}, execute {w['execute']}, wait {w['wait']}, transfer {w['transfer']}); "
        f"{summary['plugin_floor_per_worker']} s per worker |",
        f"| overhead: wall / floor per worker | **{summary['overhead_ratio']}×** |",
        f"| other PJRT calls in workers (create, queries, destroy...) | {w['other']} s |",
        f"| inside tests, outside the plugin | {summary['inside_tests_outside_plugin_seconds']} s |",
        f"| outside tests (workers × wall − Σ test time: start, collection, recording, idle) | {summary['outside_tests_seconds']} s |",
        f"| isolation children | {summary['isolation_children']['processes']} processes, "
        f"{summary['isolation_children']['process_seconds']} s alive and "
        f"{summary['isolation_children'].get('cpu_seconds', 0.0)} CPU-s (fuzz/robustness/deserialize children, "
        f"multi-process nodes; those that made a timed call and wrote their figures), plugin time "
        f"{sum(summary['isolation_children']['plugin_seconds'].values()):.1f} s |",
    ]
    c = summary.get("cpu") or {}
    if c:
        lines.append(f"| CPU | the run {c['run_cpu_seconds']} CPU-s (user {c['run_user_seconds']} + sys "
                     f"{c['run_sys_seconds']}) = at least {c['run_lowest_wall']} s on {c['cores']} cores; its compiles "
                     f"{c['compile_cpu_seconds']} CPU-s = at least {c['compile_lowest_wall']} s |")
        if c.get("machine_busy_seconds") is not None:
            lines.append(f"| machine | {c['machine_cpus']} CPUs busy {c['machine_busy_seconds']} core-s of "
                         f"{round(summary['wall_seconds'] * c['machine_cpus'], 1)}: idle {c['idle_core_seconds']} "
                         f"core-s; processes outside the run {c['outside_run_cpu_seconds']} CPU-s |")
    p = summary.get("phases") or {}
    if p:
        lines.append(f"| phases | preflight child {p['preflight_child']} s; every worker collected after "
                     f"{p['workers_collected_after']} s; last test record at {p['last_test_record_after']} s; "
                     f"results/junit/report written in {p['finish_after_last_record']} s |")
    lines += ["", "| layer | tests | Σ test seconds |", "| --- | --- | --- |"]
    lines += [f"| {layer} | {v['tests']} | {v['seconds']} |" for layer, v in summary["layers"].items()]
    lines += ["", "| PJRT function (workers) | calls | seconds | process CPU seconds |", "| --- | --- | --- | --- |"]
    lines += [f"| {e['function']} | {e['calls']} | {e['seconds']:.1f} | "
              f"{format(e.get('cpu_seconds', 0.0), '.1f') if e['function'] in CPU_ACCOUNTED else '–'} |"
              for e in summary["top_functions_in_workers"]]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="out/bench-overhead", help="output directory (default: out/bench-overhead)")
    parser.add_argument("run_args", nargs=argparse.REMAINDER, help="arguments for `pjrt-cts run` after --")
    args = parser.parse_args()
    run_args = [a for a in args.run_args if a != "--"]
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    wall, run_cpu, machine_busy, results_path, times_dir = run_suite(out, run_args)
    results = json.loads(results_path.read_text(encoding="utf-8"))
    summary = summarize(wall, results, load_call_times(times_dir), phases(results_path.parent, results), run_cpu,
                        machine_busy)
    (out / "overhead.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print(markdown(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
