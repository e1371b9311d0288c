"""Where the shipped data trees (suites/, golden/, plugins/) are, in a wheel or a source checkout."""
from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_SOURCE_ROOT = _PACKAGE_DIR.parent


def _data_tree(name: str) -> Path:
    installed = _PACKAGE_DIR / f"_{name}"  # non-editable install: mapped by setup.py
    if installed.is_dir():
        return installed
    return _SOURCE_ROOT / name  # source checkout or editable install


def suites_dir() -> Path:
    return _data_tree("suites")


def golden_dir() -> Path:
    return _data_tree("golden")


def plugins_dir() -> Path:
    return _data_tree("plugins")
