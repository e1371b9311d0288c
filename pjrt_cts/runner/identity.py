"""Who and where: the package root and the environment of the run. Nothing here loads
the plugin; its identity card comes from the run's preflight (pjrt_cts.runner.preflight, in a child)."""
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
