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


# Families whose cases cannot share a program: they fix layouts, donate buffers or synthesize large inputs.
UNGROUPED_FAMILIES = frozenset({"layout", "donation", "large"})
DEFAULT_GROUP_SIZE = 24


def _groupable(spec) -> bool:
    return (spec.mode == "single" and not spec.donate_argnums and spec.large_seed is None and not spec.jit_kwargs
            and spec.family not in UNGROUPED_FAMILIES)


def _default_group_key(spec) -> str:
    """Cases without an explicit group share one per family and element type (the id's dtype component)."""
    parts = spec.id.split(".")
    dtype = next((part for part in reversed(parts[1:]) if part in _dtype_names()), "mixed")
    return f"{spec.family}.cases_{dtype}"


def _dtype_names() -> frozenset[str]:
    from pjrt_cts.golden import dtypes

    return frozenset(dtypes.DTYPES)


def _assign_groups(specs: Iterator) -> Iterator:
    """Give every groupable spec without an explicit group its default one (per family and element type, at
    most DEFAULT_GROUP_SIZE cases per program), in iteration order."""
    sizes: dict[str, int] = {}
    fill: dict[str, int] = {}
    for spec in specs:
        if spec.group is None and _groupable(spec):
            key = _default_group_key(spec)
            index = fill.setdefault(key, 0)
            if sizes.get(f"{key}_{index}", 0) >= DEFAULT_GROUP_SIZE:
                index = fill[key] = index + 1
            spec.group = f"{key}_{index}"
            sizes[spec.group] = sizes.get(spec.group, 0) + 1
        yield spec


def units(only: Sequence[str] = (), modules: Sequence[str] = FAMILY_MODULES) -> list[tuple[str | None, list[str]]]:
    """The selected build units in a fixed order: (group id, member case ids) or (None, [case id]).

    A group is selected when any member (or the group id) matches `only`: its program contains every member,
    so all of them are rebuilt."""
    order: list[tuple[str | None, list[str]]] = []
    groups: dict[str, list[str]] = {}
    for spec in _assign_groups(all_specs(modules)):
        if spec.group is None:
            order.append((None, [spec.id]))
        elif spec.group in groups:
            groups[spec.group].append(spec.id)
        else:
            groups[spec.group] = [spec.id]
            order.append((spec.group, groups[spec.group]))

    def selected(group: str | None, members: list[str]) -> bool:
        names = members + ([group] if group else [])
        return not only or any(fnmatch.fnmatchcase(name, pattern) for name in names for pattern in only)

    return [(group, members) for group, members in order if selected(group, members)]


def _build_shard(only: Sequence[str], shard: int, num_shards: int,
                 modules: Sequence[str] = FAMILY_MODULES) -> tuple[list, list, list[str]]:
    """Build every `num_shards`-th selected unit starting at `shard` (runs in a worker process).

    Cases are built as their spec is yielded, as family modules expect (their closures may read loop
    variables); a group's program is then combined from its members' lowered programs."""
    from pjrt_cts.golden.generator.core import GenerationError, GroupDisagrees, build_case, build_group

    failures: list[str] = []
    selected = units(only, modules)
    case_ids = [case_id for _, members in selected for case_id in members]
    duplicates = {case_id for case_id, count in collections.Counter(case_ids).items() if count > 1}
    failures.extend(f"{case_id}: duplicate case id" for case_id in sorted(duplicates))
    clashing = {group for group, _ in selected if group is not None} & set(case_ids)
    failures.extend(f"{group}: a group id must not be a case id" for group in sorted(clashing))
    mine = {(group or members[0]) for index, (group, members) in enumerate(selected) if index % num_shards == shard}
    built: dict[str, object] = {}
    member_specs: dict[str, list] = {}
    left_alone: set[str] = set()
    for spec in _assign_groups(all_specs(modules)):
        unit = spec.group or spec.id
        if unit not in mine or spec.id in duplicates or spec.id in built:
            continue
        try:
            built[spec.id] = build_case(spec)
        except GenerationError as exc:
            failures.append(str(exc))
            continue
        if spec.group is not None and built[spec.id].entry.get("program") == spec.group:
            member_specs.setdefault(spec.group, []).append(spec)
        elif spec.group is not None:  # a spec case XLA gets wrong keeps its own program (spec_build)
            left_alone.add(spec.id)
    programs = []
    for group, members in selected:
        if group is None or group not in mine or group in clashing:
            continue
        specs = member_specs.get(group, [])
        if len(specs) != len([member for member in members if member not in left_alone]):
            continue  # a member failed: reported above
        while len(specs) > 1:
            try:
                programs.append(build_group(group, specs, [built[spec.id] for spec in specs]))
                break
            except GroupDisagrees as exc:
                # That case runs as its own program: a group would hide XLA's context-dependent result.
                print(f"note: {exc}; {exc.case_id} leaves the group", file=sys.stderr)
                built[exc.case_id].entry.pop("program", None)
                specs = [spec for spec in specs if spec.id != exc.case_id]
            except GenerationError as exc:
                failures.append(str(exc))
                break
        else:
            for spec in specs:  # a group of one is no group
                built[spec.id].entry.pop("program", None)
    return list(built.values()), programs, failures


def _merge_into_existing(out_dir: Path, built: list, programs: list, only: Sequence[str]) -> tuple[list, list]:
    """Keep the existing corpus's cases and programs that `only` does not select (their files stay as they are)."""
    import json

    from pjrt_cts.golden.generator.core import BuiltCase

    manifest = json.loads((out_dir / "manifest.json").read_text())
    rebuilt_cases = {case.entry["id"] for case in built}
    rebuilt_programs = {program.entry["id"] for program in programs}
    def selected(names: list[str]) -> bool:  # selected by `only`: rebuilt, or gone from the generator
        return any(fnmatch.fnmatchcase(name, pattern) for name in names for pattern in only)

    kept_programs = [BuiltCase(entry, {}) for entry in manifest.get("programs", [])
                     if entry["id"] not in rebuilt_programs and not set(entry["cases"]) & rebuilt_cases
                     and not selected([entry["id"], *entry["cases"]])]
    kept_members = {case_id for program in kept_programs for case_id in program.entry["cases"]}
    kept = [BuiltCase(entry, {}) for entry in manifest["cases"]
            if entry["id"] not in rebuilt_cases and (entry.get("program") is None or entry["id"] in kept_members)
            and not any(fnmatch.fnmatchcase(entry["id"], p) for p in only)]
    return (sorted(kept + built, key=lambda case: case.entry["id"]),
            sorted(kept_programs + programs, key=lambda program: program.entry["id"]))


def regenerate(out_dir: Path, only: Sequence[str] = (), verbose: bool = True, jobs: int = 1,
               modules: Sequence[str] = FAMILY_MODULES) -> int:
    """Build every case (or those whose id matches a glob in `only`) into `out_dir`; returns #failures.

    With jobs > 1 the units are built in that many fresh processes (JAX must start in each);
    the corpus is the same bytes either way.
    """
    from pjrt_cts.golden.generator.core import write_corpus

    started = time.monotonic()
    if jobs <= 1:
        built, programs, failures = _build_shard(only, 0, 1, modules)
    else:
        import concurrent.futures
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            results = list(pool.map(_build_shard, [list(only)] * jobs, range(jobs), [jobs] * jobs,
                                    [list(modules)] * jobs))
        built = [case for shard_built, _, _ in results for case in shard_built]
        programs = [program for _, shard_programs, _ in results for program in shard_programs]
        failures = sorted({failure for _, _, shard_failures in results for failure in shard_failures})
    if failures:
        for failure in failures:
            print(f"FAILED {failure}", file=sys.stderr)
        print(f"{len(failures)} case(s) failed; corpus not written", file=sys.stderr)
        return len(failures)
    built.sort(key=lambda case: case.entry["id"])
    programs.sort(key=lambda program: program.entry["id"])
    if only and (out_dir / "manifest.json").is_file():
        built, programs = _merge_into_existing(out_dir, built, programs, only)
    write_corpus(out_dir, built, programs)
    if verbose:
        print(f"wrote {len(built)} cases in {len(programs)} grouped programs to {out_dir} "
              f"in {time.monotonic() - started:.1f}s")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m pjrt_cts.golden.generator")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--module", action="append", default=[], choices=FAMILY_MODULES,
                        help="build only the cases of these generator modules (default: all)")
    args = parser.parse_args(argv)
    return 1 if regenerate(args.out, args.only, jobs=args.jobs, modules=args.module or FAMILY_MODULES) else 0
