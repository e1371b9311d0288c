"""grad / vjp / jvp of a small MLP and friends, computed on the plugin, equal the built-in CPU's."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pjrt_cts.framework.lazy import jax, jnp

SIZES = (8, 16, 4)


def mlp_params(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    params = {}
    for i, (n_in, n_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        params[f"w{i}"] = (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(np.float32)
        params[f"b{i}"] = (0.1 * rng.standard_normal(n_out)).astype(np.float32)
    return params


def mlp(params: dict[str, Any], x: Any) -> Any:
    h = jnp.tanh(x @ params["w0"] + params["b0"])
    return h @ params["w1"] + params["b1"]


def loss(params: dict[str, Any], x: Any, y: Any) -> Any:
    return jnp.mean((mlp(params, x) - y) ** 2)


def batch(seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((32, SIZES[0])).astype(np.float32), rng.standard_normal((32, SIZES[-1])).astype(np.float32)


def test_mlp_grad_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    matches_cpu(jax.value_and_grad(loss), mlp_params(), *batch(), kind="autodiff", what="value_and_grad(mlp loss)")


def test_mlp_vjp_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    def vjp_of_inputs(params: Any, x: Any, cotangent: Any) -> Any:
        out, pullback = jax.vjp(lambda v: mlp(params, v), x)
        return out, pullback(cotangent)

    x, y = batch()
    matches_cpu(vjp_of_inputs, mlp_params(), x, y, kind="autodiff", what="vjp(mlp) wrt inputs")


def test_jvp_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    x, _ = batch()
    tangent = np.ones_like(x)
    matches_cpu(lambda p, v, t: jax.jvp(lambda u: mlp(p, u), (v,), (t,)), mlp_params(), x, tangent,
                kind="autodiff", what="jvp(mlp)")


def test_sgd_steps_match_cpu(matches_cpu: Callable[..., Any]) -> None:
    """A few training steps: gradients feed back into parameters, errors would compound."""
    def train(params: Any, x: Any, y: Any) -> Any:
        for _ in range(3):
            grads = jax.grad(loss)(params, x, y)
            params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
        return params, loss(params, x, y)

    matches_cpu(train, mlp_params(), *batch(), kind="autodiff", what="3 SGD steps")


def test_hessian_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    def f(v: Any) -> Any:
        return jnp.sum(jnp.sin(v) * v ** 2) + jnp.prod(v[:3])

    matches_cpu(jax.hessian(f), np.linspace(-1, 1, 6, dtype=np.float32), kind="autodiff", what="hessian")


def test_checkpointed_grad_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    block = jax.checkpoint(lambda p, v: jax.nn.gelu(mlp(p, v)))
    matches_cpu(jax.grad(lambda p, v: jnp.sum(block(p, v) ** 2)), mlp_params(), batch()[0], kind="autodiff",
                what="grad through jax.checkpoint")
