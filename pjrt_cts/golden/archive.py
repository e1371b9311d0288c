"""The corpus's files on disk: one bundle per family (`golden/<family>.bundle`).

The manifest names files by logical path, `<family>/<stem>.<kind>` (e.g. `gather/take_rows.f32.mlir`); the
bytes are member `<stem>.<kind>` of `<family>.bundle` (`pjrt-cts golden cat gather/take_rows.f32.mlir` prints
one). Tens of thousands of small programs would otherwise cost a disk block each, and a zip archive spends
a header and the name twice on every member while deflating each small member alone (docs/bench.md).

A bundle is the members deflated one by one against a shared dictionary (`zlib`'s zdict: strings the family's
programs and data files have in common, so a small program deflates far smaller than it would alone), then
an index:

    b"PJRTCTSB" | u32 dictionary size | dictionary | member streams ... | index | u64 index offset | b"PJRTCTSB"

The index is deflated JSON, `[[name, offset, size], ...]` sorted by name; each member a raw deflate stream.
Bundles are written byte-deterministically: members sorted, the dictionary a function of the members alone.

A reader that knows a file's SHA-256 (the manifest records each one) passes it to `read_member`, which refuses bytes
that are not those (MemberAltered): a run judges by no file that differs from the manifest.
"""
from __future__ import annotations

import hashlib
import json
import os
import struct
import threading
import zlib
from pathlib import Path
from typing import Iterable, Mapping

ARCHIVE_SUFFIX = ".bundle"
MAGIC = b"PJRTCTSB"
DICTIONARY_SIZE = 32 * 1024  # zlib's window: the most of a dictionary deflate can use
_DICTIONARY_SAMPLE = 50  # members of each kind whose bytes feed the dictionary
_SAMPLE_BYTES = DICTIONARY_SIZE // 3


class BundleError(ValueError):
    """A file that is not a readable bundle."""


class MemberAltered(ValueError):
    """A corpus file whose bytes are not the ones its manifest records."""


class _Bundle:
    def __init__(self, path: Path) -> None:
        data = path.read_bytes()  # raises OSError for a missing file
        if len(data) < 2 * len(MAGIC) + 12 or data[:len(MAGIC)] != MAGIC or data[-len(MAGIC):] != MAGIC:
            raise BundleError(f"{path}: not a corpus bundle")
        (size,) = struct.unpack_from("<I", data, len(MAGIC))
        self.dictionary = data[len(MAGIC) + 4:len(MAGIC) + 4 + size]
        (index_at,) = struct.unpack_from("<Q", data, len(data) - len(MAGIC) - 8)
        try:
            entries = json.loads(zlib.decompress(data[index_at:len(data) - len(MAGIC) - 8]))
        except (zlib.error, ValueError) as error:
            raise BundleError(f"{path}: unreadable index: {error}") from None
        self.index = {str(name): (int(offset), int(length)) for name, offset, length in entries}
        self.data = data

    def read(self, member: str) -> bytes:
        offset, length = self.index[member]  # KeyError: no such member
        stream = zlib.decompressobj(-15, zdict=self.dictionary)
        return stream.decompress(self.data[offset:offset + length]) + stream.flush()


_open: dict[Path, _Bundle] = {}
_by_name: dict[tuple[str, str], _Bundle] = {}  # (absolute root as given, bundle name): no resolve() on every read
_lock = threading.Lock()


def split_path(relative: str) -> tuple[str, str]:
    """Logical path `family/member` -> (bundle file name, member name)."""
    family, _, member = relative.partition("/")
    if not family or not member or "/" in member:
        raise ValueError(f"corpus file path must be <family>/<member>, not {relative!r}")
    return family + ARCHIVE_SUFFIX, member


def _bundle(root: Path | str, name: str) -> _Bundle:
    key = (str(root), name)
    bundle = _by_name.get(key)
    if bundle is not None:
        return bundle
    path = (Path(root) / name).resolve()
    with _lock:
        bundle = _open.get(path)
        if bundle is None:
            bundle = _open[path] = _Bundle(path)
        if os.path.isabs(key[0]):  # a relative root names another file once the working directory changes
            _by_name[key] = bundle
        return bundle


def read_member(root: Path | str, relative: str, sha256: str | None = None) -> bytes:
    """The bytes of logical corpus file `relative` under corpus `root` (KeyError: no such member); with `sha256`
    (the manifest's), MemberAltered when they are other bytes. Hashing costs a fraction of inflating
    (docs/bench.md), so every read is checked."""
    name, member = split_path(relative)
    data = _bundle(root, name).read(member)
    if sha256 is not None:
        actual = hashlib.sha256(data).hexdigest()
        if actual != sha256:
            raise MemberAltered(f"golden corpus file {relative} has SHA-256 {actual[:12]}…, its manifest records "
                                f"{sha256[:12]}…: the corpus was altered after its manifest was written (reinstall "
                                "pjrt-cts; `pjrt-cts golden check` lists every such file)")
    return data


def archive_members(root: Path) -> dict[str, list[str]]:
    """Bundle file name -> its member names, for every bundle under `root`."""
    return {path.name: sorted(_Bundle(path).index) for path in sorted(Path(root).glob(f"*{ARCHIVE_SUFFIX}"))}


def _kind(member: str) -> str:
    return member.rsplit(".", 1)[-1]


def dictionary_for(members: Mapping[str, bytes]) -> bytes:
    """The shared dictionary of a bundle: the tails of the first members (by name) of each kind, data files first
    and program text last (deflate reaches the dictionary's end most cheaply)."""
    by_kind: dict[str, list[bytes]] = {}
    for name in sorted(members):
        by_kind.setdefault(_kind(name), []).append(members[name])
    order = sorted(by_kind, key=lambda kind: {"npz": 0, "mlirbc": 1, "mlir": 2}.get(kind, -1))
    parts = [b"".join(by_kind[kind][:_DICTIONARY_SAMPLE])[-_SAMPLE_BYTES:] for kind in order]
    return b"".join(parts)[-DICTIONARY_SIZE:]


def archive_bytes(members: Mapping[str, bytes]) -> bytes:
    """A bundle of `members` whose bytes depend only on the names and contents."""
    dictionary = dictionary_for(members)
    out = bytearray(MAGIC + struct.pack("<I", len(dictionary)) + dictionary)
    index = []
    for name in sorted(members):
        stream = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, dictionary)
        packed = stream.compress(members[name]) + stream.flush()
        index.append([name, len(out), len(packed)])
        out += packed
    index_at = len(out)
    out += zlib.compress(json.dumps(index, separators=(",", ":")).encode("utf-8"), 9)
    out += struct.pack("<Q", index_at) + MAGIC
    return bytes(out)


def write_archives(out_dir: Path, files: Mapping[str, bytes], *, prune: bool = False) -> list[Path]:
    """Write `files` (logical path -> bytes) as one bundle per family; returns the bundles written.

    A bundle whose bytes are unchanged is not rewritten. With `prune`, bundles no file maps to are deleted."""
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
    """Drop cached bundles (all, or those under `root`): after rewriting a corpus in place."""
    with _lock:
        for path in list(_open):
            if root is None or Path(root).resolve() in path.parents:
                dropped = _open.pop(path)
                for key in [key for key, bundle in _by_name.items() if bundle is dropped]:
                    del _by_name[key]
