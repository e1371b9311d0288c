"""A spec case's program with its operands written as constants in the text (issue 29 item 5).

XLA evaluates an op whose operands are all constants with its constant folder (a second implementation of
every op, not the compiled kernel), and a plugin's parser reads the dense literals: the same values as
arguments take neither path. `with_constant_operands` rewrites a program written by `mlir.module` (public
`@main(%arg0: ..., ...)`) into one whose `@main` takes nothing and defines each `%argN` as a
`stablehlo.constant`, in one of two dense forms:

- `decimal`: nested lists of decimal literals (`true`/`false`, integers, floats printed so that they read back
  exactly; NaN, infinities and complex numbers' special parts as the element's bit pattern in hex, the form
  MLIR gives them);
- `hex`: the whole tensor's little-endian bytes as one hex string (`dense<"0x...">`), for element types of 8,
  16, 32, 64 or 128 bits (MLIR reads i1 and sub-byte types in this form differently from their numpy storage).
"""
from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from pjrt_cts.golden.spec.types import bit_width, class_of, mlir_type

FORMS = ("decimal", "hex")
_MAIN = re.compile(r"func\.func public @main\((?P<args>[^\n]*?)\) -> (?P<rest>[^\n]*)\{\n")
_ARG = re.compile(r"%arg(\d+): ")


def hex_allowed(dtype: str) -> bool:
    return class_of(dtype) != "bool" and bit_width(dtype) in (8, 16, 32, 64, 128)


def forms_for(dtypes: Sequence[str]) -> tuple[str, ...]:
    """The dense forms a case's constant variants are written in: decimal always, hex where every operand's
    element type has it."""
    return FORMS if all(hex_allowed(d) for d in dtypes) else ("decimal",)


def _bits_hex(value: np.ndarray) -> str:
    """A scalar's bit pattern as an MLIR hex integer literal (how MLIR writes NaN and infinity elements)."""
    raw = value.reshape(1).view(np.uint8).tobytes()
    return "0x" + raw[::-1].hex().upper()


def _float_text(value: np.ndarray) -> str:
    as_float = float(value.astype(np.float64))
    if not np.isfinite(as_float):
        return _bits_hex(value)
    text = repr(as_float)  # shortest decimal that reads back as this double, which holds the value exactly
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"  # MLIR's float literal needs a point
    return mantissa + (f"e{exponent}" if exponent else "")


def _element_text(value: np.ndarray, dtype: str) -> str:
    kind = class_of(dtype)
    if kind == "bool":
        return "true" if bool(value) else "false"
    if kind in ("signed", "unsigned"):
        return str(int(value))
    if kind == "complex":
        part = np.float32 if dtype == "c64" else np.float64
        return f"({_float_text(np.asarray(value.real, part))}, {_float_text(np.asarray(value.imag, part))})"
    return _float_text(value)


def _nested(array: np.ndarray, dtype: str) -> str:
    if array.ndim == 0:
        return _element_text(array, dtype)
    return "[" + ", ".join(_nested(array[index], dtype) for index in range(array.shape[0])) + "]"


def dense_literal(array: np.ndarray, dtype: str, form: str) -> str:
    """`dense<...>` holding `array` (of element type `dtype`) in `form`."""
    if array.size == 0:
        return "dense<>"
    if form == "hex":
        if not hex_allowed(dtype):
            raise ValueError(f"{dtype} has no hex dense form here")
        return f'dense<"0x{np.ascontiguousarray(array).view(np.uint8).tobytes().hex().upper()}">'
    if form != "decimal":
        raise ValueError(f"form must be one of {FORMS}, not {form!r}")
    return f"dense<{_nested(array, dtype)}>"


def _constant_lines(operands: Sequence[np.ndarray], dtypes: Sequence[str], form: str) -> list[str]:
    return [f"    %arg{number} = stablehlo.constant {dense_literal(array, dtype, form)} : {mlir_type(array.shape, dtype)}\n"
            for number, (array, dtype) in enumerate(zip(operands, dtypes))]


def echo_module(operands: Sequence[np.ndarray], dtypes: Sequence[str], form: str) -> str:
    """A module whose @main returns the operands as constants: run, it must give them back bit for bit (the check
    that the literals hold exactly the operands)."""
    types = ", ".join(mlir_type(array.shape, dtype) for array, dtype in zip(operands, dtypes))
    names = ", ".join(f"%arg{number}" for number in range(len(operands)))
    return ("module @echo {\n  func.func public @main() -> (" + types + ") {\n"
            + "".join(_constant_lines(operands, dtypes, form)) + f"    return {names} : {types}\n  }}\n}}\n")


def with_constant_operands(text: str, operands: Sequence[np.ndarray], dtypes: Sequence[str], form: str) -> str:
    """`text` (a module from `mlir.module`) with every argument of `@main` replaced by a constant holding the
    corresponding operand."""
    match = _MAIN.search(text)
    if match is None:
        raise ValueError("no public @main(...) -> ... { line")
    pieces = _ARG.split(match["args"])[1:]  # number, declaration, number, declaration, ...
    numbers = [int(n) for n in pieces[0::2]]
    if numbers != list(range(len(operands))):
        raise ValueError(f"@main takes arguments {numbers}, {len(operands)} operands given")
    for number, (array, dtype) in enumerate(zip(operands, dtypes)):
        declared = mlir_type(array.shape, dtype)
        if not pieces[2 * number + 1].rstrip(", ").startswith(declared):
            raise ValueError(f"%arg{number} is declared {pieces[2 * number + 1]!r}, the operand is {declared}")
    head = text[:match.start()] + f"func.func public @main() -> {match['rest']}{{\n"
    return head + "".join(_constant_lines(operands, dtypes, form)) + text[match.end():]
