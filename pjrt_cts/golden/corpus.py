"""Reading the golden corpus: `load_manifest()` and `GoldenCase`."""
from __future__ import annotations

import dataclasses
import functools
import gzip
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from pjrt_cts.golden import dtypes, synth
from pjrt_cts.golden.archive import read_member
from pjrt_cts.golden.npzio import load_npz_bytes
from pjrt_cts.golden.tolerance import Tolerance

# gzip-compressed JSON (one entry per line): a sixth of its text's size (docs/bench.md), and the corpus ships in
# the wheel
MANIFEST_NAME = "manifest.json.gz"
FORMAT_VERSION = 3  # 2: files in per-family archives; grouped programs. 3: gzip manifest; packed programs
BYTECODE_VERSIONS = ("current", "intermediate", "minimum")


def xla_output_key(index: int) -> str:
    """Data-file key of XLA's output `index` for a spec case XLA computes differently (single-device: row 0)."""
    return f"xla.0.{index}"


def default_corpus_dir() -> Path:
    from pjrt_cts.resources import golden_dir

    return golden_dir()


def read_manifest_json(root: Path) -> dict[str, Any]:
    """The manifest under `root` as JSON (no validation: `load_manifest` reads it into cases and programs)."""
    return json.loads(gzip.decompress((Path(root) / MANIFEST_NAME).read_bytes()).decode("utf-8"))


def write_manifest_json(root: Path, text: str) -> None:
    """Write the manifest's text gzip-compressed, byte for byte the same for the same text (no name, no time)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as stream:
        stream.write(text.encode("utf-8"))
    (Path(root) / MANIFEST_NAME).write_bytes(buffer.getvalue())


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class CorpusError(Exception):
    """The corpus on disk does not match its manifest."""


class _ProgramFiles:
    """The program files of a case or a grouped program: text and versioned portable artifacts."""

    id: str
    root: Path
    files: dict[str, dict]
    bytecode_versions: dict[str, str | None]
    bytecode_skipped: dict[str, str]

    def read_bytes(self, kind: str) -> bytes:
        """The bytes of file `kind` ("mlir", "mlirbc.current", ..., "data"), checked against the manifest's SHA-256
        (archive.MemberAltered)."""
        entry = self.files[kind]
        return read_member(self.root, entry["path"], entry["sha256"])

    def program_text(self) -> str:
        return self.read_bytes("mlir").decode("utf-8")

    def portable_bytecode(self, version: str = "current") -> bytes:
        """Versioned StableHLO portable artifact at `version` ("current"|"intermediate"|"minimum")."""
        if version not in BYTECODE_VERSIONS:
            raise ValueError(f"version must be one of {BYTECODE_VERSIONS}, not {version!r}")
        kind = f"mlirbc.{version}"
        if kind not in self.files:
            reason = self.bytecode_skipped.get(version, "not generated")
            raise LookupError(f"{self.id}: no portable artifact at the {version} version: {reason}")
        return self.read_bytes(kind)

    def stablehlo_version(self, version: str = "current") -> str | None:
        return self.bytecode_versions.get(version)


@dataclasses.dataclass(frozen=True)
class GoldenCase(_ProgramFiles):
    id: str
    family: str
    ops: tuple[str, ...]
    dtypes: tuple[str, ...]
    input_specs: tuple[dict, ...]  # per argument of the program: {"shape", "dtype"} (per-device shapes)
    output_specs: tuple[dict, ...]
    tolerance: Tolerance
    features: tuple[str, ...]
    num_replicas: int
    num_partitions: int
    use_spmd_partitioning: bool
    donation: dict | None  # {"kind": "tf.aliasing_output"|"jax.buffer_donor", "args": [...], "aliases": {...}}
    numpy_reference: str | None
    bytecode_versions: dict[str, str | None]  # version label -> StableHLO version or None (not serializable)
    bytecode_skipped: dict[str, str]  # version label -> reason
    files: dict[str, dict]  # kind -> {"path": logical path family/member (see archive.py), "sha256": hex}
    large: dict | None  # {"seed": int, "reference": name} for run-time synthesized cases
    layouts: dict | None  # {"inputs": [minor_to_major | None], "outputs": [...]} when the program fixes layouts
    root: Path
    program_id: str | None = None  # the grouped program this case is one part of (None: its own program)
    attributes: dict = dataclasses.field(compare=False, default_factory=dict)  # the main op's attribute settings
    raw: dict = dataclasses.field(repr=False, compare=False, default_factory=dict)

    @classmethod
    def from_json(cls, entry: dict[str, Any], root: Path) -> "GoldenCase":
        return cls(
            id=entry["id"], family=entry["family"], ops=tuple(entry["ops"]), dtypes=tuple(entry["dtypes"]),
            input_specs=tuple(entry["inputs"]), output_specs=tuple(entry["outputs"]),
            tolerance=Tolerance.from_json(entry["tolerance"]), features=tuple(entry["features"]),
            num_replicas=int(entry["num_replicas"]), num_partitions=int(entry["num_partitions"]),
            use_spmd_partitioning=bool(entry["use_spmd_partitioning"]), donation=entry.get("donation"),
            numpy_reference=entry.get("numpy_reference"), bytecode_versions=dict(entry["bytecode_versions"]),
            bytecode_skipped=dict(entry.get("bytecode_skipped", {})), files=dict(entry["files"]),
            large=entry.get("large"), layouts=entry.get("layouts"), root=root, program_id=entry.get("program"),
            attributes=dict(entry.get("attributes") or {}), raw=entry,
        )

    @property
    def expected_source(self) -> str:
        """Where the expected outputs come from: "xla" (JAX on CPU, numpy-checked), "spec+xla" (the spec
        reference and XLA agree) or "spec" (the spec reference; XLA differs: `spec_vs_xla`)."""
        return str(self.raw.get("expected_source", "xla"))

    @property
    def spec_vs_xla(self) -> dict | None:
        """How XLA differs from the spec on this case ({"kind", "explanation", "spec", "section"}; a wrong_result
        also has "output", and "xla_outputs" (how many of XLA's outputs the data file holds) and "xla_dtypes"
        (their element types): `xla_expected()`), or None."""
        return self.raw.get("spec_vs_xla")

    @property
    def spec(self) -> dict | None:
        """The spec reference's description of a spec-derived case ({"op", "section", "exact", "results",
        "rule"}; its attributes are `attributes`), or None for an XLA-derived case."""
        return self.raw.get("spec")

    @property
    def input_shapes(self) -> list[tuple[int, ...]]:
        return [tuple(spec["shape"]) for spec in self.input_specs]

    @property
    def output_shapes(self) -> list[tuple[int, ...]]:
        return [tuple(spec["shape"]) for spec in self.output_specs]

    @property
    def num_devices(self) -> int:
        return self.num_replicas * self.num_partitions

    @property
    def is_multi_device(self) -> bool:
        return self.num_devices > 1


    # --- data -------------------------------------------------------------------------------------

    def _rows(self) -> tuple[list[list[np.ndarray]], list[list[np.ndarray]]]:
        return _load_rows(self)

    def input_rows(self) -> list[list[np.ndarray]]:
        """Arguments per device (one row per device; single-device cases have one row)."""
        return self._rows()[0]

    def expected_rows(self) -> list[list[np.ndarray]]:
        return self._rows()[1]

    def inputs(self) -> list[np.ndarray] | list[list[np.ndarray]]:
        """The arguments; for multi-device cases, one row of arguments per device."""
        rows = self.input_rows()
        return rows if self.is_multi_device else rows[0]

    def expected(self) -> list[np.ndarray] | list[list[np.ndarray]]:
        """The expected results; for multi-device cases, one row of results per device."""
        rows = self.expected_rows()
        return rows if self.is_multi_device else rows[0]

    def xla_expected(self) -> list[np.ndarray] | None:
        """XLA's outputs where it computes a value other than the spec's (`spec_vs_xla` kind wrong_result), as
        JAX's CPU backend returned them at generation (element types and shapes may differ from `output_specs`);
        None for every other case. A plugin returning these shares XLA's deviation."""
        deviation = self.spec_vs_xla or {}
        if "xla_outputs" not in deviation:
            return None
        names = tuple(deviation["xla_dtypes"])
        if len(names) != int(deviation["xla_outputs"]):
            raise ValueError(f"{self.id}: spec_vs_xla lists {len(names)} XLA element types for "
                             f"{deviation['xla_outputs']} outputs")
        data = self.files["data"]
        return list(_load_xla_cached(str(self.root), data["path"], data["sha256"], names))

    def to_json(self) -> dict[str, Any]:
        return dict(self.raw)


# Room for two packs of the largest size (128 cases): a pack's cases are read for its program's arguments, then each
# case again for its own test's expected values; a smaller cache read every npz twice.
@functools.lru_cache(maxsize=256)
def _load_rows_cached(root: str, data_path: str, data_sha256: str, input_dtypes: tuple[str, ...],
                      output_dtypes: tuple[str, ...], devices: int) -> tuple:
    arrays = load_npz_bytes(read_member(root, data_path, data_sha256))
    return _read_only(_split_rows(arrays, input_dtypes, output_dtypes, devices))


@functools.lru_cache(maxsize=64)
def _load_xla_cached(root: str, data_path: str, data_sha256: str, names: tuple[str, ...]) -> tuple[np.ndarray, ...]:
    arrays = load_npz_bytes(read_member(root, data_path, data_sha256))
    outputs = [dtypes.from_storable(arrays[xla_output_key(i)], name) for i, name in enumerate(names)]
    _read_only(([outputs],))
    return tuple(outputs)


@functools.lru_cache(maxsize=1)  # one large case at a time: its arrays are >= 64 MiB each
def _synthesize_rows_cached(case_id: str, seed: int, reference: str, specs_json: str) -> tuple:
    inputs = synth.synthesize_inputs(seed, json.loads(specs_json))
    return _read_only(([inputs], [synth.reference_outputs(reference, inputs)]))


def _read_only(rows: tuple) -> tuple:
    """Cached arrays are shared between callers: make accidental in-place edits fail loudly."""
    for group in rows:
        for row in group:
            for array in row:
                array.setflags(write=False)
    return rows


def _split_rows(arrays: dict[str, np.ndarray], input_dtypes: tuple[str, ...], output_dtypes: tuple[str, ...],
                devices: int) -> tuple:
    inputs = [[dtypes.from_storable(arrays[f"in.{d}.{i}"], name) for i, name in enumerate(input_dtypes)]
              for d in range(devices)]
    outputs = [[dtypes.from_storable(arrays[f"out.{d}.{i}"], name) for i, name in enumerate(output_dtypes)]
               for d in range(devices)]
    return inputs, outputs


def _load_rows(case: GoldenCase) -> tuple[list[list[np.ndarray]], list[list[np.ndarray]]]:
    if case.large is not None:
        inputs, outputs = _synthesize_rows_cached(case.id, int(case.large["seed"]), case.large["reference"],
                                                  json.dumps(list(case.input_specs)))
    else:
        data = case.files["data"]
        inputs, outputs = _load_rows_cached(str(case.root), data["path"], data["sha256"],
                                            tuple(spec["dtype"] for spec in case.input_specs),
                                            tuple(spec["dtype"] for spec in case.output_specs), case.num_devices)
    return [list(row) for row in inputs], [list(row) for row in outputs]


@dataclasses.dataclass(frozen=True)
class GoldenProgram(_ProgramFiles):
    """What a plugin compiles: one case's own program, or a group's program whose arguments and results are
    its cases' arguments and results, in the cases' order (one compile for a whole attribute family)."""

    id: str
    family: str
    cases: tuple[GoldenCase, ...]
    ops: tuple[str, ...]
    files: dict[str, dict]  # "mlir", "mlirbc.<version>" -> {"path", "sha256"}
    bytecode_versions: dict[str, str | None]
    bytecode_skipped: dict[str, str]
    root: Path
    grouped: bool

    @classmethod
    def of_case(cls, case: GoldenCase) -> "GoldenProgram":
        return cls(id=case.id, family=case.family, cases=(case,), ops=case.ops,
                   files={kind: entry for kind, entry in case.files.items() if kind != "data"},
                   bytecode_versions=case.bytecode_versions, bytecode_skipped=case.bytecode_skipped,
                   root=case.root, grouped=False)

    @classmethod
    def from_json(cls, entry: dict[str, Any], cases: tuple[GoldenCase, ...], root: Path) -> "GoldenProgram":
        return cls(id=entry["id"], family=entry["family"], cases=cases, ops=tuple(entry["ops"]),
                   files=dict(entry["files"]), bytecode_versions=dict(entry["bytecode_versions"]),
                   bytecode_skipped=dict(entry.get("bytecode_skipped", {})), root=root, grouped=True)

    @property
    def dtypes(self) -> tuple[str, ...]:
        return tuple(sorted({name for case in self.cases for name in case.dtypes}))

    @property
    def features(self) -> tuple[str, ...]:
        return tuple(sorted({feature for case in self.cases for feature in case.features}))

    @property
    def input_specs(self) -> tuple[dict, ...]:
        return tuple(spec for case in self.cases for spec in case.input_specs)

    @property
    def output_specs(self) -> tuple[dict, ...]:
        return tuple(spec for case in self.cases for spec in case.output_specs)

    @property
    def is_multi_device(self) -> bool:
        return any(case.is_multi_device for case in self.cases)

    def inputs(self) -> list[np.ndarray]:
        """The program's arguments: every case's inputs, in order (single-device programs)."""
        return [array for case in self.cases for array in case.input_rows()[0]]

    def output_range(self, case: GoldenCase) -> range:
        """The program results that are `case`'s outputs."""
        start = 0
        for member in self.cases:
            if member.id == case.id:
                return range(start, start + len(member.output_specs))
            start += len(member.output_specs)
        raise KeyError(f"{case.id} is not part of program {self.id}")


@dataclasses.dataclass(frozen=True)
class Manifest:
    root: Path
    format_version: int
    stablehlo_versions: dict[str, str]
    generator: dict[str, Any]
    cases: tuple[GoldenCase, ...]
    programs: tuple[GoldenProgram, ...] = ()  # every case's program: its group's, or its own

    def program_of(self, case: GoldenCase) -> GoldenProgram:
        return self._program_index[case.id]

    @functools.cached_property
    def _program_index(self) -> dict[str, GoldenProgram]:
        return {case.id: program for program in self.programs for case in program.cases}

    def by_id(self) -> dict[str, GoldenCase]:
        return {case.id: case for case in self.cases}

    def case(self, case_id: str) -> GoldenCase:
        try:
            return self.by_id()[case_id]
        except KeyError:
            raise KeyError(f"no golden case {case_id!r}") from None

    def ops(self) -> list[str]:
        return sorted({op for case in self.cases for op in case.ops})

    def dtype_names(self) -> list[str]:
        return sorted({name for case in self.cases for name in case.dtypes})


# Manifests already read in this process, by (file, inode, mtime, size): collection reads the shipped one from two places
# (the golden suites and the fuzz/versioning seeds), and reading it is slow (docs/bench.md); a rewritten file is read
# again.
_loaded: dict[tuple[str, int, int, int], "Manifest"] = {}


def load_manifest(root: Path | str | None = None) -> Manifest:
    """The corpus manifest under `root` (default: the shipped golden/ tree)."""
    root = Path(root) if root is not None else default_corpus_dir()
    path = root / MANIFEST_NAME
    if not path.is_file():
        raise CorpusError(f"no {MANIFEST_NAME} in {root} (run `pjrt-cts golden regenerate`)")
    stat = path.stat()
    key = (str(path), stat.st_ino, stat.st_mtime_ns, stat.st_size)
    if key not in _loaded:
        if len(_loaded) >= 4:
            _loaded.clear()
        _loaded[key] = _read_manifest(root, path)
    return _loaded[key]


def _read_manifest(root: Path, path: Path) -> Manifest:
    data = read_manifest_json(root)
    if data.get("format_version") != FORMAT_VERSION:
        raise CorpusError(f"{path}: format_version {data.get('format_version')!r}, this reader needs {FORMAT_VERSION}")
    cases = tuple(GoldenCase.from_json(entry, root) for entry in data["cases"])
    by_id = {case.id: case for case in cases}
    grouped = {entry["id"]: GoldenProgram.from_json(entry, tuple(by_id[i] for i in entry["cases"]), root)
               for entry in data.get("programs", [])}
    programs: list[GoldenProgram] = []
    for case in cases:
        if case.program_id is None:
            programs.append(GoldenProgram.of_case(case))
        elif case.program_id in grouped and grouped[case.program_id].cases[0].id == case.id:
            programs.append(grouped[case.program_id])
        elif case.program_id not in grouped:
            raise CorpusError(f"{path}: case {case.id} names program {case.program_id!r}, which is not in the manifest")
    return Manifest(root=root, format_version=data["format_version"], stablehlo_versions=data["stablehlo_versions"],
                    generator=data.get("generator", {}), cases=cases, programs=tuple(programs))
