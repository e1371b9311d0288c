"""What a run's records belong to: one plugin binary judged by one pjrt-cts, under one environment and settings.

The binding holds every fact a record's outcome rests on besides what the plugin did:

- the plugin: its binary's SHA-256, the profile, the client create options, the expectations file;
- the judge: the SHA-256 of every file of the pjrt-cts that judged the records (`judge_files`: its package — code,
  defect catalogue, mandatory lists, proxy and native C sources —, the suites, the golden corpus's files and the
  profiles; `judge_sha256` over them all), its version, and the digests of the suites' code and of the golden
  manifest that bindings have always held;
- the conditions: the plugin's environment (`plugin_environment`, see `plugin_environment`) and the user's
  settings that change outcomes (`user_settings`: the fuzz seed, the node count, the KV backend, the per-test
  timeout). The worker count is not one: each test runs alone in its worker, under its own timeout, so how many run
  side by side changes when they end, not how; shards on machines of different sizes, or a run resumed on a
  quieter machine, stay one run.

`pjrt-cts run --resume` continues a run only when every fact here is the same as the recorded run's (a rebuilt
plugin at the same path is another plugin), `pjrt-cts merge` joins only shards that agree on them, and
`pjrt-cts verify` holds a claim's judge to this installation's; each names what differs, down to the file
(`judging code: pjrt_cts/golden/compare.py differs`). The binding is written to out/.run/run.json and to
results.json (`binding`). One written before the judge and the conditions were bound lacks them: it loads, and
every comparison says that its records cannot be bound to their judge (docs/bundles.md).
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from pjrt_cts.runner.probe import file_sha256
from pjrt_cts.schema import TopologySpec

# Fact -> how a refusal names it.
_NAMES = {
    "plugin_sha256": "plugin binary (SHA-256)",
    "profile": "profile",
    "create_options": "client create options",
    "expectations_sha256": "expectations file (SHA-256)",
    "suite_version": "pjrt-cts version",
    "suites_sha256": "suites (SHA-256 of the test files)",
    "corpus_sha256": "golden corpus (SHA-256 of its manifest)",
}
# The facts bound since issue 53, absent from older bindings: the judge (named file by file) and the conditions.
_JUDGE_FACTS = ("judge_sha256", "judge_files")
_CONDITIONS = {"plugin_environment": "plugin environment", "user_settings": "user settings"}
# How a file's tree (the first part of its name, pjrt_cts.resources.judging_trees) is named when it differs.
_TREE_LABELS = {"pjrt_cts": "judging code", "suites": "suites", "golden": "golden corpus", "plugins": "profiles"}
_NAMED_FILES = 3  # files named per tree and kind of difference, then "and N more"

# Variables that change what a plugin does, recorded with their values: any with one of these prefixes (XLA's, the
# runtimes' own — TensorFlow's logging (TF_CPP_), TPU, CUDA, NCCL, ROCm, oneAPI —, JAX's for the framework layers, PJRT_ for
# a plugin's own knobs), the proxy plugin's settings and whatever the profile's [environment] names. Not the loader's
# paths (LD_LIBRARY_PATH, LD_PRELOAD: where this machine keeps the libraries) nor pjrt-cts's own PJRT_CTS_ variables
# (the run context, machine paths; the user settings are bound as `user_settings`).
ENVIRONMENT_PREFIXES = ("XLA_", "TF_CPP_", "TPU_", "LIBTPU_", "CUDA_", "NCCL_", "HIP_", "ROCR_", "HSA_", "ONEAPI_",
                        "SYCL_", "ZE_", "JAX_", "PJRT_")
_OWN_PREFIX = "PJRT_CTS_"


@dataclass(frozen=True)
class RunBinding:
    plugin_sha256: str | None
    profile: str | None
    create_options: str  # canonical JSON, so that the order of options does not matter
    expectations_sha256: str
    suite_version: str
    suites_sha256: str
    corpus_sha256: str | None
    # None in a binding written before issue 53: its records cannot be bound to their judge or conditions.
    judge_sha256: str | None = None
    judge_files: dict[str, str] | None = None  # `<tree>/<path>` -> SHA-256 (judge_files())
    plugin_environment: dict[str, str] | None = None
    user_settings: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunBinding | None":
        """The binding of a run.json or results.json (None when it lacks one of the facts bindings have always
        held); facts bound since are None when absent."""
        if not isinstance(data, dict) or not set(_NAMES) <= set(data):
            return None
        values: dict[str, Any] = {f.name: data.get(f.name) for f in fields(cls)}
        return cls(**values)

    def differences(self, other: "RunBinding", *, mine: str = "recorded", theirs: str = "now") -> list[str]:
        """One phrase per fact that differs: `plugin binary (SHA-256): 3f2a… recorded, 9b1c… now`, `judging code:
        pjrt_cts/golden/compare.py differs`, `plugin environment: XLA_FLAGS unset recorded, '--xla_foo' now`."""
        found = []
        for name, label in _NAMES.items():
            value, other_value = getattr(self, name), getattr(other, name)
            if value != other_value:
                found.append(f"{label}: {short_fact(value)} {mine}, {short_fact(other_value)} {theirs}")
        return found + bound_differences(self.to_dict(), other.to_dict(), mine=mine, theirs=theirs)


def bound_differences(recorded: Mapping[str, Any], current: Mapping[str, Any], *, mine: str, theirs: str) -> list[str]:
    """What differs between two bindings (results.json `binding` objects) in the facts bound since issue 53: the
    judge, file by file (judge_differences), the plugin environment and the user settings."""
    found = judge_differences(recorded, current, mine=mine, theirs=theirs)
    for name, label in _CONDITIONS.items():
        found += _mapping_differences(label, recorded.get(name), current.get(name), mine, theirs)
    return found


def short_fact(value: Any) -> str:
    """A digest cut to 12 hex digits, anything else as repr: how a refusal names a fact."""
    text = str(value)
    return text[:12] + "…" if len(text) == 64 and all(c in "0123456789abcdef" for c in text) else repr(value)


def file_digest(path: Path) -> str | None:
    """SHA-256 of a file (pjrt_cts.runner.probe.file_sha256), None when it cannot be read."""
    try:
        return file_sha256(path)
    except OSError:
        return None


def tree_digest(root: Path, pattern: str = "*.py") -> str:
    """SHA-256 over the relative paths and bytes of `root`'s files matching `pattern` (the suites' code)."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob(pattern)):
        if "__pycache__" in path.parts:
            continue
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    for ini in sorted(root.glob("*.ini")):
        digest.update(ini.name.encode() + b"\0" + ini.read_bytes())
    return digest.hexdigest()


def corpus_digest(corpus_dir: Path) -> str | None:
    """The golden corpus's SHA-256: its manifest's (the manifest holds every file's SHA-256)."""
    from pjrt_cts.golden.corpus import MANIFEST_NAME  # numpy and the corpus reader only when a digest is asked for

    return file_digest(corpus_dir / MANIFEST_NAME)


# -- the judge ------------------------------------------------------------------------------------


def judge_files(trees: Mapping[str, Path]) -> dict[str, str]:
    """`<tree>/<relative path>` -> SHA-256 of every file of the judging trees (pjrt_cts.resources.judging_trees):
    the same names and digests in a source checkout, an editable install and a wheel. Left out: bytecode and
    caches, hidden files and folders, and the data trees a wheel keeps inside the package (trees of their own)."""
    from pjrt_cts.resources import DATA_DIR_NAME

    found = {}
    for tree, root in trees.items():
        for relative, path in _tree_files(Path(root), skip=DATA_DIR_NAME):
            found[f"{tree}/{relative}"] = file_sha256(path)
    return dict(sorted(found.items()))


def _tree_files(root: Path, skip: str) -> Iterator[tuple[str, Path]]:
    for folder, folders, files in os.walk(root):
        at_top = Path(folder) == root
        folders[:] = sorted(name for name in folders
                            if name != "__pycache__" and not name.startswith(".") and not (at_top and name == skip))
        for name in sorted(files):
            if not name.startswith(".") and not name.endswith((".pyc", ".pyo")):
                path = Path(folder) / name
                yield path.relative_to(root).as_posix(), path


def judge_digest(files: Mapping[str, str]) -> str:
    """One SHA-256 over every judging file's name and SHA-256 (`judge_sha256`)."""
    return hashlib.sha256("".join(f"{name}\0{digest}\n" for name, digest in sorted(files.items())).encode()).hexdigest()


def judge_differences(recorded: Mapping[str, Any], current: Mapping[str, Any], *, mine: str, theirs: str) -> list[str]:
    """What differs between two bindings' judges (`judge_sha256`, `judge_files`), file by file: `judging code:
    pjrt_cts/golden/compare.py differs`; a binding without them cannot be bound to its judge."""
    if recorded.get("judge_sha256") == current.get("judge_sha256"):
        return []
    for side, binding in ((mine, recorded), (theirs, current)):
        digest, files = binding.get("judge_sha256"), binding.get("judge_files")
        if digest is None:
            return [f"judge: no hashes of the code, suites, golden corpus and profiles that judged the records "
                    f"({side}): written by a pjrt-cts before they were bound, the records cannot be bound to their "
                    "judge"]
        if not isinstance(files, dict) or judge_digest(files) != digest:
            return [f"judge: the judge_files ({side}) do not give their judge_sha256 {short_fact(digest)}: the list "
                    "was edited"]
    return _file_differences(recorded["judge_files"], current["judge_files"], mine, theirs)


def _file_differences(recorded: Mapping[str, str], current: Mapping[str, str], mine: str, theirs: str) -> list[str]:
    changed = sorted(name for name in set(recorded) & set(current) if recorded[name] != current[name])
    kinds = ((changed, "differs", "differ"), (sorted(set(recorded) - set(current)), f"only {mine}", f"only {mine}"),
             (sorted(set(current) - set(recorded)), f"only {theirs}", f"only {theirs}"))
    found = []
    for tree, label in _TREE_LABELS.items():
        for names, one, several in kinds:
            in_tree = [name for name in names if name.split("/", 1)[0] == tree]
            if in_tree:
                found.append(f"{label}: {_listing(in_tree)} {one if len(in_tree) == 1 else several}")
    return found


def _listing(names: list[str]) -> str:
    more = len(names) - _NAMED_FILES
    return ", ".join(names[:_NAMED_FILES]) + (f" and {more} more" if more > 0 else "")


def installed_judge(suites_dir: Path | None = None) -> dict[str, Any]:
    """This installation's judge, as a binding records it (`judge_sha256`, `judge_files`)."""
    from pjrt_cts.resources import judging_trees

    files = judge_files(judging_trees(suites_dir))
    return {"judge_sha256": judge_digest(files), "judge_files": files}


# -- the conditions -------------------------------------------------------------------------------


def plugin_environment(environ: Mapping[str, str], worker_env: Mapping[str, str],
                       profile_names: frozenset[str] = frozenset()) -> dict[str, str]:
    """The plugin's environment as its processes see it ({**environ, **worker_env}): every variable of
    ENVIRONMENT_PREFIXES, of the proxy plugin and of the profile's [environment] (`profile_names`), with its value."""
    from pjrt_cts.proxy import DEFECT_ENV, LEAK_BYTES_ENV, TARGET_ENV

    merged = {**environ, **worker_env}
    named = profile_names | {DEFECT_ENV, LEAK_BYTES_ENV, TARGET_ENV}
    return {name: merged[name] for name in sorted(merged)
            if name in named or (name.startswith(ENVIRONMENT_PREFIXES) and not name.startswith(_OWN_PREFIX))}


def _mapping_differences(label: str, recorded: Mapping[str, Any] | None, current: Mapping[str, Any] | None,
                         mine: str, theirs: str) -> list[str]:
    if recorded == current:
        return []
    if recorded is None or current is None:
        side = mine if recorded is None else theirs
        return [f"{label}: not recorded ({side}): written by a pjrt-cts before it was bound"]
    def shown(values: Mapping[str, Any], name: str) -> str:
        return short_fact(values[name]) if name in values else "unset"

    return [f"{label}: {name} {shown(recorded, name)} {mine}, {shown(current, name)} {theirs}"
            for name in sorted(set(recorded) | set(current))
            if (name in recorded, recorded.get(name)) != (name in current, current.get(name))]


def describe_conditions(binding: Mapping[str, Any]) -> str:
    """`plugin environment XLA_FLAGS='--x'; settings fuzz_seed=0, num_nodes=2, kv_backend='auto', timeout=120.0`."""
    environment, settings = binding.get("plugin_environment"), binding.get("user_settings")
    if environment is None or settings is None:
        return "the binding records no plugin environment or user settings (written by a pjrt-cts before they were bound)"
    shown = ", ".join(f"{name}={value!r}" for name, value in sorted(environment.items())) or "none of the bound variables set"
    return (f"plugin environment: {shown}; user settings: "
            + ", ".join(f"{name}={value!r}" for name, value in sorted(settings.items())))


def aot_settings(device_less: bool, topologies: Sequence[TopologySpec]) -> dict[str, Any]:
    """The user settings of the aot layer that change outcomes (`run --aot`, `--topology`, `--topology-option`, the
    profile's topologies), bound with the others; none for a run that names no topology and creates clients."""
    settings: dict[str, Any] = {"device_less": True} if device_less else {}
    if topologies:
        settings["topologies"] = [spec.to_json() for spec in topologies]
    return settings


def bind(*, plugin_path: Path, profile: str | None, create_options: dict[str, Any], expectations_sha256: str,
         suite_version: str, suites_dir: Path, corpus_dir: Path, plugin_environment: dict[str, str],
         user_settings: dict[str, Any]) -> RunBinding:
    from pjrt_cts.resources import judging_trees

    files = judge_files({**judging_trees(suites_dir), "golden": corpus_dir})
    return RunBinding(
        plugin_sha256=file_digest(plugin_path),
        profile=profile,
        create_options=json.dumps(create_options, sort_keys=True, default=str),
        expectations_sha256=expectations_sha256,
        suite_version=suite_version,
        suites_sha256=tree_digest(suites_dir),
        corpus_sha256=corpus_digest(corpus_dir),
        judge_sha256=judge_digest(files),
        judge_files=files,
        plugin_environment=dict(plugin_environment),
        user_settings=dict(user_settings),
    )
