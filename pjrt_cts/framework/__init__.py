"""Helpers of the framework layers: the plugin under test seen through a framework (JAX, PyTorch/XLA).

Nothing here imports JAX or torch at import time: the runner's controller imports the suites' conftest
files, and the layers must be collectable (and SKIP, test environment) where the framework is not installed.

- `compat`: which PJRT C API versions the installed jaxlib accepts (ENABLE_PJRT_COMPATIBILITY).
- `jax_backend`: register the plugin under test into JAX beside its built-in CPU backend.
- `execution`: run a function on a device, and the plugin's "missing feature" errors -> NOT_SUPPORTED.
- `compare`: compare the plugin's outputs with the built-in CPU backend's (through golden.compare).
- `lazy`: module proxies so suites can name jax/jnp/lax at module level without importing JAX.
- `torch_session`: the framework_torch layer's PyTorch/XLA child process (start, calls, death), the plugin's
  DevicePlugin registration, version negotiation probes, and whose fault a failed check is.
- `torch_child`: that child (`python -m pjrt_cts.framework.torch_child`), which imports torch.
"""
from __future__ import annotations

import importlib.util

JAX_MISSING_REASON = "jax is not installed (pip install pjrt-cts[jax])"
TORCH_MISSING_REASON = "torch and torch_xla are not installed (pip install pjrt-cts[torch])"


def _importable(*names: str) -> bool:
    """True when every module can be imported (checked without importing them)."""
    try:
        return all(importlib.util.find_spec(name) is not None for name in names)
    except (ImportError, ValueError):
        return False


def jax_installed() -> bool:
    """True when both jax and jaxlib can be imported."""
    return _importable("jax", "jaxlib")


def torch_xla_installed() -> bool:
    """True when both torch and torch_xla can be imported."""
    return _importable("torch", "torch_xla")
