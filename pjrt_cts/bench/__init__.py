"""`pjrt-cts bench`: the performance view of a plugin (docs/bench.md).

Host->device, device->host, device->device and on-device bandwidth over sizes 4 KiB..1 GiB
(powers of 4), Execute dispatch latency (p50/p99) of a tiny program, compile time of a mid-size
program and first-run vs steady-state latency. `run_bench` returns the JSON-ready dict stored as
bench.json and under the "bench" key of results.json; `render_bench_section` turns it into HTML.
"""
from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from pjrt_cts.bench import measure
from pjrt_cts.bench.measure import GIB, KIB, MIB, size_label
from pjrt_cts.bench.section import render_bench_page, render_bench_section, render_text

SCHEMA_VERSION = 1
MIN_SIZE = 4 * KIB
MAX_SIZE = GIB
QUICK_MAX_SIZE = 64 * MIB
# Bytes alive at once for one size: host source, device buffer, device copy, host destination,
# elementwise output. Sizes are capped so that this stays under half the available memory.
LIVE_COPIES = 5


def default_sizes(max_size: int = MAX_SIZE) -> list[int]:
    sizes, size = [], MIN_SIZE
    while size <= max_size:
        sizes.append(size)
        size *= 4
    return sizes


def parse_size(text: str) -> int:
    text = text.strip().upper().replace("IB", "").replace("B", "")
    units = {"K": KIB, "M": MIB, "G": GIB}
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def available_memory() -> int | None:
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def fit_sizes(sizes: list[int], available: int | None) -> tuple[list[int], list[int]]:
    """(sizes that fit in memory, sizes dropped)."""
    if available is None:
        return sizes, []
    limit = available // 2 // LIVE_COPIES
    return [s for s in sizes if s <= limit], [s for s in sizes if s > limit]


@dataclass
class BenchOptions:
    sizes: list[int] = field(default_factory=default_sizes)
    dispatch_iterations: int = 2000
    compile_repeats: int = 5
    steady_runs: int = 20
    peak_h2d_gbps: float | None = None
    peak_hbm_gbps: float | None = None
    peak_d2d_gbps: float | None = None


def _best(rows: list[dict[str, Any]]) -> float | None:
    return max((row["gbps"] for row in rows), default=None)


def ratios(results: dict[str, Any], options: BenchOptions) -> dict[str, Any]:
    """Measured / reference: the peaks given on the command line, and the host's own memcpy."""
    transfers = results["transfers"]
    out: dict[str, Any] = {}
    for name, peak, series in (("h2d_vs_peak", options.peak_h2d_gbps, "h2d"), ("d2h_vs_peak", options.peak_h2d_gbps, "d2h"),
                               ("device_memory_vs_peak", options.peak_hbm_gbps, "device_memory"),
                               ("d2d_vs_peak", options.peak_d2d_gbps, "d2d")):
        best = _best(transfers.get(series) or [])
        if peak and best is not None:
            out[name] = round(best / peak, 4)
    memcpy = {row["bytes"]: row["gbps"] for row in transfers.get("host_memcpy") or []}
    for series in ("h2d", "d2h", "d2d"):
        per_size = {row["label"]: round(row["gbps"] / memcpy[row["bytes"]], 4)
                    for row in transfers.get(series) or [] if memcpy.get(row["bytes"])}
        if per_size:
            out[f"{series}_vs_host_memcpy"] = per_size
    return out


def run_bench(client: Any, plugin_info: dict[str, Any], options: BenchOptions,
              say: Callable[[str], None] = lambda _line: None) -> dict[str, Any]:
    began = time.monotonic()
    devices = client.addressable_devices
    device = devices[0]
    sizes, dropped = fit_sizes(sorted(set(options.sizes)), available_memory())
    results: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "plugin": plugin_info,
        "environment": {"python": platform.python_version(), "platform": platform.platform(),
                        "cpu_count": os.cpu_count(), "machine": platform.machine()},
        "parameters": {"sizes": sizes, "sizes_dropped_for_memory": dropped,
                       "dispatch_iterations": options.dispatch_iterations, "compile_repeats": options.compile_repeats,
                       "steady_runs": options.steady_runs},
        "peaks": {"h2d_gbps": options.peak_h2d_gbps, "hbm_gbps": options.peak_hbm_gbps, "d2d_gbps": options.peak_d2d_gbps},
        "transfers": {},
        "notes": [],
    }
    if dropped:
        results["notes"].append(f"sizes {', '.join(size_label(s) for s in dropped)} skipped: not enough free memory")
    transfers = results["transfers"]
    say(f"host->device over {len(sizes)} sizes ({size_label(sizes[0])}..{size_label(sizes[-1])})" if sizes else "no sizes")
    transfers["h2d"] = measure.host_to_device(client, device, sizes)
    say("device->host")
    transfers["d2h"] = measure.device_to_host(client, device, sizes)
    if len(devices) >= 2:
        say("device->device")
        transfers["d2d"] = measure.device_to_device(client, device, devices[1], sizes)
    else:
        transfers["d2d"] = []
        results["notes"].append("device->device copy not measured: the client has one addressable device")
    say("on-device elementwise (memory bandwidth)")
    transfers["device_memory"] = measure.device_memory(client, device, sizes)
    say("host memcpy baseline")
    transfers["host_memcpy"] = measure.host_memcpy(sizes)
    say(f"dispatch latency ({options.dispatch_iterations} executions)")
    results["dispatch"] = measure.dispatch_latency(client, device, options.dispatch_iterations)
    say(f"compile time ({options.compile_repeats} compiles)")
    results["compile"] = measure.compile_time(client, options.compile_repeats)
    say("first run vs steady state")
    results["first_run"] = measure.first_vs_steady(client, device, options.steady_runs)
    results["ratios"] = ratios(results, options)
    results["wall_seconds"] = round(time.monotonic() - began, 2)
    return results


def plugin_summary(plugin: Any, client: Any) -> dict[str, Any]:
    devices = client.addressable_devices
    return {"path": str(plugin.path), "api_version": plugin.version_string, "platform_name": client.platform_name,
            "platform_version": client.platform_version, "devices": len(devices),
            "device_kind": devices[0].kind if devices else None}


def merge_into_results(results_json: Path, bench: dict[str, Any]) -> bool:
    """Add `bench` under the "bench" key of an existing results.json (True if there was one)."""
    import json

    if not results_json.is_file():
        return False
    data = json.loads(results_json.read_text())
    data["bench"] = bench
    temporary = results_json.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(temporary, results_json)
    return True


__all__ = ["BenchOptions", "default_sizes", "merge_into_results", "parse_size", "plugin_summary", "render_bench_page",
           "render_bench_section", "render_text", "run_bench"]
