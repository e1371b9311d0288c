"""StableHLO programs the benchmark compiles: a tiny add, an elementwise pass over N floats, a 3-layer MLP."""
from __future__ import annotations

import numpy as np

TINY_ADD = """module @bench_tiny_add {
  func.func public @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %a, %b : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""


def negate_program(elements: int) -> str:
    """Reads and writes `elements` f32 once each: device memory bandwidth = 8 * elements / time."""
    t = f"tensor<{elements}xf32>"
    return (f"module @bench_negate_{elements} {{\n  func.func public @main(%a: {t}) -> {t} {{\n"
            f"    %0 = stablehlo.negate %a : {t}\n    return %0 : {t}\n  }}\n}}\n")


# A mid-size program for compile-time measurement: 3 dense layers with bias and ReLU, then log-softmax
# (dot_general, broadcast, add, maximum, reduce, exponential, log: ~30 ops).
MLP_BATCH, MLP_IN, MLP_HIDDEN, MLP_OUT = 64, 256, 512, 16


def _layer(index: int, x: str, rows: int, inputs: int, outputs: int, relu: bool) -> list[str]:
    h, w, b = f"%h{index}", f"%w{index}", f"%b{index}"
    out = f"tensor<{rows}x{outputs}xf32>"
    lines = [
        f"    {h}_dot = stablehlo.dot_general {x}, {w}, contracting_dims = [1] x [0] : "
        f"(tensor<{rows}x{inputs}xf32>, tensor<{inputs}x{outputs}xf32>) -> {out}",
        f"    {h}_bias = stablehlo.broadcast_in_dim {b}, dims = [1] : (tensor<{outputs}xf32>) -> {out}",
        f"    {h}_sum = stablehlo.add {h}_dot, {h}_bias : {out}",
    ]
    if relu:
        lines += [f"    {h}_zero = stablehlo.constant dense<0.0> : {out}",
                  f"    {h} = stablehlo.maximum {h}_sum, {h}_zero : {out}"]
    else:
        lines += [f"    {h} = stablehlo.add {h}_sum, {h}_sum : {out}"]
    return lines


def mlp_program() -> str:
    n, i, hdn, o = MLP_BATCH, MLP_IN, MLP_HIDDEN, MLP_OUT
    params = (f"%x: tensor<{n}x{i}xf32>, %w1: tensor<{i}x{hdn}xf32>, %b1: tensor<{hdn}xf32>, "
              f"%w2: tensor<{hdn}x{hdn}xf32>, %b2: tensor<{hdn}xf32>, %w3: tensor<{hdn}x{o}xf32>, %b3: tensor<{o}xf32>")
    logits, row = f"tensor<{n}x{o}xf32>", f"tensor<{n}xf32>"
    body = _layer(1, "%x", n, i, hdn, True) + _layer(2, "%h1", n, hdn, hdn, True) + _layer(3, "%h2", n, hdn, o, False)
    body += [
        "    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>",
        "    %zero = stablehlo.constant dense<0.0> : tensor<f32>",
        f"    %max = stablehlo.reduce(%h3 init: %ninf) applies stablehlo.maximum across dimensions = [1] : ({logits}, tensor<f32>) -> {row}",
        f"    %max_b = stablehlo.broadcast_in_dim %max, dims = [0] : ({row}) -> {logits}",
        f"    %shifted = stablehlo.subtract %h3, %max_b : {logits}",
        f"    %exp = stablehlo.exponential %shifted : {logits}",
        f"    %sum = stablehlo.reduce(%exp init: %zero) applies stablehlo.add across dimensions = [1] : ({logits}, tensor<f32>) -> {row}",
        f"    %log = stablehlo.log %sum : {row}",
        f"    %log_b = stablehlo.broadcast_in_dim %log, dims = [0] : ({row}) -> {logits}",
        f"    %out = stablehlo.subtract %shifted, %log_b : {logits}",
    ]
    return ("module @bench_mlp3 {\n  func.func public @main(" + params + f") -> {logits} {{\n"
            + "\n".join(body) + f"\n    return %out : {logits}\n  }}\n}}\n")


def mlp_inputs(seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    n, i, hdn, o = MLP_BATCH, MLP_IN, MLP_HIDDEN, MLP_OUT
    shapes = [(n, i), (i, hdn), (hdn,), (hdn, hdn), (hdn,), (hdn, o), (o,)]
    return [(rng.standard_normal(s) * (1.0 / np.sqrt(s[0]) if len(s) == 2 else 0.1)).astype(np.float32) for s in shapes]


def mlp_reference(inputs: list[np.ndarray]) -> np.ndarray:
    """numpy forward pass of mlp_program (for checking the benchmark computes what it claims)."""
    x, w1, b1, w2, b2, w3, b3 = [a.astype(np.float64) for a in inputs]
    h1 = np.maximum(x @ w1 + b1, 0)
    h2 = np.maximum(h1 @ w2 + b2, 0)
    h3 = 2 * (h2 @ w3 + b3)
    shifted = h3 - h3.max(axis=1, keepdims=True)
    return (shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))).astype(np.float32)
