"""`pjrt-cts golden list|check|validate` and running cases on the bundled CPU plugin."""
from __future__ import annotations

from pjrt_cts.golden.corpus import read_manifest_json, sha256_of, write_manifest_json

import pytest

from pjrt_cts.cli.main import main
from pjrt_cts.golden import load_manifest
from pjrt_cts.golden.validate import validate


def test_list_by_op_shows_ops_and_totals(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["golden", "list", "--op", "sort"]) == 0
    out = capsys.readouterr().out
    assert "stablehlo.sort" in out and "cases," in out
    assert main(["golden", "list", "--by", "dtype", "--family", "fp8"]) == 0
    assert "f8e5m2" in capsys.readouterr().out


def test_check_passes_on_the_shipped_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["golden", "check", "--no-data"]) == 0
    assert "corpus OK" in capsys.readouterr().out


def test_validate_runs_cases_on_the_default_plugin() -> None:
    pytest.importorskip("lammps_jax_pjrt_cpu")
    from pjrt_cts.runtime import default_plugin_path

    patterns = ["elementwise.add.f32.r2", "spmd.all_gather.f32.d2", "replicated.all_reduce_sum.s32.d4",
                "fp8.add.f8e5m2.r1", "shapes.add_rank0.f64", "control.case_2.s32"]
    results = {r.id: r for r in validate(default_plugin_path(), only=patterns)}
    assert set(results) == set(patterns)
    assert {r.outcome for r in results.values()} == {"PASS"}, {i: r.message for i, r in results.items()}


def test_validate_reports_a_wrong_expectation_with_the_diff(tmp_path) -> None:
    """A corrupted expected output must FAIL with max abs/rel error and the index."""
    pytest.importorskip("lammps_jax_pjrt_cpu")
    import json

    import numpy as np

    from pjrt_cts.golden.archive import read_all, write_archives
    from pjrt_cts.golden.npzio import load_npz_bytes, npz_bytes
    from pjrt_cts.runtime import default_plugin_path

    manifest = load_manifest()
    data = read_manifest_json(manifest.root)
    entry = next(e for e in data["cases"] if e["id"] == "elementwise.multiply.f32.r2")
    files = read_all(manifest.root, [file["path"] for file in entry["files"].values()])
    arrays = load_npz_bytes(files[entry["files"]["data"]["path"]])
    arrays["out.0.0"] = arrays["out.0.0"].copy()
    arrays["out.0.0"][2, 1] += np.float32(1.0)
    files[entry["files"]["data"]["path"]] = npz_bytes(arrays)
    entry["files"]["data"]["sha256"] = sha256_of(files[entry["files"]["data"]["path"]])  # a corpus that says so
    write_archives(tmp_path, files)
    entry.pop("program", None)  # the case alone, as its own program
    data["cases"], data["programs"] = [entry], []
    write_manifest_json(tmp_path, json.dumps(data))
    [result] = list(validate(default_plugin_path(), tmp_path))
    assert result.outcome == "FAIL"
    assert "first mismatch at index [2, 1]" in result.message and "max abs err" in result.message
    assert result.details["first_mismatch_index"] == [2, 1]
