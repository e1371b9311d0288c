"""The StableHLO programs nodes run and their numpy references (shared by node and tests)."""
from __future__ import annotations

import numpy as np

VECTOR_LENGTH = 4


def all_reduce_program(num_participants: int, over_partitions: bool = False) -> str:
    """An all_reduce (sum) over every participant: each gets the sum of all inputs. Participants are
    replicas, or with `over_partitions` the partitions of one replica (channel handle + global device ids)."""
    group = ", ".join(str(r) for r in range(num_participants))
    attributes = f"replica_groups = dense<[[{group}]]> : tensor<1x{num_participants}xi64>"
    if over_partitions:
        attributes = (f"channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, {attributes}, "
                      "use_global_device_ids")
    return f"""
func.func @main(%a: tensor<{VECTOR_LENGTH}xf32>) -> tensor<{VECTOR_LENGTH}xf32> {{
  %0 = "stablehlo.all_reduce"(%a) ({{
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }}) {{{attributes}}} : (tensor<{VECTOR_LENGTH}xf32>) -> tensor<{VECTOR_LENGTH}xf32>
  return %0 : tensor<{VECTOR_LENGTH}xf32>
}}"""


def replica_input(replica: int) -> np.ndarray:
    """Distinct per replica so that a missing or doubled contribution changes the sum."""
    return (np.arange(VECTOR_LENGTH, dtype=np.float32) + 1.0) * np.float32(10 ** (replica % 6)) + np.float32(replica)


def all_reduce_expected(num_replicas: int) -> np.ndarray:
    return np.asarray(np.sum([replica_input(r) for r in range(num_replicas)], axis=0, dtype=np.float32))


def spmd_sum_program(num_partitions: int) -> str:
    """GSPMD: one logical program whose argument is sharded over every partition (one shard per device,
    VECTOR_LENGTH elements each) and whose replicated result is the sum of all elements."""
    length = VECTOR_LENGTH * num_partitions
    return f"""
module @sharded_sum attributes {{mhlo.num_partitions = {num_partitions} : i32}} {{
func.func @main(%a: tensor<{length}xf32> {{mhlo.sharding = "{{devices=[{num_partitions}]<=[{num_partitions}]}}"}}) -> (tensor<f32> {{mhlo.sharding = "{{replicated}}"}}) {{
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<{length}xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}}}}"""


def spmd_sum_expected(num_partitions: int) -> np.ndarray:
    """Partition p's shard is replica_input(p); values are small integers, so float32 sums are exact."""
    return np.float32(sum(float(replica_input(p).sum()) for p in range(num_partitions)))


def collective_expected(scenario: str, participants: int) -> np.ndarray:
    return spmd_sum_expected(participants) if scenario == "spmd_sum" else all_reduce_expected(participants)


ADD_PROGRAM = """
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
