"""The measurements of `pjrt-cts bench`, each on an already created client.

Times are wall-clock (time.perf_counter) around the PJRT calls plus the wait for completion, so
they are what a framework sees. Bandwidths are decimal GB/s (10^9 bytes per second) from the
median of the repeats.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from pjrt_cts.bench.workloads import TINY_ADD, mlp_inputs, mlp_program, negate_program

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


@dataclass(frozen=True)
class Timing:
    median: float
    minimum: float
    samples: int

    def gbps(self, nbytes: int) -> float:
        return nbytes / self.median / 1e9 if self.median > 0 else float("inf")


def time_repeated(run: Callable[[], Callable[[], None] | None], *, min_repeats: int = 3, max_repeats: int = 50,
                  budget_s: float = 0.5, warmup: int = 1) -> Timing:
    """Median/min seconds of `run()`. `run` may return a cleanup callable, called outside the timing."""
    for _ in range(warmup):
        cleanup = run()
        if cleanup:
            cleanup()
    samples: list[float] = []
    spent = 0.0
    while len(samples) < min_repeats or (spent < budget_s and len(samples) < max_repeats):
        start = time.perf_counter()
        cleanup = run()
        elapsed = time.perf_counter() - start
        if cleanup:
            cleanup()
        samples.append(elapsed)
        spent += elapsed
    return Timing(statistics.median(samples), min(samples), len(samples))


def size_label(nbytes: int) -> str:
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if nbytes >= unit and nbytes % unit == 0:
            return f"{nbytes // unit} {name}"
    return f"{nbytes} B"


def _row(nbytes: int, timing: Timing, moved: int | None = None) -> dict[str, Any]:
    moved = nbytes if moved is None else moved
    return {"bytes": nbytes, "label": size_label(nbytes), "median_s": timing.median, "min_s": timing.minimum,
            "repeats": timing.samples, "gbps": round(timing.gbps(moved), 4)}


def host_to_device(client: Any, device: Any, sizes: list[int]) -> list[dict[str, Any]]:
    rows = []
    for nbytes in sizes:
        source = np.ones(nbytes, dtype=np.uint8)

        def run() -> Callable[[], None]:
            buffer = client.buffer_from_numpy(source, device)  # noqa: B023 - called within this iteration
            buffer.block_until_ready()
            return buffer.close

        rows.append(_row(nbytes, time_repeated(run)))
    return rows


def device_to_host(client: Any, device: Any, sizes: list[int]) -> list[dict[str, Any]]:
    rows = []
    for nbytes in sizes:
        with client.buffer_from_numpy(np.ones(nbytes, dtype=np.uint8), device) as buffer:
            destination = np.zeros(nbytes, dtype=np.uint8)  # touched: page faults are not transfer time
            address = destination.ctypes.data

            def run() -> None:
                event = buffer.to_host_into(address, nbytes)  # noqa: B023 - called within this iteration
                try:
                    event.wait()
                finally:
                    event.close()

            rows.append(_row(nbytes, time_repeated(run)))
            if destination[-1] != 1:
                raise AssertionError(f"device->host copy of {size_label(nbytes)} returned wrong bytes")
    return rows


def device_to_device(client: Any, source_device: Any, target_device: Any, sizes: list[int]) -> list[dict[str, Any]]:
    rows = []
    for nbytes in sizes:
        with client.buffer_from_numpy(np.ones(nbytes, dtype=np.uint8), source_device) as buffer:
            def run() -> Callable[[], None]:
                copy = buffer.copy_to_device(target_device)
                copy.block_until_ready()
                return copy.close

            rows.append(_row(nbytes, time_repeated(run)))
    return rows


def device_memory(client: Any, device: Any, sizes: list[int]) -> list[dict[str, Any]]:
    """Elementwise negate over the buffer: one read and one write of every byte (2 x size moved)."""
    rows = []
    for nbytes in sizes:
        elements = max(1, nbytes // 4)
        with client.compile(negate_program(elements)) as executable, \
                client.buffer_from_numpy(np.ones(elements, dtype=np.float32), device) as buffer:
            def run() -> Callable[[], None]:
                output = executable.execute([buffer])[0]
                output.block_until_ready()
                return output.close

            rows.append(_row(elements * 4, time_repeated(run), moved=2 * elements * 4))
    return rows


def host_memcpy(sizes: list[int]) -> list[dict[str, Any]]:
    """numpy copy between two touched host arrays: the host's own bandwidth, a baseline for CPU plugins."""
    rows = []
    for nbytes in sizes:
        source = np.ones(nbytes, dtype=np.uint8)
        destination = np.zeros(nbytes, dtype=np.uint8)
        rows.append(_row(nbytes, time_repeated(lambda: np.copyto(destination, source))))  # noqa: B023 - called within this iteration
    return rows


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = np.sort(np.asarray(samples))
    return {
        "p50_us": float(np.percentile(ordered, 50) * 1e6), "p90_us": float(np.percentile(ordered, 90) * 1e6),
        "p99_us": float(np.percentile(ordered, 99) * 1e6), "mean_us": float(ordered.mean() * 1e6),
        "min_us": float(ordered[0] * 1e6), "max_us": float(ordered[-1] * 1e6), "n": int(len(ordered)),
    }


def dispatch_latency(client: Any, device: Any, iterations: int) -> dict[str, Any]:
    """Execute of a 4-element add: time to return from Execute (dispatch) and until the output is ready."""
    with client.compile(TINY_ADD) as executable:
        a = client.buffer_from_numpy(np.arange(4, dtype=np.float32), device)
        b = client.buffer_from_numpy(np.ones(4, dtype=np.float32), device)
        dispatch, round_trip = [], []
        for index in range(iterations + 20):
            start = time.perf_counter()
            output = executable.execute([a, b])[0]
            returned = time.perf_counter()
            output.block_until_ready()
            ready = time.perf_counter()
            output.close()
            if index >= 20:  # warm-up left out
                dispatch.append(returned - start)
                round_trip.append(ready - start)
        a.close()
        b.close()
    return {"program": "add f32[4] + f32[4]", "dispatch": percentiles(dispatch),
            "round_trip": percentiles(round_trip), "round_trip_samples_us": [round(s * 1e6, 2) for s in round_trip]}


def compile_time(client: Any, repeats: int) -> dict[str, Any]:
    code = mlp_program()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        executable = client.compile(code)
        samples.append(time.perf_counter() - start)
        executable.close()
    return {"program": "3-layer MLP 64x256 -> 512 -> 512 -> 16 + log-softmax (StableHLO text)",
            "ops": code.count(" = stablehlo."), "repeats": repeats, "median_s": statistics.median(samples),
            "min_s": min(samples), "max_s": max(samples), "samples_s": samples}


def first_vs_steady(client: Any, device: Any, steady_runs: int) -> dict[str, Any]:
    """First Execute of a freshly compiled executable vs. the median of the following ones."""
    results = {}
    cases = {"tiny_add": (TINY_ADD, [np.arange(4, dtype=np.float32), np.ones(4, dtype=np.float32)]),
             "mlp3": (mlp_program(), mlp_inputs())}
    for name, (code, arrays) in cases.items():
        with client.compile(code) as executable:
            buffers = [client.buffer_from_numpy(array, device) for array in arrays]
            times = []
            for _ in range(steady_runs + 1):
                start = time.perf_counter()
                output = executable.execute(buffers)[0]
                output.block_until_ready()
                times.append(time.perf_counter() - start)
                output.close()
            for buffer in buffers:
                buffer.close()
        steady = statistics.median(times[1:])
        results[name] = {"first_us": times[0] * 1e6, "steady_p50_us": steady * 1e6,
                         "first_over_steady": times[0] / steady if steady > 0 else None, "steady_runs": steady_runs}
    return results
