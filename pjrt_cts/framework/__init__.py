"""Helpers of the framework layers: the plugin under test seen through a framework (JAX).

Nothing here imports JAX at import time: the runner's controller imports the suites' conftest
files, and the layer must be collectable (and report NOT_SUPPORTED) where JAX is not installed.

- `compat`: which PJRT C API versions the installed jaxlib accepts (ENABLE_PJRT_COMPATIBILITY).
- `jax_backend`: register the plugin under test into JAX beside its built-in CPU backend.
- `execution`: run a function on a device, and the plugin's "missing feature" errors -> NOT_SUPPORTED.
- `compare`: compare the plugin's outputs with the built-in CPU backend's (through golden.compare).
- `lazy`: module proxies so suites can name jax/jnp/lax at module level without importing JAX.
"""
from __future__ import annotations

import importlib.util

JAX_MISSING_REASON = "jax is not installed (pip install pjrt-cts[jax])"


def jax_installed() -> bool:
    """True when both jax and jaxlib can be imported (checked without importing them)."""
    try:
        return importlib.util.find_spec("jax") is not None and importlib.util.find_spec("jaxlib") is not None
    except (ImportError, ValueError):
        return False
