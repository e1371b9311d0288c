"""Programs the extensions layer compiles to query an executable's layouts and shardings, with their inputs and
numpy references."""
from __future__ import annotations

import numpy as np

# Two parameters of different ranks, two outputs: a transpose (its layout is the program's choice, not the
# parameter's) and a reduction to a scalar.
TWO_IN_TWO_OUT = """module @extensions_layouts {
  func.func public @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<f32>) {
    %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%b init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    return %t, %s : tensor<3x2xf32>, tensor<f32>
  }
}
"""
TWO_IN_TWO_OUT_RANKS = ([2, 1], [2, 0])  # (parameter ranks, output ranks)

ANOTHER_TRANSPOSE = """module @extensions_other {
  func.func public @main(%a: tensor<4x2xf32>) -> tensor<2x4xf32> {
    %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<4x2xf32>) -> tensor<2x4xf32>
    return %t : tensor<2x4xf32>
  }
}
"""


def two_in_two_out_inputs() -> list[np.ndarray]:
    return [np.arange(6, dtype=np.float32).reshape(2, 3), np.array([1.0, 2.0, 4.0], np.float32)]

# Two partitions (SPMD): %a tiled in halves across the partitions, %b replicated. The iota makes each half's result
# depend on where it sits in the whole array, so a shard placed on the wrong partition gives wrong values.
SPMD_SHARDINGS = {"iota": "{devices=[2]<=[2]}", "explicit_reversed": "{devices=[2]1,0}"}
SPMD_ELEMENTS = 8


def spmd_program(tiled: str) -> str:
    return f"""module @extensions_spmd attributes {{mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func public @main(%a: tensor<8xf32> {{mhlo.sharding = "{tiled}"}},
                         %b: tensor<8xf32> {{mhlo.sharding = "{{replicated}}"}})
      -> (tensor<8xf32> {{mhlo.sharding = "{tiled}"}}, tensor<8xf32> {{mhlo.sharding = "{{replicated}}"}}) {{
    %i = stablehlo.iota dim = 0 : tensor<8xf32>
    %0 = stablehlo.add %a, %i : tensor<8xf32>
    %1 = stablehlo.multiply %b, %b : tensor<8xf32>
    return %0, %1 : tensor<8xf32>, tensor<8xf32>
  }}
}}
"""


def spmd_inputs() -> list[np.ndarray]:
    return [np.arange(10, 10 + SPMD_ELEMENTS, dtype=np.float32), np.linspace(-2, 2, SPMD_ELEMENTS, dtype=np.float32)]


def spmd_reference(a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    return [a + np.arange(SPMD_ELEMENTS, dtype=np.float32), b * b]
