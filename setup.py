"""Packaging glue: ship suites/, golden/ and plugins/ inside the wheel.

They live at the top of the repository (where contributors expect them) and are mapped to
pjrt_cts/_suites, pjrt_cts/_golden and pjrt_cts/_plugins in a built wheel, so that a
non-editable install works outside the source tree (see pjrt_cts/resources.py).
"""
from __future__ import annotations

import os

from setuptools import find_packages, setup

DATA_TREES = {"pjrt_cts._suites": "suites", "pjrt_cts._golden": "golden", "pjrt_cts._plugins": "plugins"}


def _subpackages(package: str, directory: str) -> dict[str, str]:
    """Every directory below `directory` as a (namespace) package, so its files get shipped."""
    mapping = {}
    for root, dirs, _files in os.walk(directory):
        dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
        rel = os.path.relpath(root, directory)
        name = package if rel == "." else package + "." + rel.replace(os.sep, ".")
        mapping[name] = root
    return mapping


package_dir = {"pjrt_cts": "pjrt_cts"}
for pkg, directory in DATA_TREES.items():
    if os.path.isdir(directory):
        package_dir.update(_subpackages(pkg, directory))

packages = find_packages(include=["pjrt_cts", "pjrt_cts.*"]) + [p for p in package_dir if p != "pjrt_cts"]
package_data = {pkg: ["*"] for pkg in package_dir if pkg != "pjrt_cts"}
package_data["pjrt_cts"] = ["**/*.c", "**/*.txt", "**/*.html", "**/*.j2", "**/*.css", "**/*.toml", "**/*.json"]

setup(packages=sorted(set(packages)), package_dir=package_dir, package_data=package_data)
