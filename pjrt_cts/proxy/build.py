"""Compile the proxy plugin (proxy.c + the generated ABI header) into the pjrt-cts cache.

The output is `<cache>/proxy/<hash>/libpjrt_proxy.so`, where the hash covers the C source, the
generated header and the compiler command, so an edited source or ABI table gets a fresh build
and concurrent builders never see a half-written file. No binary is shipped.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from pjrt_cts.native import NativeBuildError, cache_dir
from pjrt_cts.proxy.abi_header import generate

SOURCE = Path(__file__).resolve().parent / "proxy.c"
LIBRARY_NAME = "libpjrt_proxy.so"
HEADER_NAME = "pjrt_proxy_abi.h"
CFLAGS = ("-shared", "-fPIC", "-O2", "-Wall", "-std=gnu11")
LIBS = ("-ldl", "-lpthread")


def _compiler() -> str:
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not compiler:
        raise NativeBuildError("no C compiler found to build the proxy plugin (set CC or install gcc)")
    return compiler


def proxy_build_dir() -> Path:
    """The cache directory this source tree's proxy builds into (whether built yet or not)."""
    return cache_dir() / "proxy" / _digest(_compiler(), generate())


def _digest(compiler: str, header: str) -> str:
    key = hashlib.sha256()
    for part in (SOURCE.read_bytes(), header.encode(), " ".join([compiler, *CFLAGS, *LIBS]).encode()):
        key.update(part)
        key.update(b"\0")
    return key.hexdigest()[:16]


def build_proxy(force: bool = False) -> Path:
    """Path of the compiled proxy plugin, compiling it first when the cache lacks it."""
    compiler = _compiler()
    header = generate()
    target_dir = cache_dir() / "proxy" / _digest(compiler, header)
    target = target_dir / LIBRARY_NAME
    if target.is_file() and not force:
        return target
    target_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target_dir, prefix=".build-") as scratch:
        (Path(scratch) / HEADER_NAME).write_text(header)
        partial = Path(scratch) / LIBRARY_NAME
        command = [compiler, *CFLAGS, "-I", scratch, "-o", str(partial), str(SOURCE), *LIBS]
        result = subprocess.run(command, capture_output=True, text=True, timeout=180)
        if result.returncode != 0:
            raise NativeBuildError(f"building the proxy plugin failed ({' '.join(command)}):\n{result.stderr.strip()}")
        os.replace(partial, target)
        (target_dir / HEADER_NAME).write_text(header)  # kept next to the library for debugging
    return target
