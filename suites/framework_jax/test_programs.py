"""jax.jit of small golden-like programs: the plugin's results equal the built-in CPU backend's
(exact for integers and booleans, relative tolerance for floats)."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np
import pytest

from pjrt_cts.framework.lazy import jax, jnp, lax


def _f32(*shape: int, seed: int = 0, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32)


def _i32(*shape: int, seed: int = 0, low: int = -100, high: int = 100) -> np.ndarray:
    return np.random.default_rng(seed).integers(low, high, shape, dtype=np.int32)


def _conv(x: Any, w: Any) -> Any:
    return lax.conv_general_dilated(x, w, window_strides=(1, 1), padding="SAME",
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))


def _max_pool(x: Any) -> Any:
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


class JitProgram(NamedTuple):
    function: Callable[..., Any]  # what jax.jit compiles
    inputs: Callable[[], tuple[np.ndarray, ...]]  # makes its arguments
    kind: str  # kind of computation for the float tolerance ("exact": integers and booleans, compared exactly)


# id -> the program
PROGRAMS: dict[str, JitProgram] = {
    "add_mul_f32": JitProgram(lambda x, y: x * y + x - y / 3.0, lambda: (_f32(64), _f32(64, seed=1)), "elementwise"),
    "exp_log_f32": JitProgram(lambda x: jnp.exp(x) + jnp.log1p(jnp.abs(x)), lambda: (_f32(64),), "elementwise"),
    "tanh_sigmoid_f32": JitProgram(lambda x: jnp.tanh(x) * jax.nn.sigmoid(x), lambda: (_f32(64),), "elementwise"),
    "sin_cos_f32": JitProgram(lambda x: jnp.sin(x) * jnp.cos(3 * x), lambda: (_f32(64),), "elementwise"),
    "sqrt_rsqrt_pow_f32": JitProgram(lambda x: jnp.sqrt(x) + lax.rsqrt(x) + x ** 1.5, lambda: (_f32(64, low=0.1),), "elementwise"),
    "erf_f32": JitProgram(lambda x: jax.scipy.special.erf(x), lambda: (_f32(64),), "elementwise"),
    "integer_arith_s32": JitProgram(lambda a, b: (a * 3 + b, a // jnp.where(b == 0, 1, b), a % 7, a >> 2, -a),
                                    lambda: (_i32(64), _i32(64, seed=1)), "exact"),
    "bitwise_u32": JitProgram(lambda a, b: (a ^ b, a & b, a | ~b, lax.shift_left(a, jnp.uint32(5)), lax.population_count(a)),
                              lambda: (_i32(64).astype(np.uint32) * 977, _i32(64, seed=2).astype(np.uint32) * 3), "exact"),
    "compare_select": JitProgram(lambda x, y: (jnp.where(x > y, x, y), x >= y, jnp.logical_xor(x > 0, y > 0)),
                                 lambda: (_f32(64), _f32(64, seed=1)), "elementwise"),
    "convert_types": JitProgram(lambda x: (x.astype(jnp.int32), x.astype(jnp.bfloat16), x.astype(jnp.float16),
                                           (x * 100).astype(jnp.uint8)), lambda: (_f32(64, low=0.0, high=2.5),), "elementwise"),
    "reduce_sum_max_f32": JitProgram(lambda x: (x.sum(axis=0), x.max(axis=1), x.mean(), jnp.prod(x[:3, :3], axis=1)),
                                     lambda: (_f32(16, 32),), "reduction"),
    "cumsum_f32": JitProgram(lambda x: jnp.cumsum(x, axis=1), lambda: (_f32(8, 32),), "reduction"),
    "sort_argsort": JitProgram(lambda x, k: (jnp.sort(x), jnp.argsort(k, stable=True), jnp.argmax(x, axis=-1)),
                               lambda: (_f32(4, 33), _i32(4, 33, low=0, high=5)), "elementwise"),
    "matmul_f32": JitProgram(lambda a, b: a @ b, lambda: (_f32(16, 24), _f32(24, 8, seed=1)), "reduction"),
    # bf16 out (XLA may keep a higher-precision intermediate, so compare at bf16 precision).
    "matmul_bf16": JitProgram(lambda a, b: a.astype(jnp.bfloat16) @ b.astype(jnp.bfloat16),
                              lambda: (_f32(8, 16), _f32(16, 8, seed=1)), "reduction"),
    "conv2d_f32": JitProgram(_conv, lambda: (_f32(1, 8, 8, 3), _f32(3, 3, 3, 4, seed=1)), "reduction"),
    "softmax_f32": JitProgram(lambda x: jax.nn.softmax(x, axis=-1), lambda: (_f32(4, 16),), "elementwise"),
    "gather_take": JitProgram(lambda x, i: (jnp.take(x, i, axis=0), x[i % 3, ::2]),
                              lambda: (_f32(10, 6), _i32(5, low=0, high=10)), "elementwise"),
    "scatter_add": JitProgram(lambda x, i, u: x.at[i].add(u), lambda: (_f32(10), _i32(6, low=0, high=10), _f32(6, seed=3)),
                              "reduction"),
    "dynamic_slice_update": JitProgram(lambda x, s: lax.dynamic_update_slice(x, lax.dynamic_slice(x, (s, 0), (2, 4)) * 2, (0, s)),
                                       lambda: (_f32(6, 8), np.int32(3)), "elementwise"),
    "reshape_transpose_pad_concat": JitProgram(lambda x: jnp.concatenate([jnp.pad(x.T.reshape(4, 6), ((1, 0), (0, 2))),
                                                                          jnp.flip(x.reshape(3, 8)[:, :8], 0)], axis=0),
                                               lambda: (_f32(6, 4),), "elementwise"),
    "max_pool_f32": JitProgram(_max_pool, lambda: (_f32(1, 8, 8, 2),), "elementwise"),
    "complex64_arith": JitProgram(lambda re, im: (lambda z: (z * jnp.conj(z) + z / (1 + 1j), jnp.abs(z)))(lax.complex(re, im)),
                                  lambda: (_f32(32), _f32(32, seed=1)), "elementwise"),
    "fft_f32": JitProgram(lambda x: jnp.fft.rfft(x), lambda: (_f32(4, 32),), "reduction"),
    "iota_broadcast_clamp_round": JitProgram(lambda x: (jnp.clip(x + jnp.arange(16, dtype=jnp.float32), -1.5, 9.5), jnp.round(x * 3),
                                                        jnp.floor(x), jnp.sign(x)), lambda: (_f32(16),), "elementwise"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jit_program_matches_cpu(name: str, matches_cpu: Callable[..., Any]) -> None:
    program = PROGRAMS[name]
    matches_cpu(program.function, *program.inputs(), kind="elementwise" if program.kind == "exact" else program.kind,
                exact=program.kind == "exact", what=name)


def test_eager_op_by_op_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    """Without jit every jnp call is its own small executable on the committed device."""
    matches_cpu(lambda x: jnp.tanh(x) @ x.T + 1.0, _f32(8, 8), kind="reduction", what="eager tanh/matmul", jit=False)


def test_python_scalars_and_static_args(matches_cpu: Callable[..., Any]) -> None:
    def scaled_power(x: Any, n: int = 3) -> Any:
        return jax.jit(lambda v, k: v ** k * 0.5, static_argnums=1)(x, n)

    matches_cpu(scaled_power, _f32(16), what="static_argnums power")
