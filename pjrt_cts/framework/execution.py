"""Run a JAX function on one device and read its results back.

A program runs on a device when its inputs are committed there (`jax.device_put`) and it is
called under `jax.default_device` (for programs whose values are created inside). Every output
leaf is checked to live on that device before it is read back, so a result silently computed
by another backend cannot pass.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

from typing import Any, Callable


def leaves_with_paths(tree: Any) -> list[tuple[str, Any]]:
    import jax

    flat, _ = jax.tree_util.tree_flatten_with_path(tree)
    return [(jax.tree_util.keystr(path) or "output", leaf) for path, leaf in flat]


def assert_on_device(tree: Any, device: Any, what: str) -> None:
    """Every array leaf of `tree` lives on exactly `device` (compared as objects: clients differ)."""
    import jax

    for path, leaf in leaves_with_paths(tree):
        if isinstance(leaf, jax.Array):
            placed = leaf.devices()
            assert placed == {device}, (
                f"{what}: {path} is on {sorted(map(repr, placed))} of client {_clients(placed)}, "
                f"expected {device!r} of client {device.client.platform}/{device.client.platform_version}"
            )


def _clients(devices: Any) -> str:
    return ", ".join(sorted({f"{d.client.platform}/{d.client.platform_version}" for d in devices}))


def run_on(device: Any, fn: Callable[..., Any], *args: Any, jit: bool = True, what: str = "program") -> Any:
    """`fn(*args)` computed on `device` (jit-compiled unless jit=False); host numpy results.

    Errors propagate: whether one means "not supported" is decided by the caller from its error code
    (pjrt_cts.testing.unsupported_if_unimplemented), never from its message text.
    """
    import jax

    placed = jax.device_put(args, device)
    compiled = jax.jit(fn) if jit else fn
    with jax.default_device(device):
        out = compiled(*placed)
        out = jax.block_until_ready(out)
    assert_on_device(out, device, what)
    return jax.device_get(out)
