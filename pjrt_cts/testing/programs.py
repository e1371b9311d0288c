"""Programs the compile, execute and executable layers share, a per-worker cache of compiled executables,
and running a program and comparing its outputs with a reference.

`PROGRAMS` are small hand-written StableHLO modules with a numpy reference; they exercise the executable
contract (name, outputs, errors, concurrency) independent of the golden corpus (pjrt_cts.testing.corpus).

Compiling dominates these layers' run time, so executables are cached per (client, program, source) within a
worker; tests that delete or mutate an executable compile their own.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import dataclasses
import weakref
from typing import Any, Callable, Sequence

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.golden import Tolerance, compare, tolerance_for
from pjrt_cts.golden.compare import merged_evidence
from pjrt_cts.golden import dtypes as golden_dtypes

# ---- hand-written programs ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Program:
    """A StableHLO module (module name == `name`) with deterministic inputs and a numpy reference."""

    name: str
    text: str
    make_inputs: Callable[[np.random.Generator], list[np.ndarray]]
    reference: Callable[..., list[np.ndarray]]
    op_class: str = "exact"  # tolerance class of pjrt_cts.golden.tolerance
    # S of the class's atol basis from the inputs (sum_abs_terms: the largest sum of |terms| feeding one output)
    atol_scale: Callable[..., float] | None = None
    reduced_elements: int = 1  # inputs feeding one output of a reduction

    def inputs(self, seed: int = 0) -> list[np.ndarray]:
        return self.make_inputs(np.random.default_rng(seed))

    def expected(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.asarray(out) for out in self.reference(*inputs)]

    @property
    def output_specs(self) -> list[tuple[tuple[int, ...], np.dtype]]:
        return [(out.shape, out.dtype) for out in self.expected(self.inputs())]

    def tolerance(self, dtype: np.dtype, inputs: Sequence[np.ndarray]) -> Tolerance:
        scale = float(self.atol_scale(*inputs)) if self.atol_scale is not None else None
        return tolerance_for(golden_dtypes.name_of(np.dtype(dtype)), self.op_class,
                             reduced_elements=self.reduced_elements, scale=scale)


def _module(name: str, signature: str, body: str) -> str:
    return f"module @{name} {{\n  func.func public @main({signature} {{\n{body}\n  }}\n}}\n"


def _normal(shape: tuple[int, ...], dtype: Any = np.float32) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.standard_normal(shape).astype(dtype)


def _ints(shape: tuple[int, ...], dtype: Any, low: int = -50, high: int = 50) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.integers(low, high, size=shape).astype(dtype)


def _args(*makers: Callable[[np.random.Generator], np.ndarray]) -> Callable[[np.random.Generator], list[np.ndarray]]:
    return lambda rng: [make(rng) for make in makers]


PROGRAMS: tuple[Program, ...] = (
    Program(
        "add_f32",
        _module("add_f32", "%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32>",
                "    %0 = stablehlo.add %a, %b : tensor<2x3xf32>\n    return %0 : tensor<2x3xf32>"),
        _args(_normal((2, 3)), _normal((2, 3))), lambda a, b: [a + b], "arith"),
    Program(
        "multiply_s32",
        _module("multiply_s32", "%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32>",
                "    %0 = stablehlo.multiply %a, %b : tensor<4xi32>\n    return %0 : tensor<4xi32>"),
        _args(_ints((4,), np.int32), _ints((4,), np.int32)), lambda a, b: [a * b]),
    Program(
        "subtract_f64_scalar",
        _module("subtract_f64_scalar", "%a: tensor<f64>, %b: tensor<f64>) -> tensor<f64>",
                "    %0 = stablehlo.subtract %a, %b : tensor<f64>\n    return %0 : tensor<f64>"),
        _args(_normal((), np.float64), _normal((), np.float64)), lambda a, b: [a - b], "arith"),
    Program(
        "two_outputs_f32",
        _module("two_outputs_f32", "%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)",
                "    %0 = stablehlo.add %a, %b : tensor<3xf32>\n    %1 = stablehlo.subtract %a, %b : tensor<3xf32>\n"
                "    return %0, %1 : tensor<3xf32>, tensor<3xf32>"),
        _args(_normal((3,)), _normal((3,))), lambda a, b: [a + b, a - b], "arith"),
    Program(
        "constant_s32",
        _module("constant_s32", ") -> tensor<3xi32>",
                "    %0 = stablehlo.constant dense<[7, -8, 9]> : tensor<3xi32>\n    return %0 : tensor<3xi32>"),
        _args(), lambda: [np.array([7, -8, 9], dtype=np.int32)]),
    Program(
        "iota_s64",
        _module("iota_s64", ") -> tensor<5xi64>",
                "    %0 = stablehlo.iota dim = 0 : tensor<5xi64>\n    return %0 : tensor<5xi64>"),
        _args(), lambda: [np.arange(5, dtype=np.int64)]),
    Program(
        "reduce_sum_f32",
        _module("reduce_sum_f32", "%a: tensor<4x5xf32>) -> tensor<4xf32>",
                "    %init = stablehlo.constant dense<0.0> : tensor<f32>\n"
                "    %0 = stablehlo.reduce(%a init: %init) applies stablehlo.add across dimensions = [1]"
                " : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>\n    return %0 : tensor<4xf32>"),
        _args(_normal((4, 5))), lambda a: [a.sum(axis=1, dtype=np.float32)], "reduction",
        atol_scale=lambda a: np.abs(a.astype(np.float64)).sum(axis=1).max(), reduced_elements=5),
    Program(
        "dot_f32",
        _module("dot_f32", "%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32>",
                "    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]"
                " : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n    return %0 : tensor<2x4xf32>"),
        _args(_normal((2, 3)), _normal((3, 4))), lambda a, b: [a @ b], "matmul",
        atol_scale=lambda a, b: (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))).max(), reduced_elements=3),
    Program(
        "compare_gt_pred",
        _module("compare_gt_pred", "%a: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<5xi1>",
                "    %0 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>\n"
                "    return %0 : tensor<5xi1>"),
        _args(_normal((5,)), _normal((5,))), lambda a, b: [a > b]),
    Program(
        "select_f32",
        _module("select_f32", "%p: tensor<6xi1>, %a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32>",
                "    %0 = stablehlo.select %p, %a, %b : tensor<6xi1>, tensor<6xf32>\n    return %0 : tensor<6xf32>"),
        _args(lambda rng: rng.integers(0, 2, size=(6,)).astype(np.bool_), _normal((6,)), _normal((6,))),
        lambda p, a, b: [np.asarray(np.where(p, a, b))]),
    Program(
        "convert_f32_s32",
        _module("convert_f32_s32", "%a: tensor<6xf32>) -> tensor<6xi32>",
                "    %0 = stablehlo.convert %a : (tensor<6xf32>) -> tensor<6xi32>\n    return %0 : tensor<6xi32>"),
        _args(lambda rng: (rng.standard_normal((6,)) * 100).astype(np.float32)), lambda a: [a.astype(np.int32)]),
    Program(
        "transpose_f32",
        _module("transpose_f32", "%a: tensor<2x3xf32>) -> tensor<3x2xf32>",
                "    %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
                "    return %0 : tensor<3x2xf32>"),
        _args(_normal((2, 3))), lambda a: [np.ascontiguousarray(a.T)]),
    Program(
        "xor_u8",
        _module("xor_u8", "%a: tensor<8xui8>, %b: tensor<8xui8>) -> tensor<8xui8>",
                "    %0 = stablehlo.xor %a, %b : tensor<8xui8>\n    return %0 : tensor<8xui8>"),
        _args(_ints((8,), np.uint8, 0, 256), _ints((8,), np.uint8, 0, 256)), lambda a, b: [a ^ b]),
    Program(
        "add_f16",
        _module("add_f16", "%a: tensor<8xf16>, %b: tensor<8xf16>) -> tensor<8xf16>",
                "    %0 = stablehlo.add %a, %b : tensor<8xf16>\n    return %0 : tensor<8xf16>"),
        _args(_normal((8,), np.float16), _normal((8,), np.float16)), lambda a, b: [a + b], "arith"),
    Program(
        "negate_bf16",
        _module("negate_bf16", "%a: tensor<2x2xbf16>) -> tensor<2x2xbf16>",
                "    %0 = stablehlo.negate %a : tensor<2x2xbf16>\n    return %0 : tensor<2x2xbf16>"),
        _args(_normal((2, 2), ml_dtypes.bfloat16)), lambda a: [-a]),
    Program(
        "exp_f32",
        _module("exp_f32", "%a: tensor<7xf32>) -> tensor<7xf32>",
                "    %0 = stablehlo.exponential %a : tensor<7xf32>\n    return %0 : tensor<7xf32>"),
        _args(_normal((7,))), lambda a: [np.exp(a.astype(np.float64)).astype(np.float32)], "transcendental"),
    Program(
        "mixed_outputs",
        _module("mixed_outputs", "%a: tensor<2x2xf32>, %n: tensor<i32>) -> (tensor<2x2xf32>, tensor<i32>, tensor<2x2xi1>)",
                "    %0 = stablehlo.multiply %a, %a : tensor<2x2xf32>\n    %1 = stablehlo.add %n, %n : tensor<i32>\n"
                "    %zero = stablehlo.constant dense<0.0> : tensor<2x2xf32>\n"
                "    %2 = stablehlo.compare GT, %a, %zero, FLOAT : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xi1>\n"
                "    return %0, %1, %2 : tensor<2x2xf32>, tensor<i32>, tensor<2x2xi1>"),
        _args(_normal((2, 2)), _ints((), np.int32)), lambda a, n: [a * a, n + n, a > 0], "arith"),
    Program(
        "negate_zero_size_f32",
        _module("negate_zero_size_f32", "%a: tensor<0x3xf32>) -> tensor<0x3xf32>",
                "    %0 = stablehlo.negate %a : tensor<0x3xf32>\n    return %0 : tensor<0x3xf32>"),
        _args(_normal((0, 3))), lambda a: [-a]),
)

PROGRAMS_BY_NAME = {program.name: program for program in PROGRAMS}
PROGRAM_NAMES = [program.name for program in PROGRAMS]
ADD = PROGRAMS_BY_NAME["add_f32"]


def programs_param(names: Sequence[str] | None = None) -> Any:
    """`pytest.mark.parametrize("program", ...)` over hand-written programs with their names as ids."""
    chosen = [PROGRAMS_BY_NAME[name] for name in names] if names is not None else list(PROGRAMS)
    return pytest.mark.parametrize("program", chosen, ids=[p.name for p in chosen])


# ---- compiling with a per-worker cache --------------------------------------------------------------

_cache: "weakref.WeakKeyDictionary[Any, dict[tuple, Any]]" = weakref.WeakKeyDictionary()


def compile_cached(client: Any, key: tuple, compile: Callable[[], Any]) -> Any:
    """The executable for `key` on `client`, compiled once per worker. Callers must not delete it."""
    per_client = _cache.setdefault(client, {})
    executable = per_client.get(key)
    if executable is None or executable.closed:
        executable = per_client[key] = compile()
    return executable


def compiled_program(client: Any, program: Program) -> Any:
    return compile_cached(client, ("program", program.name), lambda: client.compile(program.text))


# ---- running and comparing ---------------------------------------------------------------------------


def run(executable: Any, client: Any, inputs: Sequence[np.ndarray], device: Any = None, **options: Any) -> list[np.ndarray]:
    """Upload `inputs` (to `device` or the executable's device), execute, read back every output."""
    if device is None:
        device = executable.addressable_devices[0]
    buffers = [client.buffer_from_numpy(np.asarray(array), device) for array in inputs]
    outputs = executable.execute(buffers, **options)
    return [out.to_numpy() for out in outputs]


def mismatch_message(what: str, actual: Sequence[np.ndarray], expected: Sequence[np.ndarray],
                     tolerance_of: Callable[[np.dtype], Tolerance]) -> tuple[str | None, dict[str, Any]]:
    """(one-line failure message or None, details): the message and the numeric diff of the first mismatching
    output, and `mismatch`, the evidence of every mismatching output (pjrt_cts.golden.compare.merged_evidence)."""
    if len(actual) != len(expected):
        return f"{what}: returned {len(actual)} outputs, the reference has {len(expected)}", {}
    mismatches = [(index, mismatch) for index, (got, want) in enumerate(zip(actual, expected))
                  if (mismatch := compare(got, want, tolerance_of(want.dtype))) is not None]
    if not mismatches:
        return None, {}
    index, first = mismatches[0]
    details = dict(first.details(), output_index=index)
    evidence = merged_evidence(mismatches)
    if evidence is not None:
        details["mismatch"] = evidence
    return f"{what}: output {index} differs from the reference: {first.message}", details


def assert_matches_program(program: Program, actual: Sequence[np.ndarray], inputs: Sequence[np.ndarray], what: str) -> None:
    __tracebackhide__ = True
    message, _ = mismatch_message(what, actual, program.expected(inputs), lambda dtype: program.tolerance(dtype, inputs))
    assert message is None, message
