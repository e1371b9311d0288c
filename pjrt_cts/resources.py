"""Where the shipped data trees (suites/, golden/, plugins/, and docs/schema/) are, in a wheel or a checkout.

They live at the top of the repository; a built wheel ships them under the same names in
pjrt_cts/_data/ ([tool.setuptools] in pyproject.toml maps them there). The name "suites" matters:
test ids are node ids relative to the suites' parent directory ("suites/abi/...").
"""
from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
DATA_DIR_NAME = "_data"  # the package folder a wheel keeps the data trees in
_INSTALLED_ROOT = _PACKAGE_DIR / DATA_DIR_NAME
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


def schemas_dir() -> Path:
    """The JSON Schemas of the file formats (docs/schema/ in a checkout; pjrt_cts.cli.schema writes them)."""
    installed = _INSTALLED_ROOT / "schema"
    return installed if installed.is_dir() else _SOURCE_ROOT / "docs" / "schema"


def judging_trees(suites: Path | None = None) -> dict[str, Path]:
    """Every tree whose files judge a run, by the name its files are known by (`pjrt_cts/golden/compare.py`,
    `suites/...`, `golden/...`, `plugins/...`): the package (code, defect catalogue, mandatory lists, proxy and
    native C sources), the suites (`suites`: the run's own, when it names another tree), the golden corpus and the
    profiles. The package's tree holds the data trees in a wheel (DATA_DIR_NAME): they are not its own files."""
    return {"pjrt_cts": _PACKAGE_DIR, "suites": suites or suites_dir(), "golden": golden_dir(),
            "plugins": plugins_dir()}

