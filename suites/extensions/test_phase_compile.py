"""PHASE_COMPILE (pjrt_c_api_phase_compile_extension.h, experimental): a phase compiler the caller gets and
destroys, the names of its phases, and phases run on serialized partial programs (PjRtPartialProgramProto). Every
function of the extension is required by the header.

Which program formats a phase consumes is the plugin's choice (the proto leaves it to the plugin): the suite checks
the compiler's lifecycle, its phase names and how run_phases refuses what no plugin can run."""
from __future__ import annotations

from typing import Any

from pjrt_cts.runtime.aot import client_topology
from pjrt_cts.runtime.compile_options import compile_options_bytes
from pjrt_cts.runtime.extensions.phase_compile import PhaseCompiler, phase_names, run_phases
from pjrt_cts.runtime.protobuf_wire import bytes_field
from pjrt_cts.testing import expect_rejection, requires

pytestmark = requires(extension="PHASE_COMPILE")
# A PjRtPartialProgramProto: program (1), program_format (2), producer_phase (3), consumer_phases (4).
NO_SUCH_PHASE = "pjrt_cts_no_such_phase"
ADD_TEXT = b"func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> { return %a : tensor<2xf32> }"
PARTIAL_PROGRAM = (bytes_field(1, ADD_TEXT) + bytes_field(2, b"mlir") + bytes_field(3, b"n/a")
                   + bytes_field(4, NO_SUCH_PHASE.encode()))


def test_phase_compiler_lists_its_phases(plugin: Any) -> None:
    with PhaseCompiler(plugin) as compiler:
        names = compiler.phase_names()
        assert names, "PHASE_COMPILE.get_phase_names lists no phase"
        assert all(names) and len(set(names)) == len(names), f"phase names should be non-empty and unique: {names}"
        assert compiler.phase_names() == names, "PHASE_COMPILE.get_phase_names answers differently on a second call"


def test_phase_compilers_are_independent(plugin: Any) -> None:
    """Two compilers at once; destroying one leaves the other usable."""
    with PhaseCompiler(plugin) as first:
        with PhaseCompiler(plugin) as second:
            assert second.handle != first.handle, "PHASE_COMPILE.get_compiler returned the same compiler twice"
            names = second.phase_names()
        assert first.phase_names() == names, "a compiler's phases changed when another compiler was destroyed"


def test_run_phases_rejects_an_unknown_phase(plugin: Any, client: Any) -> None:
    topology, options = client_topology(client), compile_options_bytes(1, 1, None, False)
    with PhaseCompiler(plugin) as compiler:
        expect_rejection(lambda: compiler.run_phases([PARTIAL_PROGRAM], [NO_SUCH_PHASE], options, topology),
                         control=compiler.phase_names, function="PHASE_COMPILE.run_phases",
                         codes=("INVALID_ARGUMENT", "NOT_FOUND"), what=f"a phase named {NO_SUCH_PHASE!r}")


def _compiler_works(plugin: Any) -> None:
    """The control of a NULL-compiler call: the same query through a real compiler."""
    with PhaseCompiler(plugin) as compiler:
        compiler.phase_names()


def test_get_phase_names_rejects_a_null_compiler(plugin: Any) -> None:
    expect_rejection(lambda: phase_names(plugin, None), control=lambda: _compiler_works(plugin),
                     function="PHASE_COMPILE.get_phase_names", tolerated=("INTERNAL",), what="a NULL phase compiler")


def test_run_phases_rejects_a_null_compiler(plugin: Any, client: Any) -> None:
    topology, options = client_topology(client), compile_options_bytes(1, 1, None, False)
    expect_rejection(lambda: run_phases(plugin, None, [PARTIAL_PROGRAM], [NO_SUCH_PHASE], options, topology),
                     control=lambda: _compiler_works(plugin), function="PHASE_COMPILE.run_phases",
                     tolerated=("INTERNAL",), what="a NULL phase compiler")
