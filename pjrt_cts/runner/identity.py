"""Who and where: the default plugin, the package root and the environment of the run. Nothing here loads
the plugin; its identity card comes from the run's preflight (pjrt_cts.runner.preflight, in a child)."""
from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import platform
from pathlib import Path
from typing import Any

_PACKAGES = ("pjrt-cts", "numpy", "ml_dtypes", "pytest", "pytest-xdist", "jax", "jaxlib", "lammps-jax-pjrt-cpu",
             "xla-cpu-pjrt")


def default_plugin_path() -> Path:
    """The bundled XLA CPU plugin (pjrt_cts.runtime.default_plugin_path when the runtime provides it)."""
    try:
        from pjrt_cts.runtime import default_plugin_path as runtime_default
    except Exception:  # runtime not written yet, or broken: fall back to the same lookup
        runtime_default = None
    if runtime_default is not None:
        return Path(runtime_default())
    spec = importlib.util.find_spec("lammps_jax_pjrt_cpu")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the default CPU plugin is not installed (pip install lammps-jax-pjrt-cpu)")
    return Path(list(spec.submodule_search_locations)[0]) / "pjrt_c_api_cpu_plugin.so"


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
