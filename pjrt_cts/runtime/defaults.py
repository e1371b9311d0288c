"""Where the bundled plugins live (found through their Python distributions, not hard-coded paths)."""
from __future__ import annotations

import importlib.util
from pathlib import Path


def _module_dir(module: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def default_plugin_path() -> Path:
    """The default plugin under test: XLA CPU plugin from lammps-jax-pjrt-cpu (API 0.115)."""
    directory = _module_dir("lammps_jax_pjrt_cpu")
    if directory is None:
        raise FileNotFoundError("the default plugin package is missing: pip install lammps-jax-pjrt-cpu==0.11.2")
    return directory / "pjrt_c_api_cpu_plugin.so"


def legacy_plugin_path() -> Path:
    """The older XLA CPU plugin (API 0.81) from xla-cpu-pjrt (the `test` extra)."""
    directory = _module_dir("xla_plugins.xla_cpu_pjrt")
    if directory is None:
        raise FileNotFoundError("the API 0.81 plugin is missing: pip install xla-cpu-pjrt==0.0.1 (pjrt-cts[test])")
    return directory / "xla_cpu_pjrt.so"
