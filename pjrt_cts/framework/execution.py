"""Run a JAX function on one device and read its results back; plugin gaps -> NOT_SUPPORTED.

A program runs on a device when its inputs are committed there (`jax.device_put`) and it is
called under `jax.default_device` (for programs whose values are created inside). Every output
leaf is checked to live on that device before it is read back, so a result silently computed
by another backend cannot pass.
"""
from __future__ import annotations

import contextlib
import re
from typing import Any, Callable, Iterator

from pjrt_cts.model import NotSupported

# Errors that say the plugin lacks something the framework's program needs (not a wrong answer).
_MISSING_FEATURE = (
    re.compile(r"No FFI handler registered for (?P<what>\S+)"),
    re.compile(r"No registered implementation for (?:FFI )?custom call to (?P<what>\S+)"),
    re.compile(r"\bUNIMPLEMENTED\b:?\s*(?P<what>.*)"),
)


def missing_feature(error: BaseException) -> str | None:
    """The plugin's own reason when `error` says it lacks a feature (an FFI target, UNIMPLEMENTED)."""
    message = str(error)
    for pattern in _MISSING_FEATURE:
        if pattern.search(message):
            return message.strip().splitlines()[0]
    return None


@contextlib.contextmanager
def plugin_gaps_not_supported(what: str) -> Iterator[None]:
    """Turn 'the plugin lacks X' errors raised inside into NotSupported naming `what` and the plugin's message."""
    try:
        yield
    except Exception as error:
        reason = missing_feature(error)
        if reason is None:
            raise
        raise NotSupported(f"{what}: {type(error).__name__}: {reason}") from None


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


def run_on(device: Any, fn: Callable[..., Any], *args: Any, jit: bool = True, what: str = "program",
           gaps_not_supported: bool = True) -> Any:
    """`fn(*args)` computed on `device` (jit-compiled unless jit=False); host numpy results.

    With `gaps_not_supported`, errors saying the device's plugin lacks a feature become NotSupported
    (used for the plugin under test; the reference backend's errors stay errors).
    """
    import jax

    placed = jax.device_put(args, device)
    compiled = jax.jit(fn) if jit else fn
    gaps = plugin_gaps_not_supported(f"{what} on {device.client.platform}") if gaps_not_supported else contextlib.nullcontext()
    with gaps, jax.default_device(device):
        out = compiled(*placed)
        out = jax.block_until_ready(out)
    assert_on_device(out, device, what)
    return jax.device_get(out)


def require_devices(devices: list[Any], count: int) -> list[Any]:
    """Multi-device tests: NotSupported naming both counts when the plugin has fewer devices in JAX."""
    if len(devices) < count:
        raise NotSupported(f"needs {count} devices of the plugin in JAX, it has {len(devices)}")
    return list(devices[:count])
