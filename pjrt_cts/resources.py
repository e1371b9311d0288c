"""Where the shipped data trees (suites/, golden/, plugins/) are, in a wheel or a source checkout.

They live at the top of the repository; a built wheel ships them under the same names in
pjrt_cts/_data/ ([tool.setuptools] in pyproject.toml maps them there). The name "suites" matters:
test ids are node ids relative to the suites' parent directory ("suites/abi/...").
"""
from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_INSTALLED_ROOT = _PACKAGE_DIR / "_data"
_SOURCE_ROOT = _PACKAGE_DIR.parent


def _data_tree(name: str) -> Path:
    installed = _INSTALLED_ROOT / name  # non-editable install (wheel)
    if installed.is_dir():
        return installed
    return _SOURCE_ROOT / name  # source checkout or editable install


def suites_dir() -> Path:
    return _data_tree("suites")


def golden_dir() -> Path:
    return _data_tree("golden")


def plugins_dir() -> Path:
    return _data_tree("plugins")
