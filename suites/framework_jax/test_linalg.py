"""jnp.linalg on the plugin equals the built-in CPU's (looser tolerance).

On CPU, JAX lowers most decompositions to LAPACK custom calls ("lapack_*_ffi") that jaxlib
registers only with its own CPU client; a plugin without those FFI handlers answers NOT_FOUND
"No FFI handler registered ..." at compile time, reported NOT_SUPPORTED with that message.
Results that are unique only up to sign (eigenvectors, Q, U/V) are compared through invariants.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pjrt_cts.framework.lazy import jax, jnp


def _spd(n: int = 5, seed: int = 0) -> np.ndarray:
    a = np.random.default_rng(seed).standard_normal((n, n)).astype(np.float32)
    return (a @ a.T + n * np.eye(n, dtype=np.float32)).astype(np.float32)


def _general(n: int = 5, seed: int = 1) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal((n, n)) + 3 * np.eye(n)).astype(np.float32)


def test_cholesky_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    matches_cpu(jnp.linalg.cholesky, _spd(), kind="linalg", what="jnp.linalg.cholesky")


def test_solve_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    matches_cpu(jnp.linalg.solve, _general(), np.arange(5, dtype=np.float32), kind="linalg", what="jnp.linalg.solve")


def test_inv_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    matches_cpu(jnp.linalg.inv, _general(), kind="linalg", what="jnp.linalg.inv")


def test_slogdet_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    matches_cpu(lambda a: tuple(jnp.linalg.slogdet(a)), _general(6), kind="linalg", what="jnp.linalg.slogdet")


def test_qr_reconstructs_and_r_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    def qr_invariants(a: Any) -> Any:
        q, r = jnp.linalg.qr(a)
        return q @ r, jnp.abs(r), q.T @ q

    matches_cpu(qr_invariants, _general(), kind="linalg", what="jnp.linalg.qr")


def test_svd_singular_values_match_cpu(matches_cpu: Callable[..., Any]) -> None:
    def svd_invariants(a: Any) -> Any:
        u, s, vt = jnp.linalg.svd(a, full_matrices=False)
        return s, (u * s) @ vt

    matches_cpu(svd_invariants, _general(4, seed=3)[:, :3], kind="linalg", what="jnp.linalg.svd")


def test_eigh_eigenvalues_match_cpu(matches_cpu: Callable[..., Any]) -> None:
    def eigh_invariants(a: Any) -> Any:
        w, v = jnp.linalg.eigh(a)
        return w, (v * w) @ v.T

    matches_cpu(eigh_invariants, _spd(), kind="linalg", what="jnp.linalg.eigh")


def test_triangular_solve_matches_cpu(matches_cpu: Callable[..., Any]) -> None:
    matches_cpu(lambda a, b: jax.scipy.linalg.solve_triangular(a, b, lower=True), np.tril(_general()),
                np.ones((5, 2), np.float32), kind="linalg", what="jax.scipy.linalg.solve_triangular")


def test_norms_and_small_det_match_cpu(matches_cpu: Callable[..., Any]) -> None:
    """Ops JAX lowers without LAPACK: Frobenius/vector norms, closed-form 2x2/3x3 determinants."""
    matches_cpu(lambda a: (jnp.linalg.norm(a), jnp.linalg.norm(a, axis=1), jnp.linalg.det(a[:3, :3]),
                           jnp.linalg.det(a[:2, :2]), jnp.trace(a)),
                _general(), kind="linalg", what="norm/det/trace")


def test_matrix_power_and_einsum_match_cpu(matches_cpu: Callable[..., Any]) -> None:
    matches_cpu(lambda a, b: (jnp.linalg.matrix_power(a / 4, 5), jnp.einsum("ij,jk,kl->il", a, b, a)),
                _general(), _spd(), kind="linalg", what="matrix_power/einsum")
