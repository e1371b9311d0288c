"""PJRT_Api.extension_start: a NULL-terminated, acyclic chain of PJRT_Extension_Base-headed structs."""
from __future__ import annotations

from collections import Counter
from typing import Any

from pjrt_cts.abi import structs
from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.judgment.outcomes import HardeningFinding


def test_extension_chain_terminates(plugin: Any) -> None:
    loops = [p for p in plugin.extension_chain_problems() if "cycle" in p or "longer" in p]
    assert not loops, f"PJRT_Api extension chain should end in NULL, but {'; '.join(loops)}"


def test_extension_struct_sizes_cover_base(plugin: Any) -> None:
    minimum = structs.PJRT_Extension_Base.STRUCT_SIZE
    short = [f"{e.name} (type {e.type}): struct_size {e.struct_size}" for e in plugin.extensions if e.struct_size < minimum]
    assert not short, f"every extension's struct_size should be >= sizeof(PJRT_Extension_Base) {minimum}, but: {', '.join(short)}"


def test_extension_types_are_unique(plugin: Any) -> None:
    counts = Counter(e.type for e in plugin.extensions)
    repeated = {plugin.find_extension(t).name: n for t, n in counts.items() if n > 1}
    assert not repeated, f"each PJRT_Extension_Type should appear once in the chain (lookup is by type), but {repeated} repeat"


def test_extension_types_are_known(plugin: Any) -> None:
    known = {int(t) for t in ExtensionType}
    unknown = [f"type {e.type} (struct_size {e.struct_size})" for e in plugin.extensions if e.type not in known]
    if unknown:
        raise HardeningFinding(
            "extension chain holds types newer than the header this suite mirrors: " + ", ".join(unknown)
        )

