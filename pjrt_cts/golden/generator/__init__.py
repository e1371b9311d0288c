"""`pjrt-cts golden regenerate`: builds the corpus from JAX on CPU (needs the `golden` extra).

Importing this package imports JAX, configured by `env` (run it in a fresh process).
"""
from __future__ import annotations

import fnmatch
import importlib
import sys
import time
from pathlib import Path
from typing import Iterator, Sequence

FAMILY_MODULES = (
    "fam_elementwise",
    "fam_convert",
    "fam_movement",
    "fam_linear",
    "fam_reduce",
    "fam_indexing",
    "fam_control",
    "fam_misc",
    "fam_multidevice",
)


def all_specs() -> Iterator:
    """Every case spec, in a fixed order (family module order, then each family's own order)."""
    from pjrt_cts.golden.generator import env  # noqa: F401  (before any jax import)

    for module_name in FAMILY_MODULES:
        try:
            module = importlib.import_module(f"pjrt_cts.golden.generator.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"pjrt_cts.golden.generator.{module_name}":
                continue
            raise
        yield from module.cases()


def _build_shard(only: Sequence[str], shard: int, num_shards: int) -> tuple[list, list[str]]:
    """Build every `num_shards`-th selected case starting at `shard` (runs in a worker process)."""
    from pjrt_cts.golden.generator.core import GenerationError, build_case

    built, failures = [], []
    seen: set[str] = set()
    index = -1
    for spec in all_specs():
        if only and not any(fnmatch.fnmatchcase(spec.id, pattern) for pattern in only):
            continue
        index += 1
        if spec.id in seen:
            failures.append(f"{spec.id}: duplicate case id")
            continue
        seen.add(spec.id)
        if index % num_shards != shard:
            continue
        try:
            built.append(build_case(spec))
        except GenerationError as exc:
            failures.append(str(exc))
    return built, failures


def _merge_into_existing(out_dir: Path, built: list, only: Sequence[str]) -> list:
    """Keep the existing corpus's cases that `only` does not select (their files stay as they are)."""
    import json

    from pjrt_cts.golden.generator.core import BuiltCase

    existing = json.loads((out_dir / "manifest.json").read_text())["cases"]
    rebuilt = {case.entry["id"] for case in built}
    kept = [BuiltCase(entry, {}) for entry in existing
            if entry["id"] not in rebuilt and not any(fnmatch.fnmatchcase(entry["id"], p) for p in only)]
    return sorted(kept + built, key=lambda case: case.entry["id"])


def regenerate(out_dir: Path, only: Sequence[str] = (), verbose: bool = True, jobs: int = 1) -> int:
    """Build every case (or those whose id matches a glob in `only`) into `out_dir`; returns #failures.

    With jobs > 1 the cases are built in that many fresh processes (JAX must start in each);
    the corpus is the same bytes either way.
    """
    from pjrt_cts.golden.generator.core import write_corpus

    started = time.monotonic()
    if jobs <= 1:
        built, failures = _build_shard(only, 0, 1)
    else:
        import concurrent.futures
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            results = list(pool.map(_build_shard, [list(only)] * jobs, range(jobs), [jobs] * jobs))
        built = [case for shard_built, _ in results for case in shard_built]
        failures = sorted({failure for _, shard_failures in results for failure in shard_failures})
    if failures:
        for failure in failures:
            print(f"FAILED {failure}", file=sys.stderr)
        print(f"{len(failures)} case(s) failed; corpus not written", file=sys.stderr)
        return len(failures)
    built.sort(key=lambda case: case.entry["id"])
    if only and (out_dir / "manifest.json").is_file():
        built = _merge_into_existing(out_dir, built, only)
    write_corpus(out_dir, built, prune=not only)
    if verbose:
        print(f"wrote {len(built)} cases to {out_dir} in {time.monotonic() - started:.1f}s")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m pjrt_cts.golden.generator")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    return 1 if regenerate(args.out, args.only, jobs=args.jobs) else 0
