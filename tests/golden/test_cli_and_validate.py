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


@pytest.mark.parametrize("case_id", ["bitcast.bf16_to_f16.r2", "replicated.all_gather.f32.d2"])
def test_extract_writes_the_program_and_every_array_as_plain_files(case_id: str, tmp_path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """`golden extract`: the program text, the artifacts and one .npy per array (narrow types as raw bits), each named
    in case.json, with the corpus's own values."""
    import json

    import numpy as np

    from pjrt_cts.golden import dtypes

    case = load_manifest().case(case_id)
    assert main(["golden", "extract", case_id, str(tmp_path / "out")]) == 0
    assert case_id in capsys.readouterr().out
    out = tmp_path / "out"
    described = json.loads((out / "case.json").read_text())
    assert (out / described["program"]).read_text() == case.program_text()
    assert described["portable_artifacts"]["current"]["file"] == "program.current.mlirbc"
    assert (out / "program.current.mlirbc").read_bytes() == case.portable_bytecode("current")
    for entries, rows in ((described["inputs"], case.input_rows()), (described["expected"], case.expected_rows())):
        assert len(entries) == sum(len(row) for row in rows) > 0
        for entry in entries:
            stored = np.load(out / entry["file"], allow_pickle=False)
            array = dtypes.from_storable(stored, entry["element_type"])
            assert np.array_equal(array.view(stored.dtype), dtypes.to_storable(rows[entry["device"]][entry["index"]]))
            assert ("stored_as" in entry) == dtypes.is_stored_as_bits(entry["element_type"])
            assert entry["file"] in (out / "README.md").read_text()
    assert len(described["inputs"]) == case.num_devices * len(case.input_specs)


def test_extract_of_an_unknown_case_is_one_usage_error(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["golden", "extract", "no.such.case", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pjrt-cts golden extract: error: no golden case 'no.such.case'") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()
