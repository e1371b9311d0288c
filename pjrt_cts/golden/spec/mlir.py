"""StableHLO program text for spec-reference cases, written directly (no JAX lowering).

Ops are written in MLIR's generic form (`"stablehlo.add"(%a, %b) : (...) -> ...`), which every op
accepts, so a case's program states its op, attributes and types exactly as the spec does.
"""
from __future__ import annotations

from typing import Sequence

from pjrt_cts.golden.spec.registry import TensorType
from pjrt_cts.golden.spec.types import mlir_type


def tensor(t: TensorType) -> str:
    return mlir_type(t.shape, t.dtype)


def generic_op(name: str, operands: Sequence[str], operand_types: Sequence[TensorType],
               result_types: Sequence[TensorType], attributes: str = "", regions: Sequence[str] = (),
               results: str = "%0") -> str:
    """One op in generic form. `name` without the `stablehlo.` prefix; `attributes` is the text between
    the braces (`comparison_direction = #stablehlo<comparison_direction LT>`); each region is a complete
    `{ ^bb0(...): ... }` text (see `region`)."""
    ins = ", ".join(tensor(t) for t in operand_types)
    outs = ", ".join(tensor(t) for t in result_types)
    outs = outs if len(result_types) == 1 else f"({outs})"
    attr_text = f" {{{attributes}}}" if attributes else ""
    region_text = f" ({', '.join(regions)})" if regions else ""
    lhs = f"{results} = " if result_types else ""
    return f'{lhs}"stablehlo.{name}"({", ".join(operands)}){region_text}{attr_text} : ({ins}) -> {outs}'


def region(arguments: Sequence[TensorType], lines: Sequence[str], returned: Sequence[str],
           returned_types: Sequence[TensorType]) -> str:
    """A single-block region: block arguments %ra0, %ra1, ...; `lines` compute; `returned` are returned."""
    args = ", ".join(f"%ra{i}: {tensor(t)}" for i, t in enumerate(arguments))
    body = "\n      ".join(lines)
    ret = f'"stablehlo.return"({", ".join(returned)}) : ({", ".join(tensor(t) for t in returned_types)}) -> ()'
    return "{\n    ^bb0(" + args + "):\n      " + (body + "\n      " if body else "") + ret + "\n    }"


def binary_region(dtype: str, op: str) -> str:
    """A reduction body `^bb0(%ra0, %ra1): return op(%ra0, %ra1)` on rank-0 tensors of `dtype`."""
    scalar = TensorType((), dtype)
    line = generic_op(op, ["%ra0", "%ra1"], [scalar, scalar], [scalar], results="%rr")
    return region([scalar, scalar], [line], ["%rr"], [scalar])


def module(arguments: Sequence[TensorType], results: Sequence[TensorType], body: Sequence[str],
           returned: Sequence[str], *, num_replicas: int = 1, num_partitions: int = 1) -> str:
    """A module with one public `@main(%arg0, %arg1, ...)` whose body is `body` and returns `returned`."""
    args = ", ".join(f"%arg{i}: {tensor(t)}" for i, t in enumerate(arguments))
    outs = ", ".join(tensor(t) for t in results)
    lines = "\n    ".join(body)
    ret = f"return {', '.join(returned)} : {outs}" if results else "return"
    return (f"module @spec attributes {{mhlo.num_partitions = {num_partitions} : i32, "
            f"mhlo.num_replicas = {num_replicas} : i32}} {{\n"
            f"  func.func public @main({args}) -> ({outs}) {{\n    {lines}\n    {ret}\n  }}\n}}\n")


def single_op_module(name: str, operand_types: Sequence[TensorType], result_types: Sequence[TensorType],
                     attributes: str = "", regions: Sequence[str] = ()) -> str:
    """`@main` applies one op to its arguments and returns its results."""
    operands = [f"%arg{i}" for i in range(len(operand_types))]
    if len(result_types) == 1:
        line = generic_op(name, operands, operand_types, result_types, attributes, regions)
        returned = ["%0"]
    else:
        line = generic_op(name, operands, operand_types, result_types, attributes, regions,
                          results=f"%0:{len(result_types)}")
        returned = [f"%0#{i}" for i in range(len(result_types))]
    return module(operand_types, result_types, [line], returned)
