"""Collectives over N devices: replicated programs (num_replicas=N) and per-partition programs
(num_partitions=N, channel handles, global device ids), with expected values from numpy.

N is every addressable device (4 on the CPU plugins with cpu_device_count=4, every GPU of a host).
"""
from __future__ import annotations

import numpy as np
import pytest

from pjrt_cts.testing import assert_same, requires

pytestmark = requires(devices=2)


COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute")
_SUM = """({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
  })"""


def collective_program(op: str, n: int, over_partitions: bool) -> tuple[str, int, int]:
    """(StableHLO text, input length, output length) of `op` over all n participants."""
    group = f"dense<[[{', '.join(map(str, range(n)))}]]> : tensor<1x{n}xi64>"
    channel = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, " if over_partitions else ""
    global_ids = ", use_global_device_ids" if over_partitions else ""
    if op == "all_reduce":
        size_in = size_out = 2 * n
        body = f'"stablehlo.all_reduce"(%a) {_SUM} {{{channel}replica_groups = {group}{global_ids}}}'
    elif op == "all_gather":
        size_in, size_out = 2, 2 * n
        body = f'"stablehlo.all_gather"(%a) {{{channel}all_gather_dim = 0 : i64, replica_groups = {group}{global_ids}}}'
    elif op == "reduce_scatter":
        size_in, size_out = 2 * n, 2
        body = f'"stablehlo.reduce_scatter"(%a) {_SUM} {{{channel}scatter_dimension = 0 : i64, replica_groups = {group}{global_ids}}}'
    elif op == "all_to_all":
        size_in = size_out = 2 * n
        body = (f'"stablehlo.all_to_all"(%a) {{{channel}split_dimension = 0 : i64, concat_dimension = 0 : i64, '
                f'split_count = {n} : i64, replica_groups = {group}}}')
    elif op == "collective_permute":
        size_in = size_out = 2 * n
        pairs = ", ".join(f"[{i}, {(i + 1) % n}]" for i in range(n))
        body = f'"stablehlo.collective_permute"(%a) {{{channel}source_target_pairs = dense<[{pairs}]> : tensor<{n}x2xi64>}}'
    else:
        raise ValueError(op)
    text = f"""
func.func @main(%a: tensor<{size_in}xf32>) -> tensor<{size_out}xf32> {{
  %0 = {body} : (tensor<{size_in}xf32>) -> tensor<{size_out}xf32>
  return %0 : tensor<{size_out}xf32>
}}"""
    return text, size_in, size_out


def collective_inputs(n: int, size_in: int) -> list[np.ndarray]:
    return [np.arange(size_in, dtype=np.float32) + 100.0 * i for i in range(n)]


def collective_expected(op: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Result of participant j, j = 0..n-1 (numpy reference)."""
    n = len(inputs)
    if op == "all_reduce":
        total = np.asarray(np.sum(inputs, axis=0, dtype=np.float32))  # an array (numpy's stub also allows a scalar)
        return [total] * n
    if op == "all_gather":
        return [np.concatenate(inputs)] * n
    if op == "reduce_scatter":
        total = np.asarray(np.sum(inputs, axis=0, dtype=np.float32))
        return [total[2 * j: 2 * j + 2] for j in range(n)]
    if op == "all_to_all":
        return [np.concatenate([x[2 * j: 2 * j + 2] for x in inputs]) for j in range(n)]
    if op == "collective_permute":
        return [inputs[(j - 1) % n] for j in range(n)]
    raise ValueError(op)


def _check(results, op: str, inputs: list[np.ndarray], what: str) -> None:
    expected = collective_expected(op, inputs)
    for device, logical, outputs in results:
        assert_same(
            outputs[0], expected[logical],
            f"PJRT_LoadedExecutable_Execute {op} over {len(inputs)} {what}: wrong result on device {device.id} ({what[:-1]} {logical})",
        )


@pytest.mark.parametrize("op", COLLECTIVES)
def test_collective_over_replicas(all_devices, run_on_devices, op) -> None:
    n = len(all_devices)
    text, size_in, _ = collective_program(op, n, over_partitions=False)
    inputs = collective_inputs(n, size_in)
    results = run_on_devices(text, [[d.id] for d in all_devices], [[x] for x in inputs])
    _check(results, op, inputs, "replicas")


@pytest.mark.parametrize("op", COLLECTIVES)
def test_collective_over_partitions(all_devices, run_on_devices, op) -> None:
    n = len(all_devices)
    text, size_in, _ = collective_program(op, n, over_partitions=True)
    inputs = collective_inputs(n, size_in)
    results = run_on_devices(text, [[d.id for d in all_devices]], [[x] for x in inputs], use_spmd_partitioning=True)
    _check(results, op, inputs, "partitions")


def test_spmd_partitioned_reduction_of_sharded_argument(all_devices, run_on_devices) -> None:
    """GSPMD: one logical program, argument sharded over N partitions (mhlo.sharding), replicated result."""
    n = len(all_devices)
    text = f"""
module @sharded_sum attributes {{mhlo.num_partitions = {n} : i32}} {{
func.func @main(%a: tensor<{2 * n}xf32> {{mhlo.sharding = "{{devices=[{n}]<=[{n}]}}"}}) -> (tensor<f32> {{mhlo.sharding = "{{replicated}}"}}) {{
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<{2 * n}xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}}}}"""
    logical = np.arange(2 * n, dtype=np.float32) * 1.5
    shards = [[logical[2 * i: 2 * i + 2]] for i in range(n)]
    results = run_on_devices(text, [[d.id for d in all_devices]], shards, use_spmd_partitioning=True)
    for device, partition, outputs in results:
        assert_same(
            outputs[0], np.float32(logical.sum()),
            f"SPMD sum of an argument sharded over {n} partitions: wrong result on device {device.id} (partition {partition})",
        )
