"""What pjrt_cts imports at module level is declared: a fresh `pip install pjrt-cts` must import every module.

The golden generator runs only with the `golden` extra (JAX on CPU), so its imports are checked against that extra.
"""
from __future__ import annotations

import ast
import re
import sys
from importlib import metadata
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "pjrt_cts" / "golden" / "generator"


def _requirement_names(requirements: list[str]) -> set[str]:
    return {_normalize(re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0]) for requirement in requirements}


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _module_level_imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return {name for name in names if name not in sys.stdlib_module_names and name not in ("pjrt_cts", "__future__")}


def test_every_module_level_import_is_a_declared_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    required = _requirement_names(project["dependencies"])
    golden = required | _requirement_names(project["optional-dependencies"]["golden"])
    distributions = metadata.packages_distributions()
    undeclared = []
    for path in sorted((ROOT / "pjrt_cts").rglob("*.py")):
        declared = golden if GENERATOR in path.parents else required
        for module in sorted(_module_level_imports(path)):
            names = {_normalize(name) for name in distributions.get(module, [module])}
            if not names & declared:
                undeclared.append(f"{path.relative_to(ROOT)}: {module} ({', '.join(sorted(names))})")
    assert undeclared == [], "imported but not declared in pyproject.toml: " + "; ".join(undeclared)
