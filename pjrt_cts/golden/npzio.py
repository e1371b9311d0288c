"""Byte-deterministic `.npz` writing (fixed member timestamps and order) and safe loading."""
from __future__ import annotations

import io
import math
import re
import struct
import zipfile
import zlib

import numpy as np

_FIXED_DATE = (1980, 1, 1, 0, 0, 0)


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """An .npz whose bytes depend only on the arrays and their names. Its `.npy` members are stored, not deflated:
    the corpus bundle deflates every member against its family's dictionary (pjrt_cts/golden/archive.py), which
    compresses raw arrays and their headers better than it can recompress deflated bytes (docs/bench.md)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name in arrays:  # insertion order is the caller's deterministic order
            member = io.BytesIO()
            np.lib.format.write_array(member, np.require(arrays[name], requirements="C"), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_FIXED_DATE)
            info.external_attr = 0o644 << 16
            archive.writestr(info, member.getvalue(), compress_type=zipfile.ZIP_STORED)
    return buffer.getvalue()


def load_npz_bytes(data: bytes) -> dict[str, np.ndarray]:
    """The arrays of an .npz, by name (without `.npy`). Files as `npz_bytes` writes them (deflated or stored
    members, .npy format 1.0 with a plain dtype) are read directly; anything else, and anything damaged, goes
    through numpy's reader, which reads or rejects it as before."""
    try:
        return _load_plain_npz(data)
    except (ValueError, KeyError, struct.error, zlib.error):
        pass
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


# A run reads tens of thousands of small arrays from the golden corpus: numpy's reader spends most of its time on
# zipfile's objects and parsing the header with `ast.literal_eval`, not on the data (docs/bench.md).
_END_OF_DIRECTORY = struct.Struct("<4s4H2LH")
_DIRECTORY_ENTRY = struct.Struct("<4s6H3L5H2L")
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_NPY_HEADER = re.compile(r"\{'descr': '([<>|=][a-z]\d+)', 'fortran_order': (True|False), 'shape': \(([\d, ]*)\), \} *\n")


def _load_plain_npz(data: bytes) -> dict[str, np.ndarray]:
    """`load_npz_bytes` for a zip of one disk with no comment, no encryption and no zip64 (ValueError otherwise, and
    for a member whose CRC-32 or .npy header does not check)."""
    end = len(data) - _END_OF_DIRECTORY.size
    signature, _, _, _, count, _, directory_at, comment = _END_OF_DIRECTORY.unpack_from(data, max(end, 0))
    if signature != b"PK\x05\x06" or comment:
        raise ValueError("not a plain zip")
    arrays: dict[str, np.ndarray] = {}
    at = directory_at
    for _ in range(count):
        (signature, _, _, flags, method, _, _, crc, packed, size,
         name_length, extra_length, comment_length, _, _, _, local_at) = _DIRECTORY_ENTRY.unpack_from(data, at)
        if signature != b"PK\x01\x02" or flags & 1 or method not in (0, 8) or 0xFFFFFFFF in (packed, size, local_at):
            raise ValueError("not a plain zip member")
        name = data[at + _DIRECTORY_ENTRY.size:at + _DIRECTORY_ENTRY.size + name_length].decode("utf-8")
        at += _DIRECTORY_ENTRY.size + name_length + extra_length + comment_length
        local = _LOCAL_HEADER.unpack_from(data, local_at)
        if local[0] != b"PK\x03\x04":
            raise ValueError("no local header")
        start = local_at + _LOCAL_HEADER.size + local[-2] + local[-1]
        raw = data[start:start + packed]
        content = zlib.decompress(raw, -15) if method == 8 else raw
        if len(content) != size or zlib.crc32(content) != crc or not name.endswith(".npy"):
            raise ValueError("member does not check")
        arrays[name[:-len(".npy")]] = _npy_array(content)
    return arrays


def _npy_array(content: bytes) -> np.ndarray:
    if content[:8] != b"\x93NUMPY\x01\x00":
        raise ValueError("not .npy format 1.0")
    (header_length,) = struct.unpack_from("<H", content, 8)
    match = _NPY_HEADER.fullmatch(content[10:10 + header_length].decode("latin1"))
    if match is None:
        raise ValueError("not a plain .npy header")
    descr, fortran, dims = match.groups()
    shape = tuple(int(dim) for dim in dims.replace(",", " ").split())
    dtype = np.dtype(descr)
    body = bytearray(content[10 + header_length:])  # writable, as numpy's reader returns it
    if len(body) != dtype.itemsize * math.prod(shape):
        raise ValueError(".npy body size does not match its header")
    flat = np.frombuffer(body, dtype=dtype)
    return flat.reshape(shape[::-1]).T if fortran == "True" else flat.reshape(shape)
