"""Byte-deterministic `.npz` writing (fixed member timestamps and order) and safe loading."""
from __future__ import annotations

import io
import zipfile

import numpy as np

_FIXED_DATE = (1980, 1, 1, 0, 0, 0)


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """An .npz (deflate-compressed) whose bytes depend only on the arrays and their names."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in arrays:  # insertion order is the caller's deterministic order
            member = io.BytesIO()
            np.lib.format.write_array(member, np.require(arrays[name], requirements="C"), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_FIXED_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, member.getvalue(), compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    return buffer.getvalue()


def load_npz_bytes(data: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}
