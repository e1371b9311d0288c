"""Small native helpers compiled on demand with the system C compiler.

Sources live next to this file (`<name>.c`); `build_shared_library(name)` compiles one into
`<cache>/native/<hash>/lib<name>.so` once and reuses it. The hash covers the source and the
compiler command, so an edited source gets a fresh build. No binaries are shipped.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

_SOURCES = Path(__file__).resolve().parent
_CFLAGS = ["-shared", "-fPIC", "-O2", "-Wall"]
_LIBS = ["-ldl"]


class NativeBuildError(RuntimeError):
    """The helper could not be compiled (no C compiler, or the compiler failed)."""


def cache_dir() -> Path:
    """`$PJRT_CTS_CACHE_DIR`, else `$XDG_CACHE_HOME/pjrt-cts`, else `~/.cache/pjrt-cts`."""
    explicit = os.environ.get("PJRT_CTS_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pjrt-cts"


def source_path(name: str) -> Path:
    path = _SOURCES / f"{name}.c"
    if not path.is_file():
        raise NativeBuildError(f"no native helper source {path}")
    return path


def _compiler() -> str:
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not compiler:
        raise NativeBuildError("no C compiler found (set CC or install gcc, e.g. `apt-get install gcc`)")
    return compiler


def build_shared_library(name: str) -> Path:
    """Path of the compiled `lib<name>.so`, compiling it first if the cache lacks it."""
    source = source_path(name)
    compiler = _compiler()
    digest = hashlib.sha256(source.read_bytes() + " ".join([compiler, *_CFLAGS, *_LIBS]).encode()).hexdigest()[:16]
    target_dir = cache_dir() / "native" / digest
    target = target_dir / f"lib{name}.so"
    if target.is_file():
        return target
    target_dir.mkdir(parents=True, exist_ok=True)
    # Compile to a temporary name and rename: concurrent workers never see a half-written file.
    fd, partial = tempfile.mkstemp(prefix=f".lib{name}.", suffix=".so", dir=target_dir)
    os.close(fd)
    command = [compiler, *_CFLAGS, "-o", partial, str(source), *_LIBS]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise NativeBuildError(f"building {source.name} failed ({' '.join(command)}): {result.stderr.strip()}")
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return target
