"""LAYOUTS (pjrt_c_api_layouts_extension.h): every function of the extension, as JAX calls them on every jit
compile (parameter and output layouts), for `client.get_default_layout`, DLPack import and `x.format`.

Layouts serialize to XLA layout text (`{1,0}`) whose minor_to_major is a permutation of the dimensions; a buffer
made without a layout has the client's default; an executable's layouts match its program (counts, ranks, the
optimized program's entry layouts) and are the executable's to own: read after other calls, never destroyed."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.runtime import BufferType
from pjrt_cts.runtime.aot import client_topology
from pjrt_cts.runtime.extensions.layouts import (buffer_layout, client_default_layout, destroy_layout, output_layouts,
                                                 parameter_layouts, parse_layout_text, topology_default_layout)
from pjrt_cts.testing import requires, unsupported_if_unimplemented
from pjrt_cts.testing.extension_programs import ANOTHER_TRANSPOSE, TWO_IN_TWO_OUT_RANKS, two_in_two_out_inputs
from pjrt_cts.testing.hlo_program_shape import entry_layouts

pytestmark = requires(extension="LAYOUTS")

ELEMENT_TYPES = [BufferType.F32, BufferType.F64, BufferType.F16, BufferType.BF16, BufferType.S8, BufferType.S16,
                 BufferType.S32, BufferType.S64, BufferType.U8, BufferType.U32, BufferType.PRED, BufferType.C64]
SHAPES = [(), (5,), (2, 3), (2, 3, 4), (2, 1, 3, 2)]
UPLOADS: list[np.ndarray] = [np.zeros((2, 3), np.float32), np.arange(4, dtype=np.int32), np.ones((2, 3, 4), np.float64),
           np.array(True), np.zeros((3, 1, 2), np.uint8)]


def _permutation(text: str, rank: int, what: str) -> tuple[int, ...]:
    try:
        parsed = parse_layout_text(text)
    except ValueError as error:
        raise AssertionError(f"LAYOUTS.MemoryLayout_Serialize of {what}: {error}") from None
    assert sorted(parsed.minor_to_major) == list(range(rank)), (
        f"LAYOUTS.MemoryLayout_Serialize of {what} gave {text!r}: minor_to_major should be a permutation of "
        f"0..{rank - 1}")
    return parsed.minor_to_major


@pytest.mark.parametrize("element_type", ELEMENT_TYPES, ids=lambda t: t.name.lower())
def test_client_default_layouts_are_permutations(client: Any, element_type: BufferType) -> None:
    for dims in SHAPES:
        with unsupported_if_unimplemented("LAYOUTS.Client_GetDefaultLayout"):
            layout = client_default_layout(client, element_type, dims)
        with layout:
            _permutation(layout.serialize(), len(dims), f"the client's default {element_type.name} {list(dims)} layout")


def test_buffer_layout_is_the_client_default_when_none_was_asked(client: Any, device: Any) -> None:
    for array in UPLOADS:
        buffer = client.buffer_from_numpy(array, device)
        with buffer_layout(buffer) as actual, client_default_layout(client, buffer.element_type, array.shape) as default:
            assert actual.serialize() == default.serialize(), (
                f"LAYOUTS.Buffer_MemoryLayout of a {array.dtype} {list(array.shape)} buffer made without a layout is "
                f"{actual.serialize()!r}; LAYOUTS.Client_GetDefaultLayout says {default.serialize()!r}")


def test_topology_default_layout_equals_client_default(client: Any) -> None:
    topology = client_topology(client)
    for element_type in (BufferType.F32, BufferType.S8, BufferType.PRED):
        for dims in SHAPES:
            with topology_default_layout(client.plugin, topology, element_type, dims) as from_topology, \
                    client_default_layout(client, element_type, dims) as from_client:
                assert from_topology.serialize() == from_client.serialize(), (
                    f"LAYOUTS.Topology_GetDefaultLayout of the client's topology for {element_type.name} {list(dims)} "
                    f"is {from_topology.serialize()!r}, LAYOUTS.Client_GetDefaultLayout {from_client.serialize()!r}")


def test_executable_layout_counts_and_ranks_match_the_program(two_in_two_out: Any) -> None:
    executable = two_in_two_out.executable
    for function, layouts, ranks in (("Executable_GetParameterLayouts", parameter_layouts(executable),
                                      TWO_IN_TWO_OUT_RANKS[0]),
                                     ("Executable_GetOutputLayouts", output_layouts(executable),
                                      TWO_IN_TWO_OUT_RANKS[1])):
        assert len(layouts) == len(ranks), (
            f"LAYOUTS.{function} returned {len(layouts)} layouts for a program with {len(ranks)}")
        for index, (layout, rank) in enumerate(zip(layouts, ranks)):
            _permutation(layout.serialize(), rank, f"{function}[{index}] (rank {rank})")


def test_executable_layouts_agree_with_the_optimized_program(two_in_two_out: Any) -> None:
    executable = two_in_two_out.executable
    program_format, code = executable.optimized_program()
    if program_format not in ("hlo", "hlo_with_config"):
        pytest.skip(f"not applicable: PJRT_Executable_OptimizedProgram is {program_format!r}, not an HloModuleProto")
    declared_parameters, declared_outputs = entry_layouts(program_format, code)
    for function, layouts, declared in (("Executable_GetParameterLayouts", parameter_layouts(executable),
                                         declared_parameters),
                                        ("Executable_GetOutputLayouts", output_layouts(executable), declared_outputs)):
        reported = [parse_layout_text(layout.serialize()).minor_to_major for layout in layouts]
        assert reported == [tuple(d) if d is not None else () for d in declared], (
            f"LAYOUTS.{function} says minor_to_major {reported}; the optimized program's entry layouts are {declared}")


def test_executable_owned_layouts_stay_readable_after_other_calls(client: Any, two_in_two_out: Any) -> None:
    """The header: layout data is owned by and lives as long as the executable. The caller never destroys them."""
    executable = two_in_two_out.executable
    parameters, outputs = parameter_layouts(executable), output_layouts(executable)
    before = [layout.serialize() for layout in parameters + outputs]
    other = client.compile(ANOTHER_TRANSPOSE)
    parameter_layouts(other.executable), output_layouts(other.executable)
    two_in_two_out.execute([client.buffer_from_numpy(a) for a in two_in_two_out_inputs()])
    after = [layout.serialize() for layout in parameters + outputs]
    assert after == before, (
        f"the executable's layouts read {before} at first and {after} after another compile and an execute: "
        "layouts the executable owns must stay valid and unchanged for its lifetime")


def test_output_buffers_have_the_executable_output_layouts(client: Any, two_in_two_out: Any) -> None:
    outputs = two_in_two_out.execute([client.buffer_from_numpy(a) for a in two_in_two_out_inputs()])
    expected = [layout.serialize() for layout in output_layouts(two_in_two_out.executable)]
    for index, (buffer, wanted) in enumerate(zip(outputs, expected)):
        with buffer_layout(buffer) as actual:
            assert actual.serialize() == wanted, (
                f"LAYOUTS.Buffer_MemoryLayout of output {index} is {actual.serialize()!r}; "
                f"LAYOUTS.Executable_GetOutputLayouts says {wanted!r}")


def test_destroying_a_null_layout_is_harmless(plugin: Any, client: Any) -> None:
    """The header: `layout` can be nullptr."""
    destroy_layout(plugin, None)
    with client_default_layout(client, BufferType.F32, (2, 3)) as layout:
        assert parse_layout_text(layout.serialize()).minor_to_major  # the extension still answers

