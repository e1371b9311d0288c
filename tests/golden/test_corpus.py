"""The shipped corpus: manifest integrity, hashes, coverage targets and data encoding."""
from __future__ import annotations

from pjrt_cts.golden.corpus import read_manifest_json, write_manifest_json

import json
from pathlib import Path

import numpy as np
import pytest

from pjrt_cts.golden import dtypes, load_manifest, synth
from pjrt_cts.golden.check import check_corpus
from pjrt_cts.golden.archive import MemberAltered, read_all, write_archives
from pjrt_cts.golden.npzio import load_npz_bytes, npz_bytes

REQUIRED_DTYPES = {"pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64", "c64",
                   "c128", "f8e4m3fn", "f8e5m2"}


@pytest.fixture(scope="module")
def manifest():
    return load_manifest()


def test_corpus_matches_its_manifest(manifest) -> None:
    found, problems = check_corpus(manifest.root)
    assert problems == []
    assert len(found.cases) == len(manifest.cases)


def test_coverage_targets(manifest) -> None:
    stablehlo_ops = {op for op in manifest.ops() if op.startswith("stablehlo.")}
    assert len(manifest.cases) >= 12500
    on_disk = sum(path.stat().st_size for path in manifest.root.iterdir() if path.is_file())
    assert on_disk <= 40 * 2**20, f"golden/ holds {on_disk / 2**20:.1f} MiB (issue 29: <= 40)"
    assert len(stablehlo_ops) >= 90
    assert REQUIRED_DTYPES <= set(manifest.dtype_names())
    donation_kinds = {kind for case in manifest.cases if case.donation for kind in case.donation["kinds"]}
    assert donation_kinds == {"tf.aliasing_output", "jax.buffer_donor"}
    features = {feature for case in manifest.cases for feature in case.features}
    assert {"num_devices:2", "num_devices:4", "spmd", "replicated", "donation", "large", "custom_layout",
            "zero_size", "rank0"} <= features


def test_every_case_has_program_and_current_bytecode(manifest) -> None:
    for case in manifest.cases[::50]:
        text = case.program_text()
        assert "func.func public @main" in text
        assert case.portable_bytecode("current").startswith(b"ML\xefR")
        assert manifest.stablehlo_versions["current"] in case.portable_bytecode("current")[:40].decode("latin-1")


def test_inputs_and_expected_follow_the_manifest(manifest) -> None:
    for case in manifest.cases[::37]:
        if case.large:
            continue
        rows_in, rows_out = case.input_rows(), case.expected_rows()
        assert len(rows_in) == case.num_devices == len(rows_out)
        for row in rows_in:
            assert [list(a.shape) for a in row] == [s["shape"] for s in case.input_specs]
            assert [dtypes.name_of(a.dtype) for a in row] == [s["dtype"] for s in case.input_specs]
            # Seeded inputs are never all zeros, except operands the generator lets be (indices, predicates):
            # a case's data is never zeros throughout.
            assert not row or any(a.size == 0 or np.any(a != 0) for a in row) or "signed_zero" in case.features, case.id
        for row in rows_out:
            assert [list(a.shape) for a in row] == [s["shape"] for s in case.output_specs]


def test_multi_device_cases_give_rows_per_device(manifest) -> None:
    case = next(c for c in manifest.cases if c.num_partitions == 4)
    assert case.use_spmd_partitioning and case.is_multi_device
    assert len(case.inputs()) == 4 and len(case.expected()) == 4
    replicated = next(c for c in manifest.cases if c.num_replicas == 2)
    assert not replicated.use_spmd_partitioning and len(replicated.inputs()) == 2


def test_bf16_and_fp8_round_trip_through_npz_bits(manifest) -> None:
    case = next(c for c in manifest.cases if c.id.startswith("fp8.add.f8e4m3fn"))
    a, b = case.inputs()
    assert a.dtype == dtypes.dtype_of("f8e4m3fn")
    raw = load_npz_bytes(case.read_bytes("data"))
    assert raw["in.0.0"].dtype == np.uint8  # stored as bits: no pickling
    assert np.array_equal(raw["in.0.0"], a.view(np.uint8))


def test_large_cases_synthesize_deterministically(manifest) -> None:
    large = [c for c in manifest.cases if c.large]
    assert large and all("data" not in c.files for c in large)
    nbytes = [sum(int(np.prod(s["shape"])) * dtypes.dtype_of(s["dtype"]).itemsize for s in c.input_specs) for c in large]
    assert min(nbytes) >= 64 * 2**20
    small = [{"shape": [3, 4], "dtype": "f32"}, {"shape": [5], "dtype": "u8"}]
    first, second = synth.synthesize_inputs(7, small), synth.synthesize_inputs(7, small)
    assert all(np.array_equal(x, y) for x, y in zip(first, second))
    assert all(np.any(x != 0) for x in first)
    assert synth.reference_outputs("add", [first[0], first[0]])[0].dtype == np.float32


def test_npz_bytes_are_deterministic() -> None:
    arrays = {"in.0.0": np.arange(5, dtype=np.int16), "out.0.0": np.array(2.5, np.float32)}
    assert npz_bytes(arrays) == npz_bytes(dict(arrays))


def test_npz_members_are_stored_for_the_bundle_to_deflate() -> None:
    """Deflated inside the .npz, the bundle could not compress them again (docs/bench.md: golden corpus size)."""
    import io
    import zipfile

    data = npz_bytes({"in.0.0": np.zeros(256, np.float32), "out.0.0": np.ones(3, np.int8)})
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert [(m.filename, m.compress_type) for m in archive.infolist()] == [
            ("in.0.0.npy", zipfile.ZIP_STORED), ("out.0.0.npy", zipfile.ZIP_STORED)]
    deflated = io.BytesIO()  # a corpus written before: members deflated
    np.savez_compressed(deflated, **{"in.0.0": np.arange(4.0)})
    assert np.array_equal(load_npz_bytes(deflated.getvalue())["in.0.0"], np.arange(4.0))


def _numpy_reads(data: bytes) -> dict[str, np.ndarray]:
    import io

    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


@pytest.mark.parametrize("array", [
    np.arange(6, dtype=np.float32).reshape(2, 3), np.array(2.5), np.zeros((0, 3), np.int8), np.array([True, False]),
    np.arange(4, dtype=">i4"), np.array([1 + 2j], np.complex64), np.arange(3, dtype=np.uint64),
], ids=["f32_2d", "f64_scalar", "empty", "bool", "big_endian", "c64", "u64"])
def test_npz_reader_gives_what_numpy_reads(array: np.ndarray) -> None:
    data = npz_bytes({"in.0.0": array, "out.0.0": array[..., None]})
    mine, numpy_s = load_npz_bytes(data), _numpy_reads(data)
    assert list(mine) == list(numpy_s)
    for name, value in mine.items():
        assert (value.dtype, value.shape) == (numpy_s[name].dtype, numpy_s[name].shape)
        assert value.tobytes() == numpy_s[name].tobytes() and value.flags.writeable


def test_npz_reader_reads_what_only_numpy_writes() -> None:
    import io

    buffer = io.BytesIO()  # a Fortran-ordered array and a structured dtype: not npz_bytes's own form
    np.savez(buffer, f=np.asfortranarray(np.arange(6.0).reshape(2, 3)), s=np.zeros(2, dtype=[("a", "<i2")]))
    arrays = load_npz_bytes(buffer.getvalue())
    assert np.array_equal(arrays["f"], np.arange(6.0).reshape(2, 3)) and arrays["s"].dtype.names == ("a",)


@pytest.mark.parametrize("offset", [40, 60, -30], ids=["npy_magic", "npy_header", "directory"])
def test_npz_reader_rejects_a_damaged_file_as_numpy_does(offset: int) -> None:
    data = bytearray(npz_bytes({"in.0.0": np.arange(64, dtype=np.int32)}))
    data[offset] ^= 0xFF
    with pytest.raises(Exception) as numpy_s:
        _numpy_reads(bytes(data))
    with pytest.raises(type(numpy_s.value)):
        load_npz_bytes(bytes(data))


def test_check_detects_tampering(manifest, tmp_path: Path) -> None:
    data = read_manifest_json(manifest.root)
    picked = [entry for entry in data["cases"] if entry["id"].startswith("elementwise.add.f32")][:2]
    for entry in picked:
        entry.pop("program", None)  # checked alone: each case as its own program
    files = read_all(manifest.root, [file["path"] for entry in picked for file in entry["files"].values()])
    data["cases"], data["programs"] = picked, []
    write_manifest_json(tmp_path, json.dumps(data))
    write_archives(tmp_path, files)
    assert check_corpus(tmp_path)[1] == []
    program_path = picked[0]["files"]["mlir"]["path"]
    files[program_path] = files[program_path].replace(b"stablehlo.add", b"stablehlo.subtract")
    del files[picked[1]["files"]["data"]["path"]]
    files["elementwise/stray.mlir"] = b"module {}"
    write_archives(tmp_path, files)
    problems = check_corpus(tmp_path)[1]
    assert any("sha256" in p and picked[0]["id"] in p for p in problems)
    assert any("missing" in p and picked[1]["id"] in p for p in problems)
    assert any("unreferenced" in p and "stray.mlir" in p for p in problems)


def test_a_file_is_read_only_as_its_manifest_records_it(manifest, tmp_path: Path) -> None:
    """Issue 53: a run judges by no corpus file that differs from the manifest; each read is checked (SHA-256)."""
    data = read_manifest_json(manifest.root)
    picked = [entry for entry in data["cases"] if entry["id"].startswith("elementwise.add.f32")][:2]
    for entry in picked:
        entry.pop("program", None)
    files = read_all(manifest.root, [file["path"] for entry in picked for file in entry["files"].values()])
    data["cases"], data["programs"] = picked, []
    write_manifest_json(tmp_path, json.dumps(data))
    program_path, data_path = picked[0]["files"]["mlir"]["path"], picked[0]["files"]["data"]["path"]
    arrays = load_npz_bytes(files[data_path])
    arrays = {name: array + 1 if name.startswith("out.") else array for name, array in arrays.items()}
    write_archives(tmp_path, {**files, program_path: files[program_path] + b"\n", data_path: npz_bytes(arrays)})
    altered, intact = load_manifest(tmp_path).cases
    with pytest.raises(MemberAltered, match=f"golden corpus file {program_path} has SHA-256 .*, its manifest records"):
        altered.program_text()
    with pytest.raises(MemberAltered, match=f"golden corpus file {data_path} has SHA-256"):
        altered.expected()
    assert intact.program_text() == files[intact.files["mlir"]["path"]].decode()
    assert len(intact.expected()) == len(intact.output_specs)


def test_grouped_programs_partition_the_single_device_cases(manifest) -> None:
    """Every case is compiled as exactly one program; a group's results are its cases' outputs, in order."""
    owners: dict[str, str] = {}
    for program in manifest.programs:
        for case in program.cases:
            assert case.id not in owners, f"{case.id} is in {owners[case.id]} and {program.id}"
            owners[case.id] = program.id
        if program.grouped:
            assert program.id not in manifest.by_id()
            assert not program.is_multi_device and all(case.program_id == program.id for case in program.cases)
            ranges = [program.output_range(case) for case in program.cases]
            assert ranges[0].start == 0 and ranges[-1].stop == len(program.output_specs)
            assert all(a.stop == b.start for a, b in zip(ranges, ranges[1:]))
    assert set(owners) == {case.id for case in manifest.cases}
    grouped = [program for program in manifest.programs if program.grouped]
    assert grouped and len(manifest.programs) < len(manifest.cases) / 4  # grouping is what keeps a run fast


def test_a_grouped_program_runs_to_its_cases_expected_outputs(manifest) -> None:
    """The program the suites compile computes each member case's stored expected outputs."""
    pytest.importorskip("lammps_jax_pjrt_cpu")
    from pjrt_cts.golden.compare import compare
    from pjrt_cts.runtime import Client, Plugin, default_plugin_path

    program = next(p for p in manifest.programs if p.grouped and p.family == "gather" and len(p.cases) > 3)
    with Client.create(Plugin.load(default_plugin_path()), {"cpu_device_count": 1}) as client:
        executable = client.compile(program.portable_bytecode("current"))
        device = client.addressable_devices[0]
        outputs = [out.to_numpy() for out in executable.execute(
            [client.buffer_from_numpy(np.asarray(a), device) for a in program.inputs()])]
    for case in program.cases:
        for got, want in zip([outputs[i] for i in program.output_range(case)], case.expected()):
            assert compare(got, want, case.tolerance) is None, case.id


def test_manifest_is_read_once_per_process_until_its_file_changes(tmp_path: Path) -> None:
    """Collection asks for the manifest from several places: one read serves them, a rewritten file is read anew."""
    shipped = load_manifest()
    assert load_manifest() is shipped
    copy = tmp_path / "corpus"
    copy.mkdir()
    data = read_manifest_json(shipped.root)
    data["cases"], data["programs"] = data["cases"][:1], []
    data["cases"][0].pop("program", None)
    write_manifest_json(copy, json.dumps(data))
    first = load_manifest(copy)
    assert load_manifest(copy) is first and len(first.cases) == 1
    data["cases"] = []
    write_manifest_json(copy, json.dumps(data))
    assert load_manifest(copy).cases == ()


def test_bundles_round_trip_deterministically_and_refuse_other_files(tmp_path: Path) -> None:
    from pjrt_cts.golden.archive import BundleError, archive_bytes, archive_members, read_member

    files = {"fam/a.mlir": b"module {}\n" * 20, "fam/b.npz": bytes(range(256)), "fam/c.current.mlirbc": b""}
    first = write_archives(tmp_path, files)
    assert [p.name for p in first] == ["fam.bundle"] and write_archives(tmp_path, dict(files)) == []  # unchanged
    assert archive_bytes({k.split("/")[1]: v for k, v in files.items()}) == (tmp_path / "fam.bundle").read_bytes()
    assert read_all(tmp_path, list(files)) == files
    assert archive_members(tmp_path) == {"fam.bundle": ["a.mlir", "b.npz", "c.current.mlirbc"]}
    with pytest.raises(KeyError):
        read_member(tmp_path, "fam/missing.mlir")
    (tmp_path / "other.bundle").write_bytes(b"PK\x03\x04 a zip, not a bundle")
    with pytest.raises(BundleError):
        read_member(tmp_path, "other/x.mlir")
