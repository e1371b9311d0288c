"""Invalid values the contract covers: enums, dims and data sizes, struct sizes, program formats.

Each must be rejected with an error (a crash or hang is a FAIL with the reproduction script saved
under <out>/robustness/). Calls run in a child process: several of these abort real plugins.
"""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.testing import environment_lacks, requires
from pjrt_cts.testing.robustness_cases import RiskyCase

ENUM_CONTRACT = "enum arguments outside the enum must be rejected"
SHAPE_CONTRACT = "dims / data sizes that do not match must be rejected"
SIZE_CONTRACT = "struct_size smaller than the plugin's struct must be rejected with INVALID_ARGUMENT"
FORMAT_CONTRACT = "program formats and code the plugin cannot read must be rejected"

# case id -> the risky call: PJRT function judged, case in pjrt_cts.testing.robustness_cases, its keyword arguments
ENUM_CASES: dict[str, RiskyCase] = {
    "buffer_type_invalid_0": RiskyCase("Client_BufferFromHostBuffer", "buffer_from_host", {"type": 0}),
    "buffer_type_999": RiskyCase("Client_BufferFromHostBuffer", "buffer_from_host", {"type": 999}),
    "buffer_type_negative": RiskyCase("Client_BufferFromHostBuffer", "buffer_from_host", {"type": -1}),
    "host_buffer_semantics_99": RiskyCase("Client_BufferFromHostBuffer", "buffer_from_host", {"semantics": 99}),
    "device_layout_type_7": RiskyCase("Client_BufferFromHostBuffer", "buffer_from_host", {"layout_type": 7}),
    "create_option_value_type_99": RiskyCase("Client_Create", "client_create_with_bad_option", {"value_type": 99}),
    "to_host_layout_type_9": RiskyCase("Buffer_ToHostBuffer", "to_host_layout_type_9"),
    "event_set_error_code_99": RiskyCase("Event_Set", "event_set_error_code_99"),
}


@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(row.function))
                                  for name, row in sorted(ENUM_CASES.items())])
def test_invalid_enum_value_is_rejected(risky_call: Any, case: str) -> None:
    row = ENUM_CASES[case]
    # An unknown error code given to Event_Set only labels the event's error: mapping it is a hardening matter.
    risky_call(f"enum-{case}", row.case, row.kwargs, function=f"PJRT_{row.function}", contract=ENUM_CONTRACT,
               covered=True, accept_is_warning=row.function == "Event_Set")


F32_4 = (4, "float32")  # an argument of the right shape: (element count, dtype) of a buffer of ones

SHAPE_CASES: dict[str, RiskyCase] = {
    "negative_dim": RiskyCase("Client_BufferFromHostBuffer", "buffer_from_host", {"dims": (-4, 0)}),
    "byte_strides_count_differs_from_dims": RiskyCase("Client_BufferFromHostBuffer", "buffer_from_host",
                                                      {"strides": (4, 4), "num_strides": 2}),
    "execute_with_wrong_shape": RiskyCase("LoadedExecutable_Execute", "execute",
                                          {"arguments": [(8, "float32"), (8, "float32")]}),
    "execute_with_wrong_element_type": RiskyCase("LoadedExecutable_Execute", "execute",
                                                 {"arguments": [(4, "int32"), (4, "int32")]}),
    "execute_with_too_few_arguments": RiskyCase("LoadedExecutable_Execute", "execute", {"arguments": [F32_4]}),
    "execute_on_more_devices_than_compiled_for": RiskyCase("LoadedExecutable_Execute", "execute",
                                                           {"arguments": [F32_4, F32_4], "devices": 2}),
    "to_host_buffer_dst_too_small": RiskyCase("Buffer_ToHostBuffer", "to_host_buffer_dst_too_small"),
    "default_device_assignment_buffer_too_small": RiskyCase("Client_DefaultDeviceAssignment",
                                                            "default_device_assignment", {"num_replicas": 2}),
    "default_device_assignment_zero_replicas": RiskyCase("Client_DefaultDeviceAssignment",
                                                         "default_device_assignment", {"num_replicas": 0}),
    "lookup_device_out_of_range": RiskyCase("Client_LookupDevice", "lookup_device_out_of_range"),
    "copy_raw_to_host_beyond_the_buffer": RiskyCase("Buffer_CopyRawToHost", "copy_raw_to_host_beyond_the_buffer"),
}


@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(row.function))
                                  for name, row in sorted(SHAPE_CASES.items())])
def test_mismatched_dims_or_sizes_are_rejected(risky_call: Any, case: str) -> None:
    """Dims and sizes that differ, and a same-size argument of another element type (its values would be
    reinterpreted: judged here only; a same-size argument of another shape or rank is execute.argument_errors')."""
    row = SHAPE_CASES[case]
    risky_call(f"shape-{case}", row.case, row.kwargs, function=f"PJRT_{row.function}", contract=SHAPE_CONTRACT,
               covered=True)


STRUCT_SIZE_CASES: dict[str, RiskyCase] = {
    "Client_Compile_Args-1": RiskyCase("Client_Compile", "compile_args_struct_size_1"),
    "Client_BufferFromHostBuffer_Args-8": RiskyCase("Client_BufferFromHostBuffer", "buffer_from_host",
                                                    {"args_struct_size": 8}),
    "LoadedExecutable_Execute_Args-16": RiskyCase("LoadedExecutable_Execute", "execute",
                                                  {"arguments": [F32_4], "repeat": 2, "args_struct_size": 16}),
    "nested_Program-0": RiskyCase("Client_Compile", "compile_program_struct_size_0"),
    "nested_ExecuteOptions-0": RiskyCase("LoadedExecutable_Execute", "execute",
                                         {"arguments": [F32_4], "repeat": 2, "options_struct_size": 0}),
    "nested_NamedValue-0": RiskyCase("Client_Create", "client_create_with_bad_option", {"struct_size": 0}),
    "nested_MemoryLayout-0": RiskyCase("Client_BufferFromHostBuffer", "buffer_from_host",
                                       {"tiled_layout_struct_size_0": True}),
}


@pytest.mark.parametrize("case", [pytest.param(name, marks=requires(row.function))
                                  for name, row in sorted(STRUCT_SIZE_CASES.items())])
def test_wrong_struct_size_is_rejected(risky_call: Any, case: str) -> None:
    """Args structs: must be rejected. Nested input structs (PJRT_Program, PJRT_ExecuteOptions...): a plugin
    that reads them without checking their struct_size gets a WARNING (hardening), a crash is a FAIL."""
    row = STRUCT_SIZE_CASES[case]
    risky_call(f"struct-size-{case}", row.case, row.kwargs, function=f"PJRT_{row.function}", contract=SIZE_CONTRACT,
               covered=True, codes=("INVALID_ARGUMENT",), accept_is_warning=case.startswith("nested_"))


# case id -> keyword arguments of the case compile_program
FORMAT_CASES: dict[str, dict[str, Any]] = {
    "unknown_format": {"fmt": "bogus"},
    "empty_format": {"fmt": ""},
    "empty_code": {"code": b""},
    "hlo_format_with_mlir_text": {"fmt": "hlo"},
    "mlir_bytecode_header_only": {"code": b"ML\xefR"},
}


@pytest.mark.parametrize("case", sorted(FORMAT_CASES))
def test_unreadable_program_is_rejected(risky_call: Any, case: str) -> None:
    risky_call(f"format-{case}", "compile_program", FORMAT_CASES[case], function="PJRT_Client_Compile",
               contract=FORMAT_CONTRACT, covered=True)


# The program text (or format) ends exactly at a page boundary followed by an inaccessible page: a plugin that
# reads beyond code_size (assuming a NUL terminator the API does not promise) faults here reliably.
# case id -> the risky call (PJRT_Client_Compile)
_COMPLETE = (b"module @m {\n  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
             b"    return %arg0 : tensor<4xf32>\n  }\n}")
_TRUNCATED = b"module @m {\n  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n    %0 = stablehlo.add %arg0, %"
OVERREAD_CASES: dict[str, RiskyCase] = {
    "code": RiskyCase("Client_Compile", "compile_code_at_page_end", {"code": _COMPLETE}),
    "truncated_code": RiskyCase("Client_Compile", "compile_code_at_page_end", {"code": _TRUNCATED}),
    "format": RiskyCase("Client_Compile", "compile_format_at_page_end"),
}


@pytest.mark.parametrize("case", sorted(OVERREAD_CASES))
def test_compile_reads_no_further_than_the_sizes_given(risky_call: Any, case: str) -> None:
    """PJRT_Program gives code/format as (pointer, size) without a terminator: the plugin must not read past it.

    A complete program must compile; a truncated one must fail cleanly."""
    row = OVERREAD_CASES[case]
    contract = "PJRT_Program code/format are (pointer, size): nothing beyond size may be read"
    risky_call(f"overread-{case}", row.case, row.kwargs, function=f"PJRT_{row.function}", contract=contract,
               covered=True, expect_success=case != "truncated_code")


def test_compile_reads_no_further_than_code_size_for_bytecode(risky_call: Any) -> None:
    """A portable artifact cut in half, ending at a page boundary: must fail cleanly (bytecode readers
    follow lengths and offsets inside the data, so they are the likelier ones to run past its end)."""
    from pjrt_cts.fuzz.seeds import BUILTIN_SEEDS, bytecode_corpus

    try:
        (_, artifact), = bytecode_corpus([BUILTIN_SEEDS[0]], (1, 17, 0))
    except LookupError as error:  # no stored artifact and no jaxlib to serialize one
        environment_lacks(str(error))
    risky_call("overread-truncated_bytecode", "compile_code_at_page_end", {"code": artifact[: len(artifact) // 2]},
               function="PJRT_Client_Compile",
               contract="PJRT_Program code/format are (pointer, size): nothing beyond size may be read", covered=True)
