"""What a run's records belong to: one plugin binary judged by one suite, corpus, profile and expectations file.

`pjrt-cts run --resume` continues a run only when every fact here is the same as the recorded run's (a rebuilt
plugin at the same path is another plugin), and `pjrt-cts merge` joins only shards that agree on them. The
binding is written to out/.run/run.json and to results.json (`binding`).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from pjrt_cts.runner.probe import file_sha256

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


@dataclass(frozen=True)
class RunBinding:
    plugin_sha256: str | None
    profile: str | None
    create_options: str  # canonical JSON, so that the order of options does not matter
    expectations_sha256: str
    suite_version: str
    suites_sha256: str
    corpus_sha256: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunBinding | None":
        names = {f.name for f in fields(cls)}
        if not isinstance(data, dict) or not names <= set(data):
            return None
        return cls(**{name: data[name] for name in names})

    def differences(self, other: "RunBinding") -> list[str]:
        """One phrase per fact that differs: `plugin binary (SHA-256): 3f2a… recorded, 9b1c… now`."""
        found = []
        for name, label in _NAMES.items():
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine != theirs:
                found.append(f"{label}: {short_fact(mine)} recorded, {short_fact(theirs)} now")
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


def bind(*, plugin_path: Path, profile: str | None, create_options: dict[str, Any], expectations_sha256: str,
         suite_version: str, suites_dir: Path, corpus_dir: Path) -> RunBinding:
    return RunBinding(
        plugin_sha256=file_digest(plugin_path),
        profile=profile,
        create_options=json.dumps(create_options, sort_keys=True, default=str),
        expectations_sha256=expectations_sha256,
        suite_version=suite_version,
        suites_sha256=tree_digest(suites_dir),
        corpus_sha256=corpus_digest(corpus_dir),
    )
