"""PHASE_COMPILE: a phase compiler (get / destroy), its phase names, and running phases on serialized programs."""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Sequence

from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions import phase_compile as abi
from pjrt_cts.runtime.extensions.calls import call, call_void, read_byte_strings
from pjrt_cts.runtime.handles import OwnedHandle

if TYPE_CHECKING:
    from pjrt_cts.runtime.plugin import Plugin

PHASE_COMPILE = ExtensionType.PHASE_COMPILE


class PhaseCompiler(OwnedHandle):
    """get_compiler's PJRT_PhaseCompiler; destroy_compiler on close()."""

    def __init__(self, plugin: "Plugin") -> None:
        self.plugin = plugin
        args = call(plugin, PHASE_COMPILE, "get_compiler", abi.PJRT_PhaseCompile_Get_Compiler_Args())

        def destroy(h: int) -> None:
            call_void(plugin, PHASE_COMPILE, "destroy_compiler", abi.PJRT_PhaseCompile_Destroy_Compiler_Args(
                phase_compiler=h))

        self._own(int(args.phase_compiler or 0), destroy)

    def phase_names(self) -> list[str]:
        return [name.decode("utf-8", errors="replace") for name in phase_names(self.plugin, self.handle)]

    def run_phases(self, programs: Sequence[bytes], phases: Sequence[str], compile_options: bytes,
                   topology: int) -> list[bytes]:
        return run_phases(self.plugin, self.handle, programs, phases, compile_options, topology)


def phase_names(plugin: "Plugin", compiler: int | None) -> list[bytes]:
    """get_phase_names; the plugin's arrays are copied, then freed with c_buffers_destroy."""
    args = call(plugin, PHASE_COMPILE, "get_phase_names", abi.PJRT_PhaseCompile_Get_PhaseNames_Args(
        phase_compiler=compiler))
    names = read_byte_strings(args.phase_names, args.phase_names_sizes, args.num_phase_names)
    _free(plugin, args.phase_names, args.phase_names_sizes, args.num_phase_names)
    return names


def run_phases(plugin: "Plugin", compiler: int | None, programs: Sequence[bytes], phases: Sequence[str],
               compile_options: bytes, topology: int | None) -> list[bytes]:
    """run_phases: serialized PjRtPartialProgramProtos in, the phases' output programs out (copied, then freed)."""
    keep = [ctypes.create_string_buffer(p, max(1, len(p))) for p in programs]
    names = [ctypes.create_string_buffer(n.encode(), len(n) + 1) for n in phases]
    options = ctypes.create_string_buffer(compile_options, max(1, len(compile_options)))
    program_ptrs = (ctypes.c_void_p * max(1, len(keep)))(*[ctypes.addressof(b) for b in keep])
    program_sizes = (ctypes.c_size_t * max(1, len(keep)))(*[len(p) for p in programs])
    name_ptrs = (ctypes.c_void_p * max(1, len(names)))(*[ctypes.addressof(b) for b in names])
    name_sizes = (ctypes.c_size_t * max(1, len(names)))(*[len(n) for n in phases])
    args = call(plugin, PHASE_COMPILE, "run_phases", abi.PJRT_PhaseCompile_Run_Phase_Args(
        phase_compiler=compiler, input_programs=ctypes.addressof(program_ptrs),
        input_programs_sizes=ctypes.addressof(program_sizes), num_input_programs=len(programs),
        phases_to_run=ctypes.addressof(name_ptrs), phases_to_run_sizes=ctypes.addressof(name_sizes),
        num_phases_to_run=len(phases), compile_options=ctypes.addressof(options),
        compile_options_size=len(compile_options), topology=topology))
    outputs = read_byte_strings(args.output_programs, args.output_programs_sizes, args.num_output_programs)
    _free(plugin, args.output_programs, args.output_programs_sizes, args.num_output_programs)
    return outputs


def _free(plugin: "Plugin", buffers: int | None, sizes: int | None, count: int) -> None:
    """c_buffers_destroy of arrays the plugin returned."""
    call_void(plugin, PHASE_COMPILE, "c_buffers_destroy", abi.PJRT_PhaseCompile_C_Buffers_Destroy_Args(
        char_buffers=buffers, char_buffer_sizes=sizes, num_char_buffers=count))
