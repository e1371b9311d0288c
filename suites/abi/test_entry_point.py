"""GetPjrtApi: the one exported entry point, its table head and reported version."""
from __future__ import annotations

import ctypes
from typing import Any

from pjrt_cts.abi import structs
from pjrt_cts.abi.base import BASE_MINOR

PJRT_API_MAJOR = 0  # the header's PJRT_API_MAJOR: every released header so far
MINIMUM_COMPATIBLE_MINOR = 29  # XLA's kMinPjRtMinor: frameworks refuse older plugins
ABI_UNSTABLE_MINOR = 56  # 0.57 rearranged PJRT_Api; 0.56 tables are not ABI-compatible


def test_get_pjrt_api_is_exported(plugin: Any) -> None:
    library = ctypes.CDLL(str(plugin.path), mode=ctypes.RTLD_LOCAL)
    assert hasattr(library, "GetPjrtApi"), f"{plugin.path.name} should export the symbol GetPjrtApi, but dlsym found none"


def test_get_pjrt_api_returns_non_null(plugin: Any) -> None:
    assert plugin.get_pjrt_api_again(), "GetPjrtApi() should return a PJRT_Api*, but returned NULL"


def test_get_pjrt_api_is_stable_across_calls(plugin: Any) -> None:
    addresses = {plugin.get_pjrt_api_again() for _ in range(3)}
    assert addresses == {plugin.api_address}, (
        f"GetPjrtApi() should return the same table on every call, but returned "
        f"{sorted(hex(a) for a in addresses | {plugin.api_address})}"
    )


def test_api_table_head_is_unchanged_after_use(plugin: Any, client: Any) -> None:
    # The table is static: creating a client and calling through it must not rewrite the head.
    head = structs.PJRT_Api_Version.from_address(plugin.api_address + 16)
    now = (int(head.major_version), int(head.minor_version))
    size = ctypes.c_size_t.from_address(plugin.api_address).value
    assert (now, size) == (plugin.api_version, plugin.struct_size), (
        f"PJRT_Api head should stay (version {plugin.api_version}, struct_size {plugin.struct_size}) after use, "
        f"but is now (version {now}, struct_size {size})"
    )


def test_api_version_struct_size(plugin: Any) -> None:
    expected = structs.PJRT_Api_Version.STRUCT_SIZE
    assert plugin.api_version_struct_size == expected, (
        f"PJRT_Api.pjrt_api_version.struct_size should be PJRT_Api_Version_STRUCT_SIZE ({expected}), "
        f"but is {plugin.api_version_struct_size}"
    )


def test_api_major_version_is_header_major(plugin: Any) -> None:
    major = plugin.api_version[0]
    assert major == PJRT_API_MAJOR, (
        f"PJRT_Api.pjrt_api_version.major_version should be PJRT_API_MAJOR ({PJRT_API_MAJOR}), but is {major}"
    )


def test_api_minor_version_is_loadable_by_frameworks(plugin: Any) -> None:
    minor = plugin.api_version[1]
    assert minor >= MINIMUM_COMPATIBLE_MINOR, (
        f"PJRT_Api.pjrt_api_version.minor_version should be >= {MINIMUM_COMPATIBLE_MINOR} (XLA's minimum), but is {minor}"
    )
    assert minor != ABI_UNSTABLE_MINOR, (
        f"PJRT_Api.pjrt_api_version.minor_version {minor} is the ABI-unstable 0.{ABI_UNSTABLE_MINOR} "
        f"(the table layout changed in 0.{BASE_MINOR})"
    )
