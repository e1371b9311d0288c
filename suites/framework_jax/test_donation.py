"""donate_argnums on the plugin: donated inputs are consumed, results stay right."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.framework.compare import assert_matches_reference
from pjrt_cts.framework.lazy import jax


def _state(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((64,)).astype(np.float32)


def test_donated_input_is_consumed_and_result_correct(sut_device: Any) -> None:
    x = jax.device_put(_state(), sut_device)
    step = jax.jit(lambda v: v * 2.0 + 1.0, donate_argnums=0)
    out = jax.block_until_ready(step(x))
    assert x.is_deleted(), "the donated argument is still alive after the call (donation ignored)"
    with pytest.raises(RuntimeError):
        np.asarray(x)  # reading a donated array must fail, not return stale memory
    assert out.devices() == {sut_device}
    assert_matches_reference(np.asarray(out), _state() * 2.0 + 1.0, "donated v*2+1")


def test_donated_loop_state_matches_cpu(sut_device: Any, cpu_device: Any) -> None:
    """A state updated in place 20 times (the output reuses the donated buffer each step)."""
    step = jax.jit(lambda s, k: (s * 0.9 + jax.numpy.sin(s + k), k + 1.0), donate_argnums=(0, 1))

    def run(device: Any) -> np.ndarray:
        state, k = jax.device_put((_state(), np.float32(0.0)), device)
        for _ in range(20):
            state, k = step(state, k)
        return np.asarray(state)

    assert_matches_reference(run(sut_device), run(cpu_device), "20 donated steps", kind="reduction")


def test_donation_with_unusable_buffer_keeps_result(sut_device: Any) -> None:
    """A donated input whose shape matches no output cannot be reused: JAX warns, results are right."""
    x = jax.device_put(_state(), sut_device)
    reduce_fn = jax.jit(lambda v: v.sum(keepdims=True), donate_argnums=0)
    with pytest.warns(UserWarning, match="donated buffers were not usable"):
        out = jax.block_until_ready(reduce_fn(x))
    assert_matches_reference(np.asarray(out), _state().sum(keepdims=True), "sum of donated input", kind="reduction")
