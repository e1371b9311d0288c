"""`pjrt-cts golden check`: the corpus files match the manifest (hashes, data layout, references)."""
from __future__ import annotations

import hashlib
from pathlib import Path

from pjrt_cts.golden import dtypes, synth
from pjrt_cts.golden.corpus import BYTECODE_VERSIONS, CorpusError, Manifest, load_manifest
from pjrt_cts.golden.npzio import load_npz

DATA_SUFFIXES = (".mlir", ".mlirbc", ".npz")


def check_corpus(root: Path | str | None = None, *, verify_data: bool = True) -> tuple[Manifest | None, list[str]]:
    """The manifest and every problem found (empty list: the corpus is intact)."""
    try:
        manifest = load_manifest(root)
    except (CorpusError, ValueError, KeyError) as exc:
        return None, [str(exc)]
    problems: list[str] = []
    seen: set[str] = set()
    referenced: set[Path] = set()
    for case in manifest.cases:
        if case.id in seen:
            problems.append(f"{case.id}: duplicate case id")
        seen.add(case.id)
        if "mlir" not in case.files or "mlirbc.current" not in case.files:
            problems.append(f"{case.id}: needs the program text and the current-version bytecode")
        for label in BYTECODE_VERSIONS:
            if (f"mlirbc.{label}" in case.files) == (label in case.bytecode_skipped):
                problems.append(f"{case.id}: bytecode {label} must be either present or listed as skipped")
        for kind, entry in case.files.items():
            path = manifest.root / entry["path"]
            referenced.add(path.resolve())
            if not path.is_file():
                problems.append(f"{case.id}: missing {entry['path']}")
                continue
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            if digest != entry["sha256"]:
                problems.append(f"{case.id}: {entry['path']} sha256 {digest[:12]}... != manifest {entry['sha256'][:12]}...")
        for spec in case.input_specs + case.output_specs:
            if spec["dtype"] not in dtypes.DTYPES:
                problems.append(f"{case.id}: unknown dtype {spec['dtype']}")
        if case.large is not None:
            if case.large.get("reference") not in synth.REFERENCES:
                problems.append(f"{case.id}: unknown numpy reference {case.large.get('reference')!r}")
        elif "data" not in case.files:
            problems.append(f"{case.id}: no data file and not a synthesized case")
        elif verify_data and (manifest.root / case.files["data"]["path"]).is_file():
            problems.extend(_check_data(case))
    for path in sorted(manifest.root.rglob("*")):
        if path.is_file() and path.suffix in DATA_SUFFIXES and path.resolve() not in referenced:
            problems.append(f"unreferenced file {path.relative_to(manifest.root)}")
    return manifest, problems


def _check_data(case) -> list[str]:
    problems = []
    arrays = load_npz(case.path("data"))
    expected_keys = {f"in.{d}.{i}" for d in range(case.num_devices) for i in range(len(case.input_specs))}
    expected_keys |= {f"out.{d}.{i}" for d in range(case.num_devices) for i in range(len(case.output_specs))}
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
