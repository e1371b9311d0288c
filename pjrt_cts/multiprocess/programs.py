"""The StableHLO programs nodes run and their numpy references (shared by node and tests)."""
from __future__ import annotations

import numpy as np

VECTOR_LENGTH = 4


def all_reduce_program(num_replicas: int) -> str:
    """A replicated all_reduce (sum) over every replica: each replica gets the sum of all inputs."""
    group = ", ".join(str(r) for r in range(num_replicas))
    return f"""
func.func @main(%a: tensor<{VECTOR_LENGTH}xf32>) -> tensor<{VECTOR_LENGTH}xf32> {{
  %0 = "stablehlo.all_reduce"(%a) ({{
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }}) {{replica_groups = dense<[[{group}]]> : tensor<1x{num_replicas}xi64>}} : (tensor<{VECTOR_LENGTH}xf32>) -> tensor<{VECTOR_LENGTH}xf32>
  return %0 : tensor<{VECTOR_LENGTH}xf32>
}}"""


def replica_input(replica: int) -> np.ndarray:
    """Distinct per replica so that a missing or doubled contribution changes the sum."""
    return (np.arange(VECTOR_LENGTH, dtype=np.float32) + 1.0) * np.float32(10 ** (replica % 6)) + np.float32(replica)


def all_reduce_expected(num_replicas: int) -> np.ndarray:
    return np.sum([replica_input(r) for r in range(num_replicas)], axis=0, dtype=np.float32)


ADD_PROGRAM = """
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
