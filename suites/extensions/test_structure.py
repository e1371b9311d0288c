"""Every extension the plugin advertises is well formed: its struct_size covers at least the extension's first
published version, and every function inside that struct_size is non-NULL unless the header makes it optional.
Extension types this suite has no declaration for are listed, not failed. (The chain itself: abi.extension_chain.)"""
from __future__ import annotations

import ctypes
from typing import Any, Callable

import pytest

from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions.registry import EXTENSIONS
from pjrt_cts.testing import requires

SPECS = [pytest.param(spec, id=spec.name, marks=requires(extension=spec.name)) for spec in EXTENSIONS.values()]


@pytest.mark.parametrize("spec", SPECS)
def test_struct_size_covers_first_published_version(plugin: Any, spec: Any) -> None:
    info = plugin.find_extension(spec.extension)
    assert info.struct_size >= spec.first_size, (
        f"the {spec.name} extension's struct_size is {info.struct_size}, less than its first published version's "
        f"{spec.first_size} ({spec.header}): a caller reads its functions past the struct")


@pytest.mark.parametrize("spec", SPECS)
def test_functions_within_struct_size_are_not_null(plugin: Any, spec: Any) -> None:
    info = plugin.find_extension(spec.extension)
    null = [f"{f.name} (offset {f.offset})" for f in spec.covered(info.struct_size)
            if not f.optional and not ctypes.c_void_p.from_address(info.address + f.offset).value]
    assert not null, (
        f"the {spec.name} extension (struct_size {info.struct_size}) holds NULL pointers where its header requires "
        f"functions: {', '.join(null)} ({spec.header})")


def test_extensions_without_declaration_are_listed(plugin: Any, record_details: Callable[..., None]) -> None:
    """A vendor's or a newer header's extension type is no defect: recorded for the report, never failed."""
    undeclared = [f"{e.name} (type {e.type}, struct_size {e.struct_size})" for e in plugin.extensions
                  if e.type not in {int(t) for t in EXTENSIONS} or e.type == ExtensionType.UNKNOWN]
    advertised = [f"{e.name} (struct_size {e.struct_size})" for e in plugin.extensions]
    record_details({"advertised_extensions": advertised, "undeclared_extensions": undeclared})
