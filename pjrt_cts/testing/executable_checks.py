"""Checks of what an executable reports about itself (cost analysis, compiled memory stats, optimized program),
shared by the layer that compiles for the client's devices (executable) and the one that compiles for a topology
without a device (aot). Each reader makes UNIMPLEMENTED NOT_SUPPORTED (the header lets a plugin leave them out).

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why)."""
from __future__ import annotations

import math
from typing import Any

from pjrt_cts.runtime import protobuf_wire as wire
from pjrt_cts.testing.requirements import not_applicable, unsupported_if_unimplemented

# Cost properties that are counts or byte sizes: finite and not negative.
NON_NEGATIVE_PREFIXES = ("flops", "transcendentals", "bytes accessed", "utilization")
KNOWN_FORMATS = ("hlo", "hlo_with_config", "mlir")
HLO_MODULE_FIELD = 1  # HloModuleProtoWithConfig.hlo_module
HLO_MODULE_NAME_FIELD = 1  # HloModuleProto.name


def cost_analysis(executable: Any) -> list[tuple[str, Any]]:
    with unsupported_if_unimplemented("PJRT_Executable_GetCostAnalysis"):
        return list(executable.cost_analysis_items())


def check_cost_properties_typed(items: list[tuple[str, Any]]) -> None:
    __tracebackhide__ = True
    for name, value in items:
        assert isinstance(name, str) and name, f"PJRT_Executable_GetCostAnalysis has a property with an empty name: {value!r}"
        assert isinstance(value, (int, float, bool, str, list)), (
            f"PJRT_Executable_GetCostAnalysis property {name!r} has an untyped value {value!r}")
        if isinstance(value, list):
            assert all(isinstance(v, int) for v in value), f"cost property {name!r}: int64 list holds {value!r}"


def check_cost_names_unique(items: list[tuple[str, Any]]) -> None:
    __tracebackhide__ = True
    names = [name for name, _ in items]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    assert not duplicates, f"PJRT_Executable_GetCostAnalysis repeats properties {duplicates}"


def check_cost_counts(items: list[tuple[str, Any]]) -> None:
    __tracebackhide__ = True
    wrong = sorted((name, value) for name, value in items if name.startswith(NON_NEGATIVE_PREFIXES)
                   and not isinstance(value, (str, list, bool)) and not (math.isfinite(value) and value >= 0))
    # Every offender, sorted: a plugin may list its properties in another order in each process.
    assert not wrong, ("PJRT_Executable_GetCostAnalysis properties that are counts are negative or not finite: "
                       + ", ".join(f"{name!r} = {value!r}" for name, value in wrong) + " (a count must be finite and >= 0)")


def output_memory_kinds(executable: Any) -> list[str]:
    with unsupported_if_unimplemented("PJRT_Executable_OutputMemoryKinds"):
        return list(executable.output_memory_kinds)


def compiled_memory_stats(executable: Any) -> dict[str, int]:
    with unsupported_if_unimplemented("PJRT_Executable_GetCompiledMemoryStats"):
        return dict(executable.compiled_memory_stats())


def check_memory_stats_not_negative(stats: dict[str, int]) -> None:
    __tracebackhide__ = True
    negative = {name: value for name, value in stats.items() if value < 0}
    assert not negative, f"PJRT_Executable_GetCompiledMemoryStats reports negative sizes: {negative}"


def check_memory_stats_cover(stats: dict[str, int], kind: str, needed: int, program: str) -> None:
    """`kind` "argument" or "output": the device and host sizes together hold the program's `needed` bytes."""
    __tracebackhide__ = True
    device, host = stats[f"{kind}_size_in_bytes"], stats.get(f"host_{kind}_size_in_bytes", 0)
    assert device + host >= needed, (
        f"PJRT_Executable_GetCompiledMemoryStats {kind}_size_in_bytes={device} (host {host}) is less than the "
        f"{needed} bytes of {program}'s {kind}s")


def optimized_program(executable: Any) -> tuple[str, bytes]:
    with unsupported_if_unimplemented("PJRT_Executable_OptimizedProgram"):
        return executable.optimized_program()  # (format, code)


def check_optimized_program(fmt: str, code: bytes) -> None:
    __tracebackhide__ = True
    assert fmt in KNOWN_FORMATS, f"PJRT_Executable_OptimizedProgram format {fmt!r} is not one of {KNOWN_FORMATS}"
    assert code, "PJRT_Executable_OptimizedProgram returned an empty program"


def optimized_module_name(fmt: str, code: bytes) -> str | None:
    """The name of the HloModuleProto an optimized program in an HLO format holds (parsing the proto; None: it names
    none); SKIP where the format is no HLO module."""
    if fmt not in ("hlo", "hlo_with_config"):
        not_applicable(f"PJRT_Executable_OptimizedProgram returns {fmt!r}, not an HLO module")
    module = code if fmt == "hlo" else next(v for n, _, v in wire.iter_fields(code)
                                            if n == HLO_MODULE_FIELD and isinstance(v, bytes))
    names = [v for n, _, v in wire.iter_fields(module) if n == HLO_MODULE_NAME_FIELD and isinstance(v, bytes)]
    return names[0].decode(errors="replace") if names else None
