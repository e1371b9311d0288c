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
from typing import Sequence

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


def find_compiler() -> str | None:
    """The C compiler helpers are built with: `$CC`, else cc, gcc or clang on PATH; None when there is none."""
    return os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


def _compiler() -> str:
    compiler = find_compiler()
    if not compiler:
        raise NativeBuildError("no C compiler found (set CC or install gcc, e.g. `apt-get install gcc`)")
    return compiler


def _compile(command_tail: list[str], target_name: str, key: bytes) -> Path:
    """Run `cc <flags> -o <tmp> <command_tail>` once per key; the result is cached under its hash."""
    compiler = _compiler()
    digest = hashlib.sha256(key + " ".join([compiler, *_CFLAGS, *_LIBS]).encode()).hexdigest()[:16]
    target_dir = cache_dir() / "native" / digest
    target = target_dir / target_name
    if target.is_file():
        return target
    target_dir.mkdir(parents=True, exist_ok=True)
    # Compile to a temporary name and rename: concurrent workers never see a half-written file.
    fd, partial = tempfile.mkstemp(prefix=f".{target_name}.", suffix=".tmp", dir=target_dir)
    os.close(fd)
    command = [compiler, *_CFLAGS, "-o", partial, *command_tail]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            shown = " ".join(target_name if part == partial else part for part in command)
            raise NativeBuildError(f"building {target_name} failed: {first_errors(result.stderr)} "
                                   f"(compiler exit status {result.returncode}; command: {shown})")
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return target


def first_errors(stderr: str, limit: int = 3) -> str:
    """The compiler's first `limit` error lines (`file:line:col: error: ...`), else its first lines: what a
    truncated message still shows first, so a failed build says why."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if " error: " in line or line.startswith("error:") or "fatal error" in line]
    return " | ".join((errors or lines)[:limit]) or "(no output on stderr)"


def build_needed_bundle(libraries: Sequence[Path]) -> Path:
    """A library with no code, only DT_NEEDED entries on `libraries` and a RUNPATH of their
    directories. One dlopen of it loads them all together, so libraries that need each other's
    symbols without saying so (MKL's interface, threading and core layers) load even though
    ctypes always asks for immediate binding, which loading them one by one cannot satisfy."""
    if not libraries:
        raise ValueError("a bundle needs at least one library")
    paths = [Path(p) for p in libraries]
    directories = list(dict.fromkeys(str(p.parent) for p in paths))
    key = "\n".join(f"{p}:{p.stat().st_mtime_ns}" for p in paths).encode()
    empty = cache_dir() / "native" / "empty.c"
    empty.parent.mkdir(parents=True, exist_ok=True)
    if not empty.is_file():
        empty.write_text("/* intentionally empty: see pjrt_cts.native.build_needed_bundle */\n")
    tail = [str(empty), "-Wl,--no-as-needed", "-Wl,--allow-shlib-undefined",
            "-Wl,--enable-new-dtags", "-Wl,-rpath," + ":".join(directories), *map(str, paths)]
    return _compile(tail, "libpjrt_cts_bundle.so", key)


def build_shared_library(name: str, include_dirs: Sequence[Path] = ()) -> Path:
    """Path of the compiled `lib<name>.so`, compiling it first if the cache lacks it. `include_dirs`: directories
    of headers from outside this package (`-I`); their headers are part of the cache key, so another version of
    them gets a fresh build."""
    source = source_path(name)
    headers = sorted(header for directory in include_dirs for header in Path(directory).rglob("*.h"))
    key = source.read_bytes() + b"".join(header.read_bytes() for header in headers)
    return _compile([*(f"-I{directory}" for directory in include_dirs), str(source), *_LIBS], f"lib{name}.so", key)
