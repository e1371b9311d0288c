"""Regenerating a few cases (and the grouped programs they belong to) from JAX gives byte-identical files
(needs the golden extra)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pjrt_cts.golden import load_manifest
from pjrt_cts.golden.archive import read_member

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
    assert set(SUBSET) <= set(regenerated)  # with the other cases of their groups: a group is one program
    shipped = manifest.by_id()
    for case_id, case in regenerated.items():
        assert case.raw == shipped[case_id].raw
        for entry in case.files.values():
            assert read_member(tmp_path, entry["path"]) == read_member(manifest.root, entry["path"]), entry["path"]
    for program in rebuilt.programs:
        assert program.files == manifest.program_of(program.cases[0]).files
        for entry in program.files.values():
            assert read_member(tmp_path, entry["path"]) == read_member(manifest.root, entry["path"]), entry["path"]
