"""`pjrt-cts aot check` (pjrt_cts.testing.aot_artifacts): a directory of serialized executables is loaded, run on the
golden inputs and compared with the references, one line per program. The bundled CPU plugin creates no topology, so
the executables here are its client's (serialized the way `aot export` writes them): the check's side is the same."""
from __future__ import annotations

from pathlib import Path

import pytest

from pjrt_cts.runtime import Plugin
from pjrt_cts.testing import aot_artifacts
from pjrt_cts.testing.corpus import framework_artifact_version, golden_input, one_program_per_family

# The first two of the default sample (the cheapest program of a family each).
PROGRAMS = tuple(program.id for program in one_program_per_family()[:2])


def _export(plugin: Plugin, directory: Path, ids: tuple[str, ...] = PROGRAMS) -> None:
    programs = {program.id: program for program in one_program_per_family()}
    entries = []
    with plugin.create_client({"cpu_device_count": 1}) as client:
        for program_id in ids:
            program = programs[program_id]
            version = framework_artifact_version(plugin, program)
            code, _ = golden_input(plugin, program, version)
            with client.compile(code) as executable:
                entry = aot_artifacts.write_executable(directory, program, version, executable, 1 << 30)
            assert entry is not None
            entries.append(entry)
    aot_artifacts.write_manifest(directory, plugin, {"label": "the client's"}, entries, [])


def test_check_passes_executables_that_match_their_references(plugin_0115: Plugin, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    _export(plugin_0115, tmp_path)
    assert aot_artifacts.check(plugin_0115, {"cpu_device_count": 1}, tmp_path) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0].split() for line in lines[:2]] == [["PASS", program] for program in PROGRAMS]
    assert lines[-1].startswith("aot check: 2 of 2 programs")


def test_check_fails_an_altered_file_and_a_program_that_is_not_the_manifests(plugin_0115: Plugin, tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    _export(plugin_0115, tmp_path)
    add, reduce = (tmp_path / f"{program}.pjrt" for program in PROGRAMS)
    data = add.read_bytes()
    add.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # altered after export: the SHA-256 says so
    assert aot_artifacts.check(plugin_0115, {"cpu_device_count": 1}, tmp_path) == 1
    assert capsys.readouterr().out.splitlines()[0] == f"ERROR {PROGRAMS[0]}: file altered (SHA-256)"
    # The reduce executable under the add program's entry: it loads and runs, and its outputs are not add's.
    _export(plugin_0115, tmp_path)
    manifest = (tmp_path / aot_artifacts.MANIFEST).read_text(encoding="utf-8")
    reduce_sha = aot_artifacts.hashlib.sha256(reduce.read_bytes()).hexdigest()
    add_sha = aot_artifacts.hashlib.sha256(add.read_bytes()).hexdigest()
    add.write_bytes(reduce.read_bytes())
    (tmp_path / aot_artifacts.MANIFEST).write_text(manifest.replace(add_sha, reduce_sha), encoding="utf-8")
    assert aot_artifacts.check(plugin_0115, {"cpu_device_count": 1}, tmp_path) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"FAIL  {PROGRAMS[0]}"), first


def test_a_failing_programs_line_names_the_catalogues_defect_or_unclassified() -> None:
    cudnn = "PJRT_Buffer_ToHostBuffer event: UNKNOWN: CUDNN_STATUS_BAD_PARAM"
    conv = aot_artifacts.Outcome("conv.pack_common_0", "FAIL", cudnn).named()
    assert conv.line() == f"FAIL  conv.pack_common_0: {cudnn} [defect: deviceless-conv-executable-fails-at-run]"
    assert aot_artifacts.Outcome("dot.pack_common_0", "FAIL", cudnn).named().defect == "unclassified"
    passed = aot_artifacts.Outcome("conv.pack_common_0", "PASS", "128 case(s)")
    assert passed.named() == passed and passed.line() == "PASS  conv.pack_common_0: 128 case(s)"
