"""`pjrt-cts golden extract CASE DIR`: one golden case as plain files, for a vendor's own tools.

The corpus keeps a case inside its family's bundle (archive.py), its arrays in an `.npz` with the narrow types as
raw bits; a compiler engineer reproducing a failure wants the program as a file and each array as a `.npy` that
numpy loads alone. What is written (`case.json` lists it, README.md says it in words):

    program.mlir                 the case's own StableHLO program (one public @main), as the suites compile it
    program.<version>.mlirbc     its portable artifacts (current, intermediate, minimum), those the case ships
    input.<device>.<index>.npy   argument <index> of @main on device <device> (0 for a single-device case)
    expected.<device>.<index>.npy  result <index> the case expects there, within `tolerance`

Element types numpy cannot name (bf16, fp8, fp4/fp6, 2-/4-bit integers) are written as their raw bits, unsigned
integers of the same width (`stored_as`); `numpy.load(f).view(ml_dtypes.<name>)` gives the values back.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.corpus import BYTECODE_VERSIONS, GoldenCase
from pjrt_cts.golden.tolerance import Tolerance

CASE_FILE = "case.json"


def extract_case(case: GoldenCase, directory: Path) -> dict[str, Any]:
    """Write `case` into `directory` (created; files of the same names are replaced) and return what case.json says."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "program.mlir").write_text(case.program_text(), encoding="utf-8")
    artifacts = {}
    for version in BYTECODE_VERSIONS:
        if f"mlirbc.{version}" in case.files:
            name = f"program.{version}.mlirbc"
            (directory / name).write_bytes(case.portable_bytecode(version))
            artifacts[version] = {"file": name, "stablehlo_version": case.stablehlo_version(version)}
    described: dict[str, Any] = {
        "case": case.id,
        "program": "program.mlir",
        "portable_artifacts": artifacts,
        "ops": list(case.ops),
        "num_replicas": case.num_replicas,
        "num_partitions": case.num_partitions,
        "inputs": _write_rows(directory, "input", case.input_rows(), case.input_specs),
        "expected": _write_rows(directory, "expected", case.expected_rows(), case.output_specs),
        "tolerance": case.tolerance.to_json(),
        "expected_source": case.expected_source,
        "spec_vs_xla": case.spec_vs_xla,
    }
    (directory / CASE_FILE).write_text(json.dumps(described, indent=1) + "\n", encoding="utf-8")
    (directory / "README.md").write_text(_readme(described), encoding="utf-8")
    return described


def _write_rows(directory: Path, stem: str, rows: list[list[np.ndarray]], specs: tuple[dict, ...]) -> list[dict]:
    written = []
    for device, row in enumerate(rows):
        for index, (array, spec) in enumerate(zip(row, specs)):
            name = f"{stem}.{device}.{index}.npy"
            stored = dtypes.to_storable(array)
            np.save(directory / name, stored, allow_pickle=False)
            entry = {"file": name, "device": device, "index": index, "element_type": spec["dtype"],
                     "shape": list(array.shape)}
            if dtypes.is_stored_as_bits(spec["dtype"]):
                entry["stored_as"] = f"raw bits ({stored.dtype.name}): .view(ml_dtypes.{dtypes.dtype_of(spec['dtype'])})"
            written.append(entry)
    return written


def _readme(described: dict[str, Any]) -> str:
    lines = [f"# Golden case {described['case']}", "",
             "Written by `pjrt-cts golden extract` (pjrt_cts/golden/extract.py); `case.json` says the same.", "",
             f"- `{described['program']}`: the StableHLO program (text), ops {', '.join(described['ops'])}, "
             f"{described['num_replicas']} replica(s) x {described['num_partitions']} partition(s)"]
    for version, artifact in described["portable_artifacts"].items():
        lines.append(f"- `{artifact['file']}`: portable artifact at the {version} version "
                     f"(StableHLO {artifact['stablehlo_version']})")
    for role, entries in (("argument", described["inputs"]), ("expected result", described["expected"])):
        for entry in entries:
            stored = f"; {entry['stored_as']}" if "stored_as" in entry else ""
            lines.append(f"- `{entry['file']}`: {role} {entry['index']} on device {entry['device']}, "
                         f"{entry['element_type']}{entry['shape']}{stored}")
    lines += ["", f"Results match within the tolerance {Tolerance.from_json(described['tolerance'])} "
              f"(expected values from: {described['expected_source']}).", ""]
    return "\n".join(lines)
