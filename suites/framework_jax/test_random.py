"""jax.random (threefry2x32) on the plugin is bit-exact with the built-in CPU backend."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pjrt_cts.framework.lazy import jax


def _seed() -> np.ndarray:
    return np.uint32(20240611)


def test_threefry_bits_bit_exact(matches_cpu: Callable[..., Any]) -> None:
    def bits(seed: Any) -> Any:
        key = jax.random.key(seed, impl="threefry2x32")
        return jax.random.bits(key, (257,), dtype="uint32"), jax.random.bits(key, (3, 5), dtype="uint8")

    matches_cpu(bits, _seed(), exact=True, what="jax.random.bits")


def test_split_and_fold_in_bit_exact(matches_cpu: Callable[..., Any]) -> None:
    def keys(seed: Any) -> Any:
        key = jax.random.key(seed, impl="threefry2x32")
        children = jax.random.split(key, 4)
        folded = jax.vmap(lambda k, i: jax.random.fold_in(k, i))(children, jax.numpy.arange(4, dtype="uint32"))
        return jax.random.key_data(children), jax.random.key_data(folded)

    matches_cpu(keys, _seed(), exact=True, what="jax.random.split/fold_in key data")


def test_uniform_and_randint_bit_exact(matches_cpu: Callable[..., Any]) -> None:
    """uniform is built from the bits by integer ops and one float subtraction: exact too."""
    def draws(seed: Any) -> Any:
        key = jax.random.key(seed, impl="threefry2x32")
        k1, k2 = jax.random.split(key)
        return jax.random.uniform(k1, (128,)), jax.random.randint(k2, (64,), -1000, 1000)

    matches_cpu(draws, _seed(), exact=True, what="jax.random.uniform/randint")


def test_permutation_and_bernoulli_bit_exact(matches_cpu: Callable[..., Any]) -> None:
    def draws(seed: Any) -> Any:
        key = jax.random.key(seed, impl="threefry2x32")
        k1, k2 = jax.random.split(key)
        return jax.random.permutation(k1, 50), jax.random.bernoulli(k2, 0.3, (64,))

    matches_cpu(draws, _seed(), exact=True, what="jax.random.permutation/bernoulli")


def test_normal_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    """normal applies erf_inv to uniform bits: floats, compared with a tolerance."""
    matches_cpu(lambda s: jax.random.normal(jax.random.key(s, impl="threefry2x32"), (128,)), _seed(),
                what="jax.random.normal")


def test_legacy_prngkey_bits_bit_exact(matches_cpu: Callable[..., Any]) -> None:
    matches_cpu(lambda s: jax.random.bits(jax.random.PRNGKey(s), (64,)), _seed(), exact=True,
                what="jax.random.PRNGKey bits")
