"""A proxy PJRT plugin that forwards to a real one and injects one named defect.

    lib = build_proxy()                                # compiled once into the pjrt-cts cache
    env = proxy_environment(real_plugin, "to_host_bitflip")
    # any process started with `env` that loads `lib` sees the real plugin plus that defect

`pjrt-cts selftest` runs the suite against every mutant to measure the suite's power (docs/selftest.md).
"""
from __future__ import annotations

import ctypes
import os
from pathlib import Path

from pjrt_cts.proxy.build import build_proxy, proxy_build_dir
from pjrt_cts.proxy.catalogue import DEFECTS, DEFECTS_BY_NAME, PASSTHROUGH, Defect, defect

TARGET_ENV = "PJRT_CTS_PROXY_TARGET"  # path of the real plugin the proxy loads
DEFECT_ENV = "PJRT_CTS_PROXY_DEFECT"  # defect name; "" or "none" = passthrough
LEAK_BYTES_ENV = "PJRT_CTS_PROXY_LEAK_BYTES"  # bytes leaked per buffer by leak_per_buffer


def proxy_environment(target: str | os.PathLike, defect_name: str = PASSTHROUGH) -> dict[str, str]:
    """Environment variables that make the proxy forward to `target` with `defect_name` injected."""
    if defect_name != PASSTHROUGH and defect_name not in DEFECTS_BY_NAME:
        raise KeyError(f"unknown defect {defect_name!r}")
    return {TARGET_ENV: str(Path(target).resolve()), DEFECT_ENV: defect_name}


def compiled_defect_names(library: str | os.PathLike) -> list[str]:
    """Defect names the compiled proxy knows (loading it does not load any target)."""
    handle = ctypes.CDLL(str(library), mode=os.RTLD_LAZY | os.RTLD_LOCAL)
    function = handle.PjrtCtsProxyDefectNames
    function.restype = ctypes.c_char_p
    return function().decode().split(",")


__all__ = [
    "DEFECTS", "DEFECTS_BY_NAME", "DEFECT_ENV", "Defect", "LEAK_BYTES_ENV", "PASSTHROUGH", "TARGET_ENV",
    "build_proxy", "compiled_defect_names", "defect", "proxy_build_dir", "proxy_environment",
]
