"""Packing single-device cases into programs: what a plugin compiles for the corpus (issue 29).

A plugin pays a fixed cost per compiled program (XLA's pass pipeline, executable setup) on top of the work per
op, so the corpus's cases are compiled as packs: one program per family and element-type class that takes every
member's arguments and returns every member's results, in member order (below), combined from the members' own
programs (`core.combine_programs`). The plan is a pure function of the manifest's case entries (`plan_packs`),
so a full regeneration and `--repack` over an existing corpus give the same programs.

- **Classes.** A pack holds cases of one family whose most exotic element type falls in one class: `subint`
  (2- and 4-bit integers), `subfloat` (4- and 6-bit floats), `fp8`, `complex`, `wide` (64-bit types) or
  `common`. Plugins support element types by these tiers (no f64 on a TPU, no sub-byte types on older builds,
  compilers that abort on 4-bit types): a plugin that lacks a class rejects (or crashes on) only that class's
  packs, their members fall back to their own programs, and the others stay packed.
- **Bounds.** At most MAX_CASES cases and MAX_WEIGHT units of estimated compile work (a convolution or FFT
  counts FAMILY_WEIGHT units): one rejected pack costs its members' own compiles, about one pack's worth. Packs of
  the classes plugins most often reject or crash on are smaller (CLASS_MAX_CASES: on jax-cuda13-pjrt a 4-bit pack
  aborts the compiler, and each of its members then costs a compile of its own).
- **Mandatory cases first.** Within a family and class, the cases a level contract makes mandatory
  (`mandatory_case_ids`: the golden selections of pjrt_cts.judgment.levels) come first, then the rest, each in id
  order: a run of the mandatory tests alone (the selftest's baseline, a vendor's first look) compiles the few packs
  that hold them instead of every pack that holds one.
- **Not packed.** Multi-device, donating, layout-fixing and large cases (their programs cannot be shared), spec
  cases XLA cannot compile or run (in a pack they would fail every XLA-based plugin's pack), and a member whose
  value XLA computes differently inside the pack than alone (the pack is checked on JAX's CPU
  backend against every member's own expected outputs, and such a member leaves).
"""
from __future__ import annotations

import collections
import functools
import sys
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from pjrt_cts.golden import dtypes as golden_dtypes
from pjrt_cts.golden.archive import read_member
from pjrt_cts.golden.compare import compare
from pjrt_cts.golden.corpus import xla_output_key
from pjrt_cts.golden.npzio import load_npz_bytes
from pjrt_cts.golden.tolerance import Tolerance

MAX_CASES = 128
MAX_WEIGHT = 128
CLASS_MAX_CASES = {"fp8": 48, "subfloat": 24, "subint": 24}
FAMILY_WEIGHT = {"conv": 4, "fft": 4, "linalg": 2, "batch_norm": 2}
PACK_SUFFIX = "program"  # a pack's files: <family>/<pack stem>.program.mlir, ...
UNPACKED_FAMILIES = frozenset({"layout", "donation", "large"})
# spec_vs_xla kinds whose program XLA does not run: packed, they would fail the pack on every XLA-based plugin.
_XLA_DOES_NOT_RUN = frozenset({"compile_error", "runtime_error", "abort", "hang"})
# Element-type classes, from the most rarely supported: a case belongs to the first class any of its types is in.
TYPE_CLASSES: tuple[tuple[str, frozenset[str]], ...] = (
    ("subint", frozenset({"s2", "u2", "s4", "u4"})),
    ("subfloat", frozenset({"f4e2m1fn", "f6e2m3fn", "f6e3m2fn"})),
    ("fp8", frozenset({"f8e4m3fn", "f8e5m2", "f8e4m3b11fnuz", "f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3", "f8e3m4",
                       "f8e8m0fnu"})),
    ("complex", frozenset({"c64", "c128"})),
    ("wide", frozenset({"f64", "s64", "u64"})),
)
CLASSES = ("common", "wide", "complex", "fp8", "subfloat", "subint")  # pack order within a family


def type_class(dtype_names: Iterable[str]) -> str:
    names = set(dtype_names)
    return next((name for name, members in TYPE_CLASSES if names & members), "common")


def packable(entry: dict[str, Any]) -> bool:
    """Whether a case entry may share a program with others."""
    return (int(entry["num_replicas"]) * int(entry["num_partitions"]) == 1 and not entry.get("donation")
            and entry.get("layouts") is None and entry.get("large") is None
            and entry["family"] not in UNPACKED_FAMILIES
            and (entry.get("spec_vs_xla") or {}).get("kind") not in _XLA_DOES_NOT_RUN)


def pack_key(entry: dict[str, Any]) -> tuple[str, str]:
    """(family, type class), with the constant-operand spec variants in packs of their own (`spec_const`)."""
    family = entry["family"]
    if "constant_operands" in entry.get("features", ()) and family == "spec":
        family = "spec_const"
    return family, type_class(entry["dtypes"])


def mandatory_case_ids(entries: Iterable[dict[str, Any]]) -> set[str]:
    """The ids of the cases some level's golden selection makes mandatory (any of its tests)."""
    from pjrt_cts.judgment.levels import LEVELS

    chosen = list(entries)
    selections = [feature.golden for level in LEVELS for feature in level.features if feature.golden is not None]
    return {test_id.split("[", 1)[1][:-1] for selection in selections for test_id in selection.select(chosen)}


def plan_packs(entries: Sequence[dict[str, Any]], excluded: Iterable[str] = ()) -> list[tuple[str, list[str]]]:
    """(pack id, member case ids) for every pack of two or more members, in a fixed order: packable cases
    (minus `excluded`) by family and class, the mandatory ones first, each part in id order, cut at MAX_CASES /
    MAX_WEIGHT."""
    left_out = set(excluded)
    mandatory = mandatory_case_ids(entries)
    by_key: dict[tuple[str, str], list[dict[str, Any]]] = collections.defaultdict(list)
    for entry in sorted(entries, key=lambda e: (e["id"] not in mandatory, e["id"])):
        if packable(entry) and entry["id"] not in left_out:
            by_key[pack_key(entry)].append(entry)
    plan: list[tuple[str, list[str]]] = []
    for (family, kind), members in sorted(by_key.items(), key=lambda kv: (kv[0][0], CLASSES.index(kv[0][1]))):
        chunks: list[list[str]] = [[]]
        weight = 0
        most = CLASS_MAX_CASES.get(kind, MAX_CASES)
        for entry in members:
            cost = FAMILY_WEIGHT.get(entry["family"], 1)
            if chunks[-1] and (len(chunks[-1]) >= most or weight + cost > MAX_WEIGHT):
                chunks.append([])
                weight = 0
            chunks[-1].append(entry["id"])
            weight += cost
        real_family = members[0]["family"]
        tag = "const_" if family == "spec_const" else ""
        plan.extend((f"{real_family}.pack_{tag}{kind}_{index}", chunk)
                     for index, chunk in enumerate(chunks) if len(chunk) > 1)
    return plan


class PackMember:
    """One case as the packer needs it: its entry, program text, inputs and the outputs XLA must reproduce."""

    def __init__(self, entry: dict[str, Any], files: dict[str, bytes], root: Path | None,
                 xla_outputs: list[np.ndarray] | None = None) -> None:
        self.entry = entry
        self._files = files
        self._root = root
        self._xla_outputs = xla_outputs

    def read(self, kind: str) -> bytes:
        path = self.entry["files"][kind]["path"]
        if path in self._files:
            return self._files[path]
        if self._root is None:
            raise KeyError(f"{self.entry['id']}: no bytes for {path}")
        return read_member(self._root, path)

    def text(self) -> str:
        return self.read("mlir").decode("utf-8")

    @functools.cached_property
    def _arrays(self) -> dict[str, np.ndarray]:
        return load_npz_bytes(self.read("data"))  # once: every round of build_pack reads inputs and outputs

    def inputs(self) -> list[np.ndarray]:
        arrays = self._arrays
        return [golden_dtypes.from_storable(arrays[f"in.0.{i}"], spec["dtype"])
                for i, spec in enumerate(self.entry["inputs"])]

    def reproduce(self) -> list[np.ndarray]:
        """What XLA computed for this case alone: the stored outputs, or XLA's own where it differs from the spec."""
        if self._xla_outputs is not None:
            return self._xla_outputs
        arrays = self._arrays
        deviation = self.entry.get("spec_vs_xla") or {}
        if "xla_outputs" in deviation:
            return [golden_dtypes.from_storable(arrays[xla_output_key(i)], name)
                    for i, name in enumerate(deviation["xla_dtypes"])]
        return [golden_dtypes.from_storable(arrays[f"out.0.{i}"], spec["dtype"])
                for i, spec in enumerate(self.entry["outputs"])]


def build_pack(pack_id: str, members: Sequence[PackMember]) -> tuple[Any, list[str]]:
    """The pack's BuiltCase (None when fewer than two members agree) and the members that left it because XLA
    computes them differently inside it. Each round checks every member and drops all that disagree at once."""
    from pjrt_cts.golden.generator.core import (BuiltCase, GenerationError, _run_on_jax_cpu, combine_programs,
                                                program_files, program_ops, serialize, sha256_bytes)

    left: list[str] = []
    current = list(members)
    while len(current) > 1:
        try:
            text = combine_programs([member.text() for member in current])
            outputs = _run_on_jax_cpu(text, [array for member in current for array in member.inputs()])
        except Exception as exc:  # noqa: BLE001 - reported with the pack's name; the corpus is not written
            raise GenerationError(f"pack {pack_id}: JAX's CPU backend cannot build or run it: "
                                  f"{type(exc).__name__}: {exc}") from exc
        disagreeing: list[str] = []
        position = 0
        for member in current:
            expected = member.reproduce()
            tolerance = Tolerance.from_json(member.entry["tolerance"])
            for index, want in enumerate(expected):
                if compare(outputs[position + index], want, tolerance) is not None:
                    disagreeing.append(member.entry["id"])
                    break
            position += len(expected)
        if position != len(outputs):
            raise GenerationError(f"pack {pack_id}: {len(outputs)} results, the members have {position}")
        if not disagreeing:
            break
        print(f"note: pack {pack_id}: XLA computes {', '.join(disagreeing)} differently inside the pack; "
              f"they keep their own programs", file=sys.stderr)
        left.extend(disagreeing)
        current = [member for member in current if member.entry["id"] not in disagreeing]
    if len(current) <= 1:
        return None, left + [member.entry["id"] for member in current]
    try:
        artifacts, skipped, recorded = serialize(text)
    except GenerationError as exc:
        raise GenerationError(f"pack {pack_id}: {exc}") from None
    family, stem = pack_id.split(".", 1)
    files, file_entries = program_files(f"{family}/{stem}.{PACK_SUFFIX}", text, artifacts)
    entry = {
        "id": pack_id,
        "family": family,
        "cases": [member.entry["id"] for member in current],
        "ops": program_ops(text),
        "bytecode_versions": recorded,
        "bytecode_skipped": skipped,
        "files": {kind: {"path": path, "sha256": sha256_bytes(files[path])} for kind, path in file_entries.items()},
    }
    return BuiltCase(entry, files), left


def _build_part(plan: list[tuple[str, list[str]]], members: dict[str, PackMember]) -> tuple[list[Any], list[str]]:
    built, left = [], []
    for pack_id, member_ids in plan:
        program, leaving = build_pack(pack_id, [members[case_id] for case_id in member_ids])
        left.extend(leaving)
        if program is not None:
            built.append(program)
    return built, left


def pack_cases(cases: Sequence[Any], root: Path | None, jobs: int = 1) -> list[Any]:
    """Pack `cases` (BuiltCases; bytes missing from their `files` are read from the corpus at `root`): sets each
    member's entry["program"], returns the packs' BuiltCases in id order. Members that leave a pack are planned
    again without them, so the packs that are written are exactly the plan of the cases that stay packable."""
    members = {case.entry["id"]: PackMember(case.entry, case.files, root, getattr(case, "xla_outputs", None))
               for case in cases}
    for case in cases:
        case.entry.pop("program", None)
    excluded: set[str] = set()
    done: dict[str, Any] = {}
    while True:
        plan = [(pack_id, ids) for pack_id, ids in plan_packs([case.entry for case in cases], excluded)
                if not (pack_id in done and done[pack_id].entry["cases"] == ids)]
        if not plan:
            break
        if jobs > 1:
            import concurrent.futures
            import multiprocessing

            parts = [plan[index::jobs] for index in range(jobs)]
            context = multiprocessing.get_context("spawn")
            with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
                results = list(pool.map(_build_part, parts, [members] * len(parts)))
        else:
            results = [_build_part(plan, members)]
        left = [case_id for _, part_left in results for case_id in part_left]
        for part_built, _ in results:
            done.update((program.entry["id"], program) for program in part_built)
        if not left:
            break
        excluded.update(left)
    final = plan_packs([case.entry for case in cases], excluded)
    programs = [done[pack_id] for pack_id, _ in final]
    for program in programs:
        for case_id in program.entry["cases"]:
            members[case_id].entry["program"] = program.entry["id"]
    return sorted(programs, key=lambda program: program.entry["id"])
