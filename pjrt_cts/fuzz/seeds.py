"""Seed programs for the fuzzer and the StableHLO version checks: the golden corpus, or a built-in set.

Each seed is a small single-device StableHLO program with its inputs and numpy-computed expected
outputs, so that callers can both mutate it (robustness) and execute it (versioning).
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Callable, Sequence

if TYPE_CHECKING:
    from pjrt_cts.golden.corpus import GoldenCase

import numpy as np


@dataclasses.dataclass(frozen=True)
class SeedProgram:
    name: str
    text: str
    make_inputs: Callable[[], list[np.ndarray]]
    reference: Callable[[Sequence[np.ndarray]], list[np.ndarray]]
    source: str = "builtin"  # "builtin" or "golden:<case id>"
    bytecode: dict[str, tuple[str, bytes]] = dataclasses.field(default_factory=dict)  # label -> (version, bytes)
    tolerance: Any = None  # pjrt_cts.golden.Tolerance of the expected outputs; None: the caller's default

    def inputs(self) -> list[np.ndarray]:
        return self.make_inputs()

    def expected(self) -> list[np.ndarray]:
        return self.reference(self.make_inputs())


def _f32(*shape: int, offset: float = 0.0) -> np.ndarray:
    return (np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) * 0.5 + offset).astype(np.float32)


_ADD_MUL = """module @add_mul {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    %1 = stablehlo.multiply %0, %arg1 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
"""

_DOT = """module @dot {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> tensor<2x4xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}
"""

_REDUCE = """module @reduce_sum {
  func.func public @main(%arg0: tensor<3x4xf32>) -> tensor<3xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}
"""

_SELECT = """module @relu_select {
  func.func public @main(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<6xf32>
    %0 = stablehlo.compare  GT, %arg0, %cst,  FLOAT : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
    %1 = stablehlo.select %0, %arg0, %cst : tensor<6xi1>, tensor<6xf32>
    return %1 : tensor<6xf32>
  }
}
"""

_RESHAPE = """module @transpose_broadcast {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> tensor<3x2xf32> {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<3xf32>) -> tensor<3x2xf32>
    %2 = stablehlo.subtract %0, %1 : tensor<3x2xf32>
    return %2 : tensor<3x2xf32>
  }
}
"""

_CONVERT = """module @convert_iota {
  func.func public @main(%arg0: tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>) {
    %0 = stablehlo.iota dim = 0 : tensor<5xi32>
    %1 = stablehlo.add %arg0, %0 : tensor<5xi32>
    %2 = stablehlo.convert %1 : (tensor<5xi32>) -> tensor<5xf32>
    %3 = stablehlo.sqrt %2 : tensor<5xf32>
    return %3, %1 : tensor<5xf32>, tensor<5xi32>
  }
}
"""

_WHILE = """module @while_count {
  func.func public @main(%arg0: tensor<i32>) -> tensor<i32> {
    %c = stablehlo.constant dense<10> : tensor<i32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.while(%iterArg = %arg0) : tensor<i32>
    cond {
      %1 = stablehlo.compare  LT, %iterArg, %c,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = stablehlo.add %iterArg, %c_0 : tensor<i32>
      stablehlo.return %1 : tensor<i32>
    }
    return %0 : tensor<i32>
  }
}
"""


def _while_reference(inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.asarray(max(int(inputs[0]), 10), dtype=np.int32)]


def _convert_reference(inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    summed = (inputs[0] + np.arange(5, dtype=np.int32)).astype(np.int32)
    return [np.sqrt(summed.astype(np.float32)), summed]


BUILTIN_SEEDS: tuple[SeedProgram, ...] = (
    SeedProgram("add_mul", _ADD_MUL, lambda: [_f32(4), _f32(4, offset=1.0)],
                lambda x: [(x[0] + x[1]) * x[1]]),
    SeedProgram("dot", _DOT, lambda: [_f32(2, 3), _f32(3, 4, offset=-1.0)], lambda x: [x[0] @ x[1]]),
    SeedProgram("reduce_sum", _REDUCE, lambda: [_f32(3, 4)], lambda x: [x[0].sum(axis=1)]),
    SeedProgram("relu_select", _SELECT, lambda: [_f32(6)], lambda x: [np.where(x[0] > 2.0, x[0], np.float32(2.0))]),
    SeedProgram("transpose_broadcast", _RESHAPE, lambda: [_f32(2, 3), _f32(3, offset=0.25)],
                lambda x: [x[0].T - x[1][:, None]]),
    SeedProgram("convert_iota", _CONVERT, lambda: [np.array([0, 1, 4, 9, 16], dtype=np.int32)], _convert_reference),
    SeedProgram("while_count", _WHILE, lambda: [np.asarray(3, dtype=np.int32)], _while_reference),
)


def golden_seeds(limit: int = 24, families: Sequence[str] = ()) -> list[SeedProgram]:
    """Single-device golden cases (text + stored bytecode), one per family in turn (the `families`
    given first, then the others by name) so that a few seeds cover many kinds of ops; [] when the
    corpus is not there."""
    try:
        from pjrt_cts.golden import load_manifest

        manifest = load_manifest()
    except Exception:  # noqa: BLE001 - no corpus shipped / unreadable: the caller falls back to the built-in seeds
        return []
    by_family: dict[str, list] = {}
    for case in manifest.cases:
        if case.is_multi_device or case.donation or case.large is not None or "mlir" not in case.files:
            continue
        by_family.setdefault(case.family, []).append(case)
    order = [f for f in families if f in by_family] + sorted(f for f in by_family if f not in families)
    picked: list[GoldenCase] = []
    depth = 0
    while len(picked) < limit and any(depth < len(by_family[f]) for f in order):
        picked.extend(by_family[f][depth] for f in order if depth < len(by_family[f]))
        depth += 1
    return [_golden_seed(case) for case in picked[:limit]]


def _golden_seed(case: "GoldenCase") -> SeedProgram:
    bytecode: dict[str, tuple[str, bytes]] = {}
    for label, version in case.bytecode_versions.items():
        if version and f"mlirbc.{label}" in case.files:
            bytecode[label] = (version, case.read_bytes(f"mlirbc.{label}"))
    return SeedProgram(
        name=case.id, text=case.program_text(), make_inputs=lambda: list(case.input_rows()[0]),
        reference=lambda _inputs: list(case.expected_rows()[0]), source=f"golden:{case.id}",
        bytecode=bytecode, tolerance=case.tolerance,
    )


def seed_programs() -> list[SeedProgram]:
    """The fuzzer's corpus: golden programs when shipped, else the built-in ones."""
    return golden_seeds() or list(BUILTIN_SEEDS)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def bytecode_corpus(seeds: Sequence[SeedProgram], newest: tuple[int, int, int]) -> list[tuple[str, bytes]]:
    """Portable artifacts of `seeds` at the newest version <= `newest` that is available: the corpus's
    stored bytecode, else serialized with jaxlib's StableHLO (imported here only). Raises LookupError
    when neither is possible."""
    corpus: list[tuple[str, bytes]] = []
    serializer = None
    for seed in seeds:
        stored = sorted(((_version(v), data) for v, data in seed.bytecode.values() if _version(v) <= tuple(newest)),
                        reverse=True)
        if stored:
            corpus.append((seed.name, stored[0][1]))
            continue
        if serializer is None:
            serializer = _jaxlib_serializer()
        corpus.append((seed.name, serializer(seed.text, newest)))
    return corpus


def _jaxlib_serializer() -> Callable[[str, tuple[int, int, int]], bytes]:
    try:
        from jax._src.interpreters import mlir as jax_mlir
        from jax._src.lib.mlir import ir
        from jax._src.lib.mlir.dialects import hlo
    except ImportError as error:
        raise LookupError(f"no stored bytecode and jax is not installed to serialize some: {error}") from None
    newest_known = _version(hlo.get_current_version())

    def serialize(text: str, target: tuple[int, int, int]) -> bytes:
        version = min(tuple(target), newest_known)
        with jax_mlir.make_ir_context():
            module = ir.Module.parse(text)
            return bytes(hlo.serialize_portable_artifact(module, ".".join(map(str, version))))

    return serialize
