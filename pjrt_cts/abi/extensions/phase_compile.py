"""PJRT_PhaseCompile_Extension (xla/pjrt/c/pjrt_c_api_phase_compile_extension.h, version 1): a compiler whose
phases run one at a time on serialized programs (PjRtPartialProgramProto), and the names of its phases."""
from __future__ import annotations

from ctypes import c_size_t, c_void_p

from pjrt_cts.abi.base import HEADER, PjrtStruct, finalize_struct_sizes
from pjrt_cts.abi.structs import PJRT_Extension_Base


class PJRT_PhaseCompile_Extension(PjrtStruct):
    # The first published version (June 2025) ended at phase_compile_get_phase_names (struct_size 56).
    _fields_ = [
        ("base", PJRT_Extension_Base),  # @0
        ("phase_compile_get_compiler", c_void_p),  # @24
        ("phase_compile_destroy_compiler", c_void_p),  # @32 void function
        ("phase_compile_run_phases", c_void_p),  # @40
        ("phase_compile_get_phase_names", c_void_p),  # @48
        ("phase_compile_c_buffers_destroy", c_void_p),  # @56 void function
    ]


class PJRT_PhaseCompile_Get_Compiler_Args(PjrtStruct):
    _fields_ = HEADER + [("phase_compiler", c_void_p)]  # @16 out


class PJRT_PhaseCompile_Destroy_Compiler_Args(PjrtStruct):
    _fields_ = HEADER + [("phase_compiler", c_void_p)]  # @16


class PJRT_PhaseCompile_Run_Phase_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("phase_compiler", c_void_p),  # @16
        ("input_programs", c_void_p),  # @24 const char**: serialized PjRtPartialProgramProto
        ("input_programs_sizes", c_void_p),  # @32 const size_t*
        ("num_input_programs", c_size_t),  # @40
        ("phases_to_run", c_void_p),  # @48 const char**
        ("phases_to_run_sizes", c_void_p),  # @56
        ("num_phases_to_run", c_size_t),  # @64
        ("compile_options", c_void_p),  # @72 serialized CompileOptionsProto
        ("compile_options_size", c_size_t),  # @80
        ("topology", c_void_p),  # @88
        ("output_programs", c_void_p),  # @96 out: freed with phase_compile_c_buffers_destroy
        ("output_programs_sizes", c_void_p),  # @104 out
        ("num_output_programs", c_size_t),  # @112 out
    ]


class PJRT_PhaseCompile_Get_PhaseNames_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("phase_compiler", c_void_p),  # @16
        ("phase_names", c_void_p),  # @24 out: freed with phase_compile_c_buffers_destroy
        ("phase_names_sizes", c_void_p),  # @32 out
        ("num_phase_names", c_size_t),  # @40 out
    ]


class PJRT_PhaseCompile_C_Buffers_Destroy_Args(PjrtStruct):
    _fields_ = HEADER + [
        ("char_buffers", c_void_p),  # @16
        ("char_buffer_sizes", c_void_p),  # @24
        ("num_char_buffers", c_size_t),  # @32
    ]


finalize_struct_sizes(globals())
