"""The built wheel: pyproject.toml alone packages pjrt_cts with its data trees, and the wheel runs outside the checkout.

suites/, golden/ and plugins/ sit at the top of the repository and ship as pjrt_cts/_data/<name>
([tool.setuptools] in pyproject.toml; pjrt_cts/resources.py finds them in either place).
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

from pjrt_cts.judgment.verdict import EXIT_INCOMPLETE
from pjrt_cts.runner.binding import installed_judge

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
DATA_TREES = ("suites", "golden", "plugins")
SCHEMAS = "docs/schema"  # ships as pjrt_cts/_data/schema (the JSON Schemas, `pjrt-cts schema`)
PACKAGE_DATA_SUFFIXES = (".c", ".txt", ".html", ".j2", ".css", ".toml", ".json")
# What never belongs in a build: VCS data, caches, virtualenvs and earlier build outputs (see .gitignore).
NOT_SOURCE = shutil.ignore_patterns(".git", "__pycache__", "*.pyc", "*.egg-info", "build", "dist", "out",
                                    ".venv", ".ci-venv", ".*_cache", ".whl", ".gl")


def _setuptools_config() -> dict:
    with open(REPO / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]


def _source_files(root: Path) -> list[Path]:
    """Files under `root` as a build sees them: no caches, no hidden files or directories."""
    found = []
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if path.is_file() and "__pycache__" not in rel.parts and not any(p.startswith(".") for p in rel.parts):
            found.append(rel)
    return found


def test_pyproject_lists_every_python_package_and_maps_the_data_trees() -> None:
    config = _setuptools_config()
    on_disk = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "pjrt_cts").rglob("__init__.py")
               if "__pycache__" not in p.parts}
    data_packages = {f"pjrt_cts._data.{name}" for name in DATA_TREES} | {"pjrt_cts._data.schema"}
    listed = set(config["packages"])
    assert on_disk - listed == set(), "add these packages to [tool.setuptools] packages in pyproject.toml"
    assert listed - on_disk - data_packages == set(), "listed in pyproject.toml but not on disk"
    assert data_packages <= listed
    for name in DATA_TREES:
        assert config["package-dir"][f"pjrt_cts._data.{name}"] == name
        assert (REPO / name).is_dir()
        assert config["package-data"][f"pjrt_cts._data.{name}"] == ["**/*"]
    assert config["package-dir"]["pjrt_cts._data.schema"] == SCHEMAS and (REPO / SCHEMAS).is_dir()
    assert not (REPO / "setup.py").exists(), "pyproject.toml is the one build file"


def _build_flags() -> list[str]:
    """Build offline with this environment's setuptools when it meets pyproject's build requirements, else isolated."""
    try:
        major, minor = (int(part) for part in version("setuptools").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return []
    if (major, minor) < (68, 0):
        return []
    if (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None:  # 70.1 has its own bdist_wheel
        return ["--no-build-isolation"]
    return []


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)
    print("$", " ".join(command), f"-> {done.returncode}\n", done.stdout[-4000:], done.stderr[-4000:])
    return done


@pytest.mark.slow
def test_wheel_ships_the_data_trees_and_runs_outside_the_checkout(tmp_path: Path) -> None:
    # Build from a copy: an in-tree build would write build/ and the egg-info into the working tree.
    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=NOT_SOURCE)
    dist = tmp_path / "dist"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *_build_flags(), "-w", str(dist),
                  str(source)])
    assert built.returncode == 0
    (wheel,) = dist.glob("pjrt_cts-*.whl")

    assert wheel.stat().st_size <= 30 * 2**20, f"the wheel is {wheel.stat().st_size / 2**20:.1f} MiB (issue 29: <= 30)"
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"pjrt_cts/_data/{tree}/{rel.as_posix()}" for tree in DATA_TREES for rel in _source_files(source / tree)}
    expected |= {f"pjrt_cts/{rel.as_posix()}" for rel in _source_files(source / "pjrt_cts")
                 if rel.suffix == ".py" or rel.suffix in PACKAGE_DATA_SUFFIXES}
    expected |= {f"pjrt_cts/_data/schema/{rel.as_posix()}" for rel in _source_files(source / SCHEMAS)}
    assert "pjrt_cts/_data/golden/manifest.json.gz" in expected and "pjrt_cts/_data/plugins/cpu/profile.toml" in expected
    assert "pjrt_cts/_data/schema/results.schema.json" in expected
    assert expected - names == set(), "missing from the wheel"
    assert {n for n in names if not n.startswith(("pjrt_cts/", "pjrt_cts-"))} == set(), "outside pjrt_cts in the wheel"
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
    assert "pjrt_cts/py.typed" in names  # PEP 561: type checkers read the package's own hints
    (entry_points_file,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    entry_points = zipfile.ZipFile(wheel).read(entry_points_file).decode()
    assert "[pytest11]\npjrt_cts = pjrt_cts.cli.pytest_plugin" in entry_points  # `pytest suites/ --pjrt-plugin`

    site = tmp_path / "site"
    assert _run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(site),
                 str(wheel)]).returncode == 0
    # PYTHONPATH comes before the editable install of the checkout (a meta-path finder or .pth entry), and the
    # working directory is outside the checkout: the wheel's copy is what runs.
    env = {**os.environ, "PYTHONPATH": str(site)}
    where = _run([sys.executable, "-c", "import json, pjrt_cts, pjrt_cts.resources as r; print(json.dumps("
                  "[pjrt_cts.__file__, str(r.suites_dir()), str(r.golden_dir()), str(r.plugins_dir()), "
                  "str(r.schemas_dir())]))"],
                 cwd=tmp_path, env=env)
    assert where.returncode == 0
    package_file, *trees = json.loads(where.stdout)
    assert Path(package_file).resolve().is_relative_to(site.resolve())
    assert [Path(t).resolve() for t in trees] == [(site / "pjrt_cts" / "_data" / t).resolve()
                                                  for t in (*DATA_TREES, "schema")]
    # A run's binding names the files that judged it: the wheel's are the checkout's, name for name and byte for byte.
    judge = _run([sys.executable, "-c", "import json; from pjrt_cts.runner.binding import installed_judge; "
                  "print(json.dumps(installed_judge()))"], cwd=tmp_path, env=env)
    assert judge.returncode == 0
    assert json.loads(judge.stdout) == installed_judge()

    out = tmp_path / "out"
    run = _run([sys.executable, "-m", "pjrt_cts", "run", "--layers", "abi", "--out", str(out), "-n", "1",
                "--no-progress"], cwd=tmp_path, env=env, timeout=300)
    # One layer alone cannot meet the Core contract: INCOMPLETE (exit 3) is a clean run; 1 would be a bad outcome.
    assert run.returncode == EXIT_INCOMPLETE
    results = json.loads((out / "results.json").read_text())
    records = results["tests"]
    assert records and all(r["layer"] == "abi" and r["id"].startswith("abi.") for r in records)
    assert all(r["nodeid"].startswith("suites/abi/") for r in records)
    assert any(r["outcome"] == "PASS" for r in records)
    assert (out / "report.html").is_file()
