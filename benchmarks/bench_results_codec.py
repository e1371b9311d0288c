"""How long reading and writing a results.json takes (docs/bench.md, "The codec").

    python benchmarks/bench_results_codec.py RESULTS_JSON [--repeat N]

RESULTS_JSON: a full run's (`pjrt-cts run --out DIR` writes DIR/results.json; ~17,000 records). Prints the best of N CPU
seconds of `load_results` (the file's text to typed records) and `write_results` (records to the file), the two a run
and every report command pay; run it against an older checkout (PYTHONPATH) for the before figure.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Callable

from pjrt_cts.judgment.results import load_results, write_results


def best_of(repeat: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    results = load_results(args.results)
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "results.json"
        load = best_of(args.repeat, lambda: load_results(args.results))
        write = best_of(args.repeat, lambda: write_results(results, out))
    print(f"{len(results.tests)} records, {args.results.stat().st_size / 1e6:.1f} MB: "
          f"load_results {load * 1e3:.0f} ms, write_results {write * 1e3:.0f} ms (best of {args.repeat})")


if __name__ == "__main__":
    main()
