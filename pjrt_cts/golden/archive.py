"""The corpus's files on disk: one zip archive per family (`golden/<family>.zip`).

The manifest names files by logical path, `<family>/<stem>.<kind>` (e.g. `gather/take_rows.f32.mlir`); the
bytes are member `<stem>.<kind>` of `<family>.zip`. Thousands of small programs would otherwise cost a disk
block each (a 1 KB program takes 4 KB; 6,000 cases x 5 files would be 120 MB on disk for ~10 MB of data).
Archives are written byte-deterministically: members sorted, fixed timestamps, fixed compression level.
`unzip -p golden/gather.zip take_rows.f32.mlir` shows a program.
"""
from __future__ import annotations

import io
import threading
import zipfile
from pathlib import Path
from typing import Iterable, Mapping

ARCHIVE_SUFFIX = ".zip"
_FIXED_DATE = (1980, 1, 1, 0, 0, 0)

_open: dict[Path, zipfile.ZipFile] = {}
_lock = threading.Lock()


def split_path(relative: str) -> tuple[str, str]:
    """Logical path `family/member` -> (archive file name, member name)."""
    family, _, member = relative.partition("/")
    if not family or not member or "/" in member:
        raise ValueError(f"corpus file path must be <family>/<member>, not {relative!r}")
    return family + ARCHIVE_SUFFIX, member


def _archive(root: Path, name: str) -> zipfile.ZipFile:
    path = (root / name).resolve()
    with _lock:
        archive = _open.get(path)
        if archive is None:
            archive = _open[path] = zipfile.ZipFile(path)  # raises OSError / BadZipFile for a missing/bad file
        return archive


def read_member(root: Path, relative: str) -> bytes:
    """The bytes of logical corpus file `relative` under corpus `root` (KeyError: no such member)."""
    name, member = split_path(relative)
    archive = _archive(Path(root), name)
    with _lock:
        return archive.read(member)


def archive_members(root: Path) -> dict[str, list[str]]:
    """Archive file name -> its member names, for every archive under `root`."""
    found = {}
    for path in sorted(Path(root).glob(f"*{ARCHIVE_SUFFIX}")):
        with zipfile.ZipFile(path) as archive:
            found[path.name] = archive.namelist()
    return found


def archive_bytes(members: Mapping[str, bytes]) -> bytes:
    """A zip of `members` whose bytes depend only on the names and contents."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(members):  # .npz too: their small members' .npy headers deflate well (-35%)
            info = zipfile.ZipInfo(name, date_time=_FIXED_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, members[name], compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    return buffer.getvalue()


def write_archives(out_dir: Path, files: Mapping[str, bytes], *, prune: bool = False) -> list[Path]:
    """Write `files` (logical path -> bytes) as one archive per family; returns the archives written.

    An archive whose bytes are unchanged is not rewritten. With `prune`, archives no file maps to are deleted."""
    by_archive: dict[str, dict[str, bytes]] = {}
    for relative, data in files.items():
        name, member = split_path(relative)
        by_archive.setdefault(name, {})[member] = data
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, members in sorted(by_archive.items()):
        path = out_dir / name
        data = archive_bytes(members)
        if not path.is_file() or path.read_bytes() != data:
            path.write_bytes(data)
            written.append(path)
    if prune:
        for path in out_dir.glob(f"*{ARCHIVE_SUFFIX}"):
            if path.name not in by_archive:
                path.unlink()
    forget(out_dir)
    return written


def read_all(root: Path, paths: Iterable[str]) -> dict[str, bytes]:
    return {relative: read_member(root, relative) for relative in paths}


def forget(root: Path | None = None) -> None:
    """Close cached archive handles (all, or those under `root`): after rewriting a corpus in place."""
    with _lock:
        for path in list(_open):
            if root is None or Path(root).resolve() in path.parents:
                _open.pop(path).close()
