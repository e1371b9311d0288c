"""pjrt_cts.abi.extensions against the openxla/xla extension headers: every declared struct's member offsets and
PJRT_STRUCT_SIZE equal what a probe compiled against the headers printed (data/extension_header_offsets.txt), and
the registry's first published sizes are the headers' history."""
from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import pjrt_cts.abi.extensions as extensions_package
from pjrt_cts.abi.base import PjrtStruct, RawStruct
from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions.registry import BASE_ONLY, EXTENSIONS

FACTS = Path(__file__).parent / "data" / "extension_header_offsets.txt"
# The struct_size of each extension's first published version with struct_size first (git history of its header).
FIRST_PUBLISHED = {
    "GPU_CUSTOM_CALL": 32, "PROFILER": 32, "CUSTOM_PARTITIONER": 32, "STREAM": 40, "LAYOUTS": 56, "FFI": 40,
    "MEMORY_DESCRIPTIONS": 40, "TRITON": 32, "RAW_BUFFER": 72, "PHASE_COMPILE": 56, "EXAMPLE": 48,
    "CROSS_HOST_TRANSFERS": 40, "EXECUTABLE_METADATA": 40, "CALLBACK": 40, "HOST_ALLOCATOR": 48, "TPU_TOPOLOGY": 240,
    "TPU_EXECUTABLE": 40, "MEGASCALE": 72, "SHARDINGS": 40, "ABI_VERSION": 120, "COLLECTIVES": 96, "MULTI_SLICE": 64,
    "HOST_MEMORY_ALLOCATOR": 32, "XLA_TRANSFORM": 32,
}
# Args structs with struct_size but no extension_start (header irregularities the runtime must follow).
NO_EXTENSION_START = [
    "PJRT_Register_Xla_Transform_Args", "PJRT_Clear_Xla_Transform_Args", "PJRT_XlaTransform_Args",
    "PJRT_Xla_Transform_Get_Hlo_Pass_Pipeline_Trace_Args", "PJRT_Xla_Transform_Destroy_Hlo_Pass_Pipeline_Trace_Args",
    "PJRT_Get_Stream_For_External_Ready_Events_Args", "PJRT_Wait_Until_Buffer_Ready_On_Stream_Args",
    "PJRT_Gpu_Register_Custom_Call_Args", "PJRT_Register_Custom_Partitioner_Args",
    "PJRT_Register_Batch_Partitionable_Args", "PJRT_Client_RuntimeAbiVersion_Args", "PJRT_Executable_GetAbiVersion_Args",
]


def _facts() -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for line in FACTS.read_text().splitlines():
        if line and not line.startswith("#"):
            key, value = line.split()
            struct, member = key.split(".")
            table.setdefault(struct, {})[member] = int(value)
    return table


def _declared() -> dict[str, type[RawStruct]]:
    found: dict[str, type[RawStruct]] = {}
    for info in pkgutil.iter_modules(extensions_package.__path__):
        module = importlib.import_module(f"{extensions_package.__name__}.{info.name}")
        for name, value in vars(module).items():
            if (isinstance(value, type) and issubclass(value, RawStruct) and value not in (PjrtStruct, RawStruct)
                    and name.startswith(("PJRT_", "PLUGIN_", "JAX_")) and name != "PJRT_Extension_Base"):
                found[name] = value
    return found


DECLARED = _declared()


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_declaration_matches_header(name: str) -> None:
    facts = _facts()
    assert name in facts, f"{name} is declared but the header facts lack it: probe the header and add it to {FACTS.name}"
    struct = DECLARED[name]
    for member in (field[0] for field in struct._fields_):
        assert member in facts[name], f"{name}.{member} is not a member in the header"
        assert getattr(struct, member).offset == facts[name][member], f"{name}.{member} offset"
    if issubclass(struct, PjrtStruct):
        assert struct.STRUCT_SIZE == facts[name]["STRUCT_SIZE"], f"{name} PJRT_STRUCT_SIZE"


def test_every_extension_type_has_a_spec_with_its_first_published_size() -> None:
    assert set(EXTENSIONS) | BASE_ONLY == set(ExtensionType)
    assert {spec.name: spec.first_size for spec in EXTENSIONS.values()} == FIRST_PUBLISHED


def test_function_offsets_are_inside_the_newest_struct() -> None:
    for spec in EXTENSIONS.values():
        assert spec.functions, spec.name
        assert all(24 <= f.offset < spec.size for f in spec.functions), spec.name
        assert spec.first_size <= spec.size, spec.name
        assert len({f.name for f in spec.functions}) == len(spec.functions), spec.name


@pytest.mark.parametrize("name", NO_EXTENSION_START)
def test_irregular_args_have_no_extension_start(name: str) -> None:
    members = [field[0] for field in DECLARED[name]._fields_]
    assert members[0] == "struct_size" and "extension_start" not in members, members
