"""Who and where: the package root and the environment of the run. Nothing here loads
the plugin; its identity card comes from the run's preflight (pjrt_cts.runner.controller.preflight, in a child)."""
from __future__ import annotations

import importlib.metadata
import os
import platform
from pathlib import Path
from typing import Any

_PACKAGES = ("pjrt-cts", "numpy", "ml_dtypes", "pytest", "pytest-xdist", "jax", "jaxlib", "lammps-jax-pjrt-cpu",
             "xla-cpu-pjrt")


def package_root() -> str:
    """The directory that holds the pjrt_cts package: subprocesses need it on PYTHONPATH in a checkout."""
    return str(Path(__file__).resolve().parents[2])


def plugin_distribution(plugin_path: str) -> dict[str, str] | None:
    """results.json `plugin.distribution`: {name, version} of the installed distribution that ships the plugin
    file, None for a plugin no distribution lists (a build tree, a copied .so)."""
    from pjrt_cts.profiles import distribution_of_file

    found = distribution_of_file(plugin_path)
    return {"name": found[0], "version": found[1]} if found else None


def environment() -> dict[str, Any]:
    packages = {}
    for name in _PACKAGES:
        try:
            packages[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "packages": packages,
    }
