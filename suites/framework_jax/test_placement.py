"""jax.device_put across the plugin's devices: data lands where asked, computations follow it."""
from __future__ import annotations

from typing import Any

import numpy as np

from pjrt_cts.framework.compare import assert_matches_reference
from pjrt_cts.framework.lazy import jax
from pjrt_cts.testing import requires


def _data(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((8, 16)).astype(np.float32)


def test_device_put_to_every_device(sut_devices: list[Any]) -> None:
    for index, device in enumerate(sut_devices):
        array = jax.device_put(_data(index), device)
        assert array.devices() == {device}, f"device_put to {device!r} placed it on {array.devices()}"
        assert_matches_reference(np.asarray(array), _data(index), f"round trip through {device!r}", exact=True)


@requires(devices=2)
def test_device_to_device_copy(sut_devices: list[Any]) -> None:
    first, second = list(sut_devices[:2])
    source = jax.device_put(_data(), first)
    copied = jax.device_put(source, second)
    assert copied.devices() == {second}
    assert source.devices() == {first} and not source.is_deleted(), "device_put must not consume its source"
    assert_matches_reference(np.asarray(copied), _data(), "copy device 0 -> 1", exact=True)


@requires(devices=2)
def test_computation_follows_committed_device(sut_devices: list[Any], cpu_device: Any) -> None:
    """The same jitted function runs on whichever plugin device holds its inputs."""
    devices = list(sut_devices[:2])
    fn = jax.jit(lambda v: jax.numpy.tanh(v) @ v.T)
    expected = np.asarray(fn(jax.device_put(_data(), cpu_device)))
    for device in devices + [sut_devices[-1]]:
        out = fn(jax.device_put(_data(), device))
        assert out.devices() == {device}, f"ran on {out.devices()}, inputs were on {device!r}"
        assert_matches_reference(np.asarray(out), expected, f"tanh(v)@v.T on {device!r}", kind="reduction")


@requires(devices=2)
def test_pytree_device_put_and_device_get(sut_devices: list[Any]) -> None:
    first, second = list(sut_devices[:2])
    tree = {"a": _data(1), "b": [np.arange(5, dtype=np.int32), np.float32(2.5)]}
    placed = jax.device_put(tree, second)
    for leaf in jax.tree_util.tree_leaves(placed):
        assert leaf.devices() == {second}
    back = jax.device_get(placed)
    assert_matches_reference(jax.tree_util.tree_leaves(back), jax.tree_util.tree_leaves(tree), "pytree round trip",
                             exact=True)


def test_transfer_between_plugin_and_builtin_cpu(sut_device: Any, cpu_device: Any) -> None:
    """Arrays move between the plugin and JAX's own CPU client (through the host)."""
    on_plugin = jax.device_put(_data(), sut_device)
    on_cpu = jax.device_put(on_plugin, cpu_device)
    back = jax.device_put(on_cpu * 2, sut_device)
    assert back.devices() == {sut_device}
    assert_matches_reference(np.asarray(back), _data() * 2, "plugin -> cpu -> plugin", exact=True)
