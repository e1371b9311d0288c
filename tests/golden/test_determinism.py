"""Regenerating a few cases from JAX, and packing a family's cases again, gives byte-identical files (needs the
golden extra)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pjrt_cts.golden import load_manifest
from pjrt_cts.golden.archive import read_all, read_member, write_archives
from pjrt_cts.golden.corpus import read_manifest_json, write_manifest_json

SUBSET = ["elementwise.exponential.bf16.r2", "convert.f32_to_s8.r1", "spmd.all_to_all.s32.d2",
          "fp8.convert.f32_to_f8e4m3fn.rounding", "linalg.cholesky_lower.f64", "replicated.collective_permute.f32.d4",
          # spec reference cases: one XLA agrees with, one it computes differently (kept with the spec's value)
          "spec.add.s32", "spec.maximum.f32"]


def test_regenerated_subset_is_byte_identical(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    manifest = load_manifest()
    command = [sys.executable, "-m", "pjrt_cts.golden.generator", "--out", str(tmp_path), "--jobs", "1"]
    for case_id in SUBSET:
        command += ["--only", case_id]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-2000:]
    rebuilt = load_manifest(tmp_path)
    regenerated = rebuilt.by_id()
    assert set(SUBSET) == set(regenerated)
    shipped = manifest.by_id()
    for case_id, case in regenerated.items():  # the packs differ: these are packed among themselves here
        assert {k: v for k, v in case.raw.items() if k != "program"} == \
            {k: v for k, v in shipped[case_id].raw.items() if k != "program"}
        for entry in case.files.values():
            assert read_member(tmp_path, entry["path"]) == read_member(manifest.root, entry["path"]), entry["path"]


def test_repacking_a_family_gives_the_shipped_pack(tmp_path: Path) -> None:
    """A corpus holding exactly the cases of one shipped pack (the only pack of its family and class) packs them
    into the same program, byte for byte."""
    pytest.importorskip("jax")
    manifest = load_manifest()
    pack = next(p for p in manifest.programs if p.id == "batch_norm.pack_common_0")
    members = {case.id for case in pack.cases}
    data = read_manifest_json(manifest.root)
    data["cases"] = [entry for entry in data["cases"] if entry["id"] in members]
    data["programs"] = []
    write_archives(tmp_path, read_all(manifest.root, [f["path"] for e in data["cases"] for f in e["files"].values()]))
    write_manifest_json(tmp_path, json.dumps(data))
    command = [sys.executable, "-m", "pjrt_cts.golden.generator", "--out", str(tmp_path), "--repack"]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-2000:]
    repacked = load_manifest(tmp_path)
    assert [(p.id, [c.id for c in p.cases]) for p in repacked.programs if p.grouped] == \
        [(pack.id, [c.id for c in pack.cases])]
    again = next(p for p in repacked.programs if p.grouped)
    assert again.files == pack.files
    for entry in again.files.values():
        assert read_member(tmp_path, entry["path"]) == read_member(manifest.root, entry["path"]), entry["path"]
