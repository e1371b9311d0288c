"""jax.sharding over all plugin devices: Mesh + NamedSharding placement, SPMD-partitioned jit,
shard_map collectives (psum, all_gather, ppermute). Reference values come from the built-in CPU."""
from __future__ import annotations

from typing import Any

import numpy as np

from pjrt_cts.framework.compare import assert_matches_reference
from pjrt_cts.framework.lazy import jax, jnp
from pjrt_cts.testing import requires

AXIS = "x"


def _mesh(devices: list[Any]) -> Any:
    return jax.sharding.Mesh(np.array(devices), (AXIS,))


def _spec(*names: Any) -> Any:
    return jax.sharding.PartitionSpec(*names)


def _rows(count: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((2 * count, 6)).astype(np.float32)


@requires(devices=2)
def test_named_sharding_places_each_shard(sut_devices: list[Any]) -> None:
    devices = list(sut_devices[:2])
    data = _rows(len(devices))
    sharding = jax.sharding.NamedSharding(_mesh(devices), _spec(AXIS))
    array = jax.device_put(data, sharding)
    assert array.sharding.device_set == set(devices)
    for shard in array.addressable_shards:
        assert_matches_reference(np.asarray(shard.data), data[shard.index], f"shard on {shard.device!r}", exact=True)
        assert shard.data.devices() == {shard.device}
    assert_matches_reference(np.asarray(array), data, "gathered sharded array", exact=True)


@requires(devices=2)
def test_jit_on_sharded_input_matches_cpu(sut_devices: list[Any], cpu_device: Any) -> None:
    """Row-wise work plus a full reduction: the partitioner inserts a cross-device all-reduce."""
    devices = list(sut_devices[:2])
    data = _rows(len(devices))
    fn = jax.jit(lambda v: (jnp.tanh(v) * 2.0, jnp.sum(v ** 2), v @ v.T))
    sharded = jax.device_put(data, jax.sharding.NamedSharding(_mesh(devices), _spec(AXIS)))
    outs = jax.block_until_ready(fn(sharded))
    assert outs[0].sharding.device_set == set(devices), "elementwise result left the mesh"
    expected = fn(jax.device_put(data, cpu_device))
    assert_matches_reference([np.asarray(o) for o in outs], [np.asarray(e) for e in expected],
                             "jit over NamedSharding", kind="reduction")


@requires(devices=2)
def test_out_shardings_replicated(sut_devices: list[Any]) -> None:
    devices = list(sut_devices[:2])
    mesh = _mesh(devices)
    data = _rows(len(devices))
    fn = jax.jit(lambda v: v.sum(axis=0), out_shardings=jax.sharding.NamedSharding(mesh, _spec()))
    out = fn(jax.device_put(data, jax.sharding.NamedSharding(mesh, _spec(AXIS))))
    assert out.sharding.is_fully_replicated
    for shard in out.addressable_shards:
        assert_matches_reference(np.asarray(shard.data), data.sum(axis=0), f"replica on {shard.device!r}",
                                 kind="reduction")


@requires(devices=2)
def test_shard_map_psum(sut_devices: list[Any]) -> None:
    devices = list(sut_devices[:2])
    mesh = _mesh(devices)
    data = _rows(len(devices))
    total = jax.jit(jax.shard_map(lambda block: jax.lax.psum(block.sum(axis=0), AXIS), mesh=mesh,
                                  in_specs=_spec(AXIS), out_specs=_spec()))
    out = total(jax.device_put(data, jax.sharding.NamedSharding(mesh, _spec(AXIS))))
    assert_matches_reference(np.asarray(out), data.sum(axis=0), f"psum over {len(devices)} devices", kind="reduction")


@requires(devices=2)
def test_shard_map_all_gather_and_ppermute(sut_devices: list[Any]) -> None:
    devices = list(sut_devices[:2])
    count = len(devices)
    mesh = _mesh(devices)
    data = np.arange(count * 3, dtype=np.int32).reshape(count, 3)
    ring = [(i, (i + 1) % count) for i in range(count)]

    def body(block: Any) -> Any:
        return jax.lax.all_gather(block, AXIS, tiled=True), jax.lax.ppermute(block, AXIS, ring)

    fn = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=_spec(AXIS), out_specs=(_spec(AXIS), _spec(AXIS))))
    gathered, shifted = fn(jax.device_put(data, jax.sharding.NamedSharding(mesh, _spec(AXIS))))
    assert_matches_reference(np.asarray(gathered), np.tile(data, (count, 1)), "all_gather", exact=True)
    assert_matches_reference(np.asarray(shifted), np.roll(data, 1, axis=0), "ppermute ring", exact=True)


@requires(devices=4)
def test_two_dimensional_mesh(sut_devices: list[Any], cpu_device: Any) -> None:
    devices = list(sut_devices[:4])
    mesh = jax.sharding.Mesh(np.array(devices[:4]).reshape(2, 2), ("rows", "cols"))
    data = np.random.default_rng(5).standard_normal((4, 8)).astype(np.float32)
    fn = jax.jit(lambda v: (v * 3.0) @ v.T)
    out = fn(jax.device_put(data, jax.sharding.NamedSharding(mesh, _spec("rows", "cols"))))
    assert out.sharding.device_set <= set(devices[:4])
    expected = np.asarray(fn(jax.device_put(data, cpu_device)))
    assert_matches_reference(np.asarray(out), expected, "2x2 mesh matmul", kind="reduction")
