"""lax.scan / while_loop / fori_loop / cond / switch on the plugin equal the built-in CPU's."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pjrt_cts.framework.lazy import jnp, lax


def _f32(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_scan_running_state_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    def rnn(w: Any, xs: Any) -> Any:
        def step(h: Any, x: Any) -> tuple[Any, Any]:
            h = jnp.tanh(h @ w + x)
            return h, h.sum()
        return lax.scan(step, jnp.zeros(w.shape[0], w.dtype), xs)

    matches_cpu(rnn, _f32(4, 4) * 0.5, _f32(12, 4, seed=1), kind="reduction", what="scan RNN")


def test_scan_reverse_and_unroll_match_cpu(matches_cpu: Callable[..., Any]) -> None:
    def cumulative(xs: Any) -> Any:
        def step(c: Any, x: Any) -> tuple[Any, Any]:
            return c * 0.9 + x, c
        return lax.scan(step, 0.0, xs, reverse=True, unroll=3)

    matches_cpu(cumulative, _f32(17), kind="reduction", what="scan reverse unroll=3")


def test_while_loop_integer_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    def collatz_steps(n: Any) -> Any:
        def body(state: Any) -> Any:
            value, steps = state
            return jnp.where(value % 2 == 0, value // 2, 3 * value + 1), steps + 1
        return lax.while_loop(lambda s: s[0] != 1, body, (n, jnp.int32(0)))

    matches_cpu(collatz_steps, np.int32(27), exact=True, what="while_loop collatz(27)")


def test_fori_loop_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    def newton_sqrt(a: Any) -> Any:
        return lax.fori_loop(0, 8, lambda i, x: 0.5 * (x + a / x), jnp.ones_like(a))

    matches_cpu(newton_sqrt, np.abs(_f32(16)) + 0.5, what="fori_loop newton sqrt")


def test_cond_and_switch_match_cpu(matches_cpu: Callable[..., Any]) -> None:
    def branches(x: Any, index: Any) -> Any:
        picked = lax.switch(index, [jnp.sin, jnp.cos, lambda v: v * 2.0], x)
        other = lax.cond(x.sum() > 0, lambda v: v - 1.0, lambda v: v + 1.0, x)
        return picked, other

    for index in range(3):
        matches_cpu(branches, _f32(8, seed=index), np.int32(index), what=f"switch branch {index} / cond")
