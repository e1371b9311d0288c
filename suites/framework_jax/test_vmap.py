"""jax.vmap: batched programs on the plugin equal the built-in CPU's."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pjrt_cts.framework.lazy import jax, jnp


def _f32(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_vmap_matvec_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    matches_cpu(jax.vmap(lambda m, v: m @ v), _f32(5, 4, 3), _f32(5, 3, seed=1), kind="reduction", what="vmap(matvec)")


def test_vmap_in_out_axes_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    fn = jax.vmap(lambda a, b: jnp.outer(a, b).sum(0) + b, in_axes=(1, None), out_axes=1)
    matches_cpu(fn, _f32(3, 7), _f32(3, seed=1), kind="reduction", what="vmap in_axes=(1, None), out_axes=1")


def test_vmap_per_example_gradients_match_cpu(matches_cpu: Callable[..., Any]) -> None:
    def loss(w: Any, x: Any, y: Any) -> Any:
        return (jnp.tanh(x @ w) - y) ** 2

    per_example = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))
    matches_cpu(per_example, _f32(4), _f32(10, 4, seed=1), _f32(10, seed=2), kind="autodiff",
                what="vmap(grad) per-example gradients")


def test_nested_vmap_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    pairwise = jax.vmap(jax.vmap(lambda a, b: jnp.sqrt(jnp.sum((a - b) ** 2) + 1e-6), (None, 0)), (0, None))
    matches_cpu(pairwise, _f32(6, 3), _f32(5, 3, seed=1), kind="reduction", what="nested vmap pairwise distances")
