"""The head of `struct PJRT_Api`: struct_size, extension chain and the reported version (slots follow at 40).

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why)."""
from __future__ import annotations

import ctypes

from pjrt_cts.abi.base import HEADER, PjrtStruct, finalize_struct_sizes
from pjrt_cts.abi.structs import PJRT_Api_Version


class PJRT_Api_Head(PjrtStruct):
    """The fixed 40-byte prefix of PJRT_Api; function pointers are read by offset (40 + 8*i)."""

    _fields_ = HEADER + [("pjrt_api_version", PJRT_Api_Version)]


finalize_struct_sizes(globals())
assert ctypes.sizeof(PJRT_Api_Head) == 40
