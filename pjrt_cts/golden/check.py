"""`pjrt-cts golden check`: the corpus files match the manifest (hashes, data layout, references, programs)."""
from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import numpy as np

from pjrt_cts.golden import dtypes, synth
from pjrt_cts.golden.archive import archive_members, read_member, split_path
from pjrt_cts.golden.corpus import BYTECODE_VERSIONS, CorpusError, GoldenCase, Manifest, load_manifest, xla_output_key
from pjrt_cts.golden.npzio import load_npz_bytes


def check_corpus(root: Path | str | None = None, *, verify_data: bool = True) -> tuple[Manifest | None, list[str]]:
    """The manifest and every problem found (empty list: the corpus is intact)."""
    try:
        manifest = load_manifest(root)
    except (CorpusError, ValueError, KeyError) as exc:
        return None, [str(exc)]
    problems: list[str] = []
    seen: set[str] = set()
    referenced: set[tuple[str, str]] = set()

    def check_files(owner: str, files: dict[str, dict]) -> None:
        for entry in files.values():
            try:
                referenced.add(split_path(entry["path"]))
                data = read_member(manifest.root, entry["path"])
            except (KeyError, OSError, ValueError, zipfile.BadZipFile) as exc:
                problems.append(f"{owner}: missing {entry['path']} ({type(exc).__name__})")
                continue
            digest = hashlib.sha256(data).hexdigest()
            if digest != entry["sha256"]:
                problems.append(f"{owner}: {entry['path']} sha256 {digest[:12]}... != manifest {entry['sha256'][:12]}...")

    def check_bytecode(owner: str, files: dict, skipped: dict) -> None:
        if "mlir" not in files or "mlirbc.current" not in files:
            problems.append(f"{owner}: needs the program text and the current-version bytecode")
        for label in BYTECODE_VERSIONS:
            if (f"mlirbc.{label}" in files) == (label in skipped):
                problems.append(f"{owner}: bytecode {label} must be either present or listed as skipped")

    for case in manifest.cases:
        if case.id in seen:
            problems.append(f"{case.id}: duplicate case id")
        seen.add(case.id)
        check_bytecode(case.id, case.files, case.bytecode_skipped)
        check_files(case.id, case.files)
        for spec in case.input_specs + case.output_specs:
            if spec["dtype"] not in dtypes.DTYPES:
                problems.append(f"{case.id}: unknown dtype {spec['dtype']}")
        if case.large is not None:
            if case.large.get("reference") not in synth.REFERENCES:
                problems.append(f"{case.id}: unknown numpy reference {case.large.get('reference')!r}")
        elif "data" not in case.files:
            problems.append(f"{case.id}: no data file and not a synthesized case")
        elif verify_data:
            problems.extend(_check_data(case))
            if case.spec is not None:
                problems.extend(check_spec_reference(case, manifest))
                problems.extend(check_xla_outputs(case))
    for program in manifest.programs:
        if not program.grouped:
            continue
        if program.id in seen:
            problems.append(f"program {program.id}: has a case's id")
        seen.add(program.id)
        check_bytecode(f"program {program.id}", program.files, program.bytecode_skipped)
        check_files(f"program {program.id}", program.files)
        for case in program.cases:
            if case.program_id != program.id:
                problems.append(f"program {program.id}: lists {case.id}, which names program {case.program_id!r}")
            if case.is_multi_device or case.large is not None or case.donation or case.layouts:
                problems.append(f"program {program.id}: {case.id} is multi-device, large, donating or fixes layouts")
    for archive, members in archive_members(manifest.root).items():
        for member in members:
            if (archive, member) not in referenced:
                problems.append(f"unreferenced file {archive}:{member}")
    return manifest, problems


def _check_data(case: GoldenCase) -> list[str]:
    problems = []
    try:
        arrays = load_npz_bytes(case.read_bytes("data"))
    except (KeyError, OSError, ValueError, zipfile.BadZipFile) as exc:
        return [f"{case.id}: data unreadable: {type(exc).__name__}: {exc}"]
    expected_keys = {f"in.{d}.{i}" for d in range(case.num_devices) for i in range(len(case.input_specs))}
    expected_keys |= {f"out.{d}.{i}" for d in range(case.num_devices) for i in range(len(case.output_specs))}
    expected_keys |= {xla_output_key(i) for i in range(int((case.spec_vs_xla or {}).get("xla_outputs") or 0))}
    if set(arrays) != expected_keys:
        return [f"{case.id}: data arrays {sorted(arrays)} != expected {sorted(expected_keys)}"]
    for d in range(case.num_devices):
        for prefix, specs in (("in", case.input_specs), ("out", case.output_specs)):
            for i, spec in enumerate(specs):
                array = arrays[f"{prefix}.{d}.{i}"]
                try:
                    decoded = dtypes.from_storable(array, spec["dtype"])
                except ValueError as exc:
                    problems.append(f"{case.id}: {prefix}.{d}.{i}: {exc}")
                    continue
                if list(decoded.shape) != list(spec["shape"]):
                    problems.append(f"{case.id}: {prefix}.{d}.{i} shape {list(decoded.shape)} != manifest {spec['shape']}")
    return problems


def check_spec_reference(case: GoldenCase, manifest: Manifest | None = None) -> list[str]:
    """A spec-derived case's stored outputs are what the spec reference computes from its stored inputs:
    bit for bit where the spec defines every bit (`spec.exact`), else within the case's tolerance (the
    reference's transcendental functions come from the host's libm). A constant-operand variant's operands are
    its argument-form case's inputs (`spec.operands_of`, in `manifest`), each written in its program's text."""
    from pjrt_cts.golden.compare import compare
    from pjrt_cts.golden.spec import registry

    spec = case.spec or {}
    try:
        if spec.get("operands_of"):
            if manifest is None:
                return [f"{case.id}: its operands are {spec['operands_of']}'s inputs: needs the manifest"]
            inputs = manifest.case(spec["operands_of"]).input_rows()[0]
            missing = constant_operands_missing(case, inputs)
            if missing:
                return missing
        else:
            inputs = case.input_rows()[0]  # spec cases are single-device
        results = [registry.TensorType.from_json(r) for r in spec["results"]]
        with np.errstate(all="ignore"):
            computed = registry.evaluate(spec["op"], inputs, case.attributes, results)
    except Exception as exc:  # noqa: BLE001 - any failure of the reference is a problem to report, not a crash
        return [f"{case.id}: the spec reference fails: {type(exc).__name__}: {exc}"]
    problems = []
    for index, (stored, recomputed) in enumerate(zip(case.expected_rows()[0], computed)):
        stored = np.asarray(stored)
        if spec.get("exact"):
            if stored.dtype != recomputed.dtype or stored.tobytes() != recomputed.tobytes():
                problems.append(f"{case.id}: output {index} differs from the spec reference bit for bit")
        else:
            mismatch = compare(recomputed, stored, case.tolerance)
            if mismatch is not None:
                problems.append(f"{case.id}: output {index} differs from the spec reference: {mismatch}")
    return problems


def check_xla_outputs(case: GoldenCase) -> list[str]:
    """A spec case XLA computes differently (`spec_vs_xla` kind wrong_result) stores XLA's outputs, and they are
    not the spec's within the case's tolerance (else there is no deviation to share); no other case stores any."""
    from pjrt_cts.golden.compare import compare

    deviation = case.spec_vs_xla or {}
    wrong_result = deviation.get("kind") == "wrong_result"
    if not wrong_result:
        return [f"{case.id}: stores XLA's outputs but XLA's difference is {deviation.get('kind')!r}, "
                "not wrong_result"] if "xla_outputs" in deviation else []
    try:
        xla = case.xla_expected()
    except (KeyError, OSError, ValueError, zipfile.BadZipFile) as exc:
        return [f"{case.id}: XLA's outputs unreadable: {type(exc).__name__}: {exc}"]
    if xla is None:
        return [f"{case.id}: XLA computes another value (wrong_result) but its outputs are not stored"]
    expected = case.expected_rows()[0]
    if len(xla) != len(expected):
        return []  # another number of results is a deviation in itself
    named = deviation.get("output")
    indices = [int(named)] if named is not None else range(len(expected))
    if all(compare(xla[i], expected[i], case.tolerance) is None for i in indices):
        which = f"output {named}" if named is not None else "every output"
        return [f"{case.id}: XLA's stored {which} equals the spec's within {case.tolerance}: not a wrong_result"]
    return []


def constant_operands_missing(case: GoldenCase, operands: list[np.ndarray]) -> list[str]:
    """Each operand of a constant-operand variant, as its dense literal, in the variant's program text."""
    from pjrt_cts.golden.spec.constants import dense_literal

    text = case.program_text()
    form = (case.spec or {}).get("constant_operands", "decimal")
    return [f"{case.id}: operand {index} is not a constant of its program text"
            for index, array in enumerate(operands)
            if f"stablehlo.constant {dense_literal(np.asarray(array), dtypes.name_of(np.asarray(array).dtype), form)}"
            not in text]
