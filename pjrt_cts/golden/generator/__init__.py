"""`pjrt-cts golden regenerate`: builds the corpus from JAX on CPU (needs the `golden` extra).

Importing this package imports JAX, configured by `env` (run it in a fresh process).
"""
from __future__ import annotations

import collections
import fnmatch
import importlib
import sys
import time
from pathlib import Path
from typing import Iterator, Sequence

FAMILY_MODULES = (
    "elementwise",
    "convert",
    "movement",
    "linear",
    "reduce",
    "indexing",
    "control",
    "misc",
    "multidevice",
    # Attribute spaces (issue 15): every op's attributes enumerated, one program per attribute family and dtype.
    "indexing_attributes",
    "linear_attributes",
    "reduce_attributes",
    "movement_attributes",
    "elementwise_attributes",
    "misc_attributes",
    "constant_operands",
    # Spec reference (issue 18): programs written as text, expected values from pjrt_cts.golden.spec.
    "spec_elementwise",
    "spec_math",
    "spec_bitwise",
    "spec_movement",
    "spec_structured",
    "spec_control",
    "spec_dynamic",
    # Constant folding (issue 29): every spec case again with its operands as constants in the text.
    "spec_constants",
)


def all_specs(modules: Sequence[str] = FAMILY_MODULES) -> Iterator:
    """Every case spec, in a fixed order (family module order, then each family's own order)."""
    from pjrt_cts.golden.generator import env  # noqa: F401  (before any jax import)

    for module_name in modules:
        try:
            module = importlib.import_module(f"pjrt_cts.golden.generator.families.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"pjrt_cts.golden.generator.families.{module_name}":
                continue
            raise
        yield from module.cases()


def units(only: Sequence[str] = (), modules: Sequence[str] = FAMILY_MODULES) -> list[str]:
    """The selected case ids in a fixed order (every case when `only` is empty)."""
    ids = [spec.id for spec in all_specs(modules)]
    return [case_id for case_id in ids if not only or any(fnmatch.fnmatchcase(case_id, p) for p in only)]


def _build_shard(only: Sequence[str], shard: int, num_shards: int,
                 modules: Sequence[str] = FAMILY_MODULES) -> tuple[list, list[str]]:
    """Build every `num_shards`-th selected case starting at `shard` (runs in a worker process). Cases are built
    as their spec is yielded, as family modules expect (their closures may read loop variables); packing them
    into programs happens once every case is built (`packing.pack_cases`)."""
    from pjrt_cts.golden.generator.core import GenerationError, build_case

    failures: list[str] = []
    selected = units(only, modules)
    duplicates = {case_id for case_id, count in collections.Counter(selected).items() if count > 1}
    failures.extend(f"{case_id}: duplicate case id" for case_id in sorted(duplicates))
    mine = {case_id for index, case_id in enumerate(selected) if index % num_shards == shard}
    built: dict[str, object] = {}
    for spec in all_specs(modules):
        if spec.id not in mine or spec.id in duplicates or spec.id in built:
            continue
        try:
            case = build_case(spec)
        except GenerationError as exc:
            failures.append(str(exc))
            continue
        if case is not None:  # None: a derived case the generator does not keep (spec_build)
            built[spec.id] = case
    return list(built.values()), failures


def _existing_cases(out_dir: Path, rebuilt: Sequence[str] = (), only: Sequence[str] = ()) -> list:
    """The existing corpus's cases (entries only: their files stay where they are) that are neither rebuilt nor
    selected by `only` (a selected case that was not rebuilt is gone from the generator)."""
    from pjrt_cts.golden.corpus import read_manifest_json
    from pjrt_cts.golden.generator.core import BuiltCase

    skip = set(rebuilt)
    return [BuiltCase(entry, {}) for entry in read_manifest_json(out_dir)["cases"]
            if entry["id"] not in skip and not any(fnmatch.fnmatchcase(entry["id"], p) for p in only)]


def _write(out_dir: Path, built: list, jobs: int, started: float, verbose: bool) -> None:
    from pjrt_cts.golden.generator.core import write_corpus
    from pjrt_cts.golden.generator.packing import pack_cases

    built.sort(key=lambda case: case.entry["id"])
    programs = pack_cases(built, out_dir, jobs=jobs)
    write_corpus(out_dir, built, programs)
    if verbose:
        print(f"wrote {len(built)} cases in {len(programs)} packed programs to {out_dir} "
              f"in {time.monotonic() - started:.1f}s")


def regenerate(out_dir: Path, only: Sequence[str] = (), verbose: bool = True, jobs: int = 1,
               modules: Sequence[str] = FAMILY_MODULES) -> int:
    """Build every case (or those whose id matches a glob in `only`) into `out_dir`, then pack the corpus's
    single-device cases into programs (packing.py); returns #failures.

    With jobs > 1 the cases and packs are built in that many fresh processes (JAX must start in each);
    the corpus is the same bytes either way.
    """
    started = time.monotonic()
    if jobs <= 1:
        built, failures = _build_shard(only, 0, 1, modules)
    else:
        import concurrent.futures
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            results = list(pool.map(_build_shard, [list(only)] * jobs, range(jobs), [jobs] * jobs,
                                    [list(modules)] * jobs))
        built = [case for shard_built, _ in results for case in shard_built]
        failures = sorted({failure for _, shard_failures in results for failure in shard_failures})
    if failures:
        for failure in failures:
            print(f"FAILED {failure}", file=sys.stderr)
        print(f"{len(failures)} case(s) failed; corpus not written", file=sys.stderr)
        return len(failures)
    from pjrt_cts.golden.corpus import MANIFEST_NAME

    if only and (out_dir / MANIFEST_NAME).is_file():
        built = built + _existing_cases(out_dir, [case.entry["id"] for case in built], only)
    _write(out_dir, built, jobs, started, verbose)
    return 0


def repack(out_dir: Path, jobs: int = 1, verbose: bool = True) -> int:
    """Pack the existing corpus in `out_dir` again (packing.py) without rebuilding a case: what a full
    regeneration would write for the same cases."""
    _write(out_dir, _existing_cases(out_dir), jobs, time.monotonic(), verbose)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m pjrt_cts.golden.generator")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--module", action="append", default=[], choices=FAMILY_MODULES,
                        help="build only the cases of these generator modules (default: all)")
    parser.add_argument("--repack", action="store_true", help="only pack the existing corpus's cases again")
    args = parser.parse_args(argv)
    if args.repack:
        return repack(args.out, jobs=args.jobs)
    return 1 if regenerate(args.out, args.only, jobs=args.jobs, modules=args.module or FAMILY_MODULES) else 0
