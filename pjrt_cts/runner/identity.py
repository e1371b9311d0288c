"""Who and where: the default plugin, the plugin's identity (via `pjrt-cts info` in a subprocess),
and the environment of the run. Nothing here loads the plugin into this process."""
from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

INFO_TIMEOUT_SECONDS = 120.0
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


class PluginInfoProbe:
    """`pjrt-cts info --json` in a subprocess, started early and collected at the end of the run."""

    def __init__(self, plugin_path: Path, create_options: dict[str, Any], env: dict[str, str]) -> None:
        self.plugin_path = plugin_path
        self.command = [sys.executable, "-m", "pjrt_cts.cli.main", "info", "--json", str(plugin_path),
                        "--create-options-json", json.dumps(create_options)]
        self._proc: subprocess.Popen[str] | None = None
        self._error: str | None = None
        try:
            self._proc = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          stdin=subprocess.DEVNULL, text=True, env=env)
        except OSError as exc:
            self._error = f"could not start `pjrt-cts info`: {exc}"

    def result(self, timeout: float = INFO_TIMEOUT_SECONDS) -> dict[str, Any]:
        if self._proc is None:
            return {"path": str(self.plugin_path), "error": self._error}
        try:
            stdout, stderr = self._proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.communicate()
            return {"path": str(self.plugin_path), "error": f"`pjrt-cts info` timed out after {timeout:g}s"}
        if self._proc.returncode != 0:
            tail = " | ".join(stderr.strip().splitlines()[-5:])
            return {"path": str(self.plugin_path),
                    "error": f"`pjrt-cts info` exited with status {self._proc.returncode}: {tail}"}
        try:
            info = json.loads(stdout)
        except json.JSONDecodeError as exc:
            return {"path": str(self.plugin_path), "error": f"`pjrt-cts info` printed no JSON: {exc}"}
        if not isinstance(info, dict):
            return {"path": str(self.plugin_path), "error": "`pjrt-cts info` printed JSON that is not an object"}
        return info

    def cancel(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()


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
