"""The house rules, checked by the tools made for them (configured in pyproject.toml):

- ruff: pycodestyle, pyflakes, bugbear, blind excepts and stale `noqa`s; every remaining `noqa` says why;
- mypy: the whole package and the suites, untyped bodies included, names imported from where they are defined
  or exported; the `--strict` flags for pjrt_cts.abi and pjrt_cts.runtime;
- import-linter: the layers of docs/ARCHITECTURE.md and the independence of abi and runtime;
- the suites (not a Python package, so outside import-linter's reach) reach a plugin through
  pjrt_cts.runtime and pjrt_cts.testing; only the layers that test the ABI itself use pjrt_cts.abi.
"""
from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
# Layers whose subject is the ABI itself (struct sizes, slots, the entry point) may use the declarations.
ABI_LAYERS = {"abi", "versioning", "extensions"}
# What runs the suites must never be imported by them.
NEVER_IN_SUITES = ("pjrt_cts.runner", "pjrt_cts.report", "pjrt_cts.cli", "pjrt_cts.selftest")


def _tool(name: str) -> str:
    path = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: it comes with the test extra (pip install -e '.[test]')")
    return path


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    result = _run([_tool("ruff"), "check", "--no-cache", "--output-format", "concise"])
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_noqa_and_type_ignore_says_why() -> None:
    unexplained = []
    pattern = re.compile(r"#\s*(noqa(?::\s*[A-Z0-9, ]+)?|type:\s*ignore(?:\[[a-z-, ]+\])?)(?P<rest>.*)$")
    for path in sorted([*REPO.glob("pjrt_cts/**/*.py"), *REPO.glob("suites/**/*.py"), *REPO.glob("tests/**/*.py"),
                        *REPO.glob("benchmarks/**/*.py")]):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = pattern.search(line)
            if match and len(match["rest"].strip(" -#()")) < 3:
                unexplained.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not unexplained, f"{len(unexplained)} noqa / type: ignore without a reason:\n" + "\n".join(unexplained[:40])


def test_mypy_finds_nothing() -> None:
    result = _run([_tool("mypy"), "--no-incremental"])
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def test_mypy_checks_the_package_and_the_suites() -> None:
    """Plain `mypy` (the call above and CI's) takes what it checks, and how, from pyproject.toml."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert {"pjrt_cts", "suites"} <= set(config["files"]), config["files"]
    assert config.get("check_untyped_defs") and config.get("no_implicit_reexport"), config


def test_import_contracts_hold() -> None:
    result = _run([_tool("lint-imports"), "--no-cache"])
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_suites_reach_the_plugin_through_runtime_and_testing() -> None:
    crossings = []
    for path in sorted((REPO / "suites").rglob("*.py")):
        layer = path.relative_to(REPO / "suites").parts[0]
        for name in _imports(path):
            if name.startswith(NEVER_IN_SUITES) or (name.startswith("pjrt_cts.abi") and layer not in ABI_LAYERS):
                crossings.append(f"{path.relative_to(REPO)} imports {name}")
    assert not crossings, "\n".join(sorted(set(crossings)))
