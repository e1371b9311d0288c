"""Asynchronous dispatch on the plugin: jax.block_until_ready waits for the whole dependency chain,
and results come back in program order."""
from __future__ import annotations

from typing import Any

import numpy as np

from pjrt_cts.framework.compare import assert_matches_reference
from pjrt_cts.framework.lazy import jax, jnp
from pjrt_cts.testing import requires


def _data(n: int = 256, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, n)).astype(np.float32) / 16


def _chain(x: Any, steps: int) -> list[Any]:
    step = jax.jit(lambda v: jnp.tanh(v @ v) + 0.5)
    outs = []
    for _ in range(steps):
        x = step(x)
        outs.append(x)
    return outs


def test_block_until_ready_waits_for_dependent_chain(sut_device: Any, cpu_device: Any) -> None:
    outs = _chain(jax.device_put(_data(), sut_device), 12)
    ready = jax.block_until_ready(outs)
    assert ready is outs or all(a is b for a, b in zip(ready, outs)), "block_until_ready must return its argument"
    assert all(o.is_ready() for o in outs), "an array is not ready after jax.block_until_ready"
    expected = _chain(jax.device_put(_data(), cpu_device), 12)
    for i, (got, want) in enumerate(zip(outs, expected)):
        assert_matches_reference(np.asarray(got), np.asarray(want), f"step {i} of a 12-step chain", kind="reduction")


def test_independent_dispatches_complete_in_any_order(sut_device: Any) -> None:
    fn = jax.jit(lambda v, k: v * k + k)
    x = jax.device_put(_data(64), sut_device)
    outs = {k: fn(x, np.float32(k)) for k in range(8)}
    jax.block_until_ready(outs)
    for k in reversed(range(8)):  # read back in another order than dispatched
        assert_matches_reference(np.asarray(outs[k]), _data(64) * np.float32(k) + np.float32(k), f"dispatch {k}")


def test_host_read_waits_for_pending_work(sut_device: Any) -> None:
    """Reading an array (np.asarray) before blocking must wait, never return partial results."""
    x = jax.device_put(_data(), sut_device)
    last = _chain(x, 6)[-1]
    first_read = np.asarray(last)
    assert_matches_reference(first_read, np.asarray(jax.block_until_ready(last)), "read before block", exact=True)


@requires(devices=2)
def test_cross_device_chain_is_ordered(sut_devices: list[Any], cpu_device: Any) -> None:
    """A value bounced between devices through several steps: each copy waits for its producer."""
    devices = list(sut_devices[:2])
    step = jax.jit(lambda v: jnp.sin(v) * 1.5 + v)

    def bounce(targets: list[Any]) -> np.ndarray:
        x = jax.device_put(_data(64), targets[0])
        for i in range(8):
            x = jax.device_put(step(x), targets[(i + 1) % len(targets)])
        return np.asarray(jax.block_until_ready(x))

    assert_matches_reference(bounce(devices), bounce([cpu_device]), "8 steps bounced across devices", kind="reduction")
