"""The entry layouts an HloModuleProto declares (its host_program_shape), read with the runtime's protobuf reader:
what PJRT_Executable_OptimizedProgram says about an executable's parameter and output layouts."""
from __future__ import annotations

from pjrt_cts.runtime.protobuf_wire import LENGTH_DELIMITED, iter_fields, repeated_varints

_WITH_CONFIG_MODULE = 1  # HloModuleProtoWithConfig.hlo_module
_HOST_PROGRAM_SHAPE = 4  # HloModuleProto.host_program_shape
_PARAMETERS, _RESULT = 1, 2  # ProgramShapeProto
_TUPLE_SHAPES, _LAYOUT = 4, 5  # ShapeProto
_MINOR_TO_MAJOR = 1  # LayoutProto


def entry_layouts(program_format: str, code: bytes) -> tuple[list[tuple[int, ...] | None], list[tuple[int, ...] | None]]:
    """(parameters' minor_to_major, outputs' minor_to_major) of an optimized program in format "hlo" or
    "hlo_with_config" (None where a shape has no layout); a tuple result is its elements."""
    module = _field(code, _WITH_CONFIG_MODULE) if program_format == "hlo_with_config" else code
    if module is None:
        raise ValueError("HloModuleProtoWithConfig without hlo_module")
    shape = _field(module, _HOST_PROGRAM_SHAPE)
    if shape is None:
        raise ValueError("HloModuleProto without host_program_shape")
    parameters = [_minor_to_major(v) for f, w, v in iter_fields(shape) if f == _PARAMETERS and isinstance(v, bytes)]
    result = _field(shape, _RESULT) or b""
    elements = [v for f, w, v in iter_fields(result) if f == _TUPLE_SHAPES and isinstance(v, bytes)]
    return parameters, [_minor_to_major(e) for e in elements] if elements else [_minor_to_major(result)]


def _field(message: bytes, number: int) -> bytes | None:
    return next((v for f, w, v in iter_fields(message) if f == number and w == LENGTH_DELIMITED
                 and isinstance(v, bytes)), None)


def _minor_to_major(shape: bytes) -> tuple[int, ...] | None:
    layout = _field(shape, _LAYOUT)
    if layout is None:
        return None
    return tuple(v for number, wire, value in iter_fields(layout) if number == _MINOR_TO_MAJOR
                 for v in repeated_varints(wire, value))
