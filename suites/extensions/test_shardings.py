"""SHARDINGS (pjrt_c_api_shardings_extension.h): an executable's parameter and output shardings, as JAX reads them
on every jit compile. Each is a serialized xla.OpSharding, one per parameter / output, agreeing with the program's
`mhlo.sharding` annotations; executing with the arguments placed where the shardings say gives the reference. A
single-device executable may report none (NULL arrays) or replicated ones."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.runtime.extensions import op_sharding
from pjrt_cts.runtime.extensions.shardings import output_shardings, parameter_shardings
from pjrt_cts.testing import assert_same, compile_cached, requires, unsupported_if_unimplemented
from pjrt_cts.testing.extension_programs import SPMD_SHARDINGS, spmd_inputs, spmd_program, spmd_reference

pytestmark = requires(extension="SHARDINGS")
FUNCTIONS = {"parameter": "SHARDINGS.Executable_ParameterShardings", "output": "SHARDINGS.Executable_OutputShardings"}
# The partitions holding tile 0 and tile 1 of %a and of output 0, as each variant's annotation says.
ANNOTATED_TILES = {"iota": (0, 1), "explicit_reversed": (1, 0)}


def _shardings(executable: Any) -> dict[str, tuple[int, list[bytes] | None]]:
    return {"parameter": parameter_shardings(executable), "output": output_shardings(executable)}


def _decoded(kind: str, index: int, data: bytes) -> op_sharding.OpSharding:
    try:
        return op_sharding.decode(data)
    except ValueError as error:
        raise AssertionError(f"{FUNCTIONS[kind]}[{index}] is no serialized xla.OpSharding ({error}): {data!r}") from None


@pytest.fixture
def spmd(client: Any, request: pytest.FixtureRequest) -> tuple[str, Any, list[Any]]:
    """(variant, executable, the two devices of its partitions in partition order)."""
    variant = request.param
    devices = client.addressable_devices[:2]
    with unsupported_if_unimplemented("PJRT_Client_Compile"):
        exe = compile_cached(client, ("extensions", "spmd", variant), lambda: client.compile(
            spmd_program(SPMD_SHARDINGS[variant]), num_partitions=2, device_assignment=[[d.id for d in devices]],
            use_spmd_partitioning=True))
    return variant, exe, devices


SPMD_VARIANTS = pytest.mark.parametrize("spmd", list(SPMD_SHARDINGS), indirect=True)


def test_single_device_shardings_are_none_or_replicated(two_in_two_out: Any) -> None:
    for kind, (count, shardings) in _shardings(two_in_two_out.executable).items():
        if shardings is None:
            continue  # the header: NULL where the plugin does not support shardings
        assert count == 2, f"{FUNCTIONS[kind]} of a program with two {kind}s reports {count}"
        for index, data in enumerate(shardings):
            decoded = _decoded(kind, index, data)
            assert decoded.type in (op_sharding.REPLICATED, op_sharding.MAXIMAL), (
                f"{FUNCTIONS[kind]}[{index}] of a single-device executable is {decoded.type_name}: {decoded}")
            assert decoded.type != op_sharding.MAXIMAL or decoded.tile_assignment_devices == (0,), (
                f"{FUNCTIONS[kind]}[{index}] of a single-device executable puts it on logical device "
                f"{decoded.tile_assignment_devices}")


@requires(devices=2)
@SPMD_VARIANTS
def test_spmd_shardings_decode_one_per_parameter_and_output(spmd: tuple[str, Any, list[Any]]) -> None:
    _, exe, _ = spmd
    for kind, (count, shardings) in _shardings(exe.executable).items():
        assert shardings is not None, f"{FUNCTIONS[kind]} of a 2-partition SPMD executable reports no shardings"
        assert count == len(shardings) == 2, f"{FUNCTIONS[kind]} reports {count} for a program with two {kind}s"
        for index, data in enumerate(shardings):
            _decoded(kind, index, data)


@requires(devices=2)
@SPMD_VARIANTS
def test_spmd_shardings_agree_with_the_annotations(spmd: tuple[str, Any, list[Any]]) -> None:
    variant, exe, _ = spmd
    for kind, (_, shardings) in _shardings(exe.executable).items():
        assert shardings is not None and len(shardings) == 2, f"{FUNCTIONS[kind]}: {shardings}"
        tiled, replicated = (_decoded(kind, i, data) for i, data in enumerate(shardings))
        assert tiled.type == op_sharding.OTHER and tiled.tile_devices(1) == {
            (0,): [ANNOTATED_TILES[variant][0]], (1,): [ANNOTATED_TILES[variant][1]]}, (
            f"{FUNCTIONS[kind]}[0] is {tiled}; the program annotates {SPMD_SHARDINGS[variant]} (tile 0 on partition "
            f"{ANNOTATED_TILES[variant][0]}, tile 1 on partition {ANNOTATED_TILES[variant][1]})")
        assert replicated.type == op_sharding.REPLICATED, (
            f"{FUNCTIONS[kind]}[1] is {replicated}; the program annotates {{replicated}}")


@requires(devices=2)
@SPMD_VARIANTS
def test_execution_with_arguments_placed_as_reported_gives_the_reference(client: Any,
                                                                         spmd: tuple[str, Any, list[Any]]) -> None:
    """Shard each argument as its reported sharding says, run, and assemble the outputs as theirs say."""
    _, exe, partition_devices = spmd
    inputs = spmd_inputs()
    parameters, outputs = (_shardings(exe.executable)[kind][1] for kind in ("parameter", "output"))
    assert parameters is not None and outputs is not None, "the SPMD executable reports no shardings"
    partition_of = {device.id: partition for partition, device in enumerate(partition_devices)}
    run_devices = exe.addressable_devices
    rows = [[client.buffer_from_numpy(_shard_of(inputs[i], _decoded("parameter", i, parameters[i]),
                                                partition_of[device.id]), device) for i in range(len(inputs))]
            for device in run_devices]
    results, events = exe.execute_sharded(rows)
    for event in events:
        event.wait()
        event.close()
    shards = {partition_of[device.id]: [b.to_numpy() for b in row] for device, row in zip(run_devices, results)}
    for index, expected in enumerate(spmd_reference(*inputs)):
        sharding = _decoded("output", index, outputs[index])
        for partition, values in shards.items():
            assert_same(values[index], _shard_of(expected, sharding, partition),
                        f"output {index} on partition {partition}, read where {FUNCTIONS['output']} places it "
                        f"({sharding.type_name} {list(sharding.tile_assignment_devices)})")


def _shard_of(array: np.ndarray, sharding: op_sharding.OpSharding, partition: int) -> np.ndarray:
    """The part of a rank-1 `array` that `sharding` places on `partition`."""
    if sharding.type == op_sharding.REPLICATED:
        return array
    tiles = [index for index, holders in sharding.tile_devices(1).items() if partition in holders]
    assert len(tiles) == 1, f"sharding {sharding} places {len(tiles)} tiles of a rank-1 array on partition {partition}"
    size = len(array) // sharding.tile_assignment_dimensions[0]
    return array[tiles[0][0] * size:(tiles[0][0] + 1) * size]

