"""Helpers for profile tests: a fake installed distribution, and a plugins/ tree in tmp_path."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


def make_distribution(site: Path, name: str, files: dict[str, bytes], version: str = "1.0") -> None:
    """Write `files` (paths relative to `site`, may start with ../) plus a dist-info that records them."""
    for relative, content in files.items():
        path = (site / relative).resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    record = [f"{relative},," for relative in files] + [f"{info.name}/METADATA,,", f"{info.name}/RECORD,,"]
    (info / "RECORD").write_text("\n".join(record) + "\n")


@pytest.fixture
def fake_distribution():
    """`make_distribution` as a fixture (test modules cannot import conftest)."""
    return make_distribution


@pytest.fixture
def plugins_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A function writing plugins/<name>/profile.toml under tmp_path; profiles are then looked up there."""
    root = tmp_path / "plugins"
    root.mkdir()
    monkeypatch.setattr("pjrt_cts.profiles.plugins_dir", lambda: root)

    def write(name: str, body: str) -> Path:
        directory = root / name
        directory.mkdir()
        (directory / "profile.toml").write_text(textwrap.dedent(body))
        return directory

    return write
