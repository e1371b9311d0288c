"""Which store backs the KV callbacks of a multi-node run, and how a node opens it.

- `jaxlib-distributed-runtime`: jaxlib's coordination service (what JAX uses for multi-host PJRT clients);
- `pjrt-cts-loopback`: the suite's own KeyValueServer on 127.0.0.1 (no dependency; the fallback).

Chosen per run by `requested_backend`: an explicit value, else the run context's user setting (PJRT_CTS_KV_BACKEND),
else "auto" (jaxlib when importable, else loopback, saying why).
"""
from __future__ import annotations

import importlib.util
from typing import Any

from pjrt_cts.kvstore.client import RemoteKeyValueStore
from pjrt_cts.kvstore.store import KeyValueStoreLike
from pjrt_cts.schema import KV_BACKEND_ENV, run_context

JAXLIB = "jaxlib-distributed-runtime"
LOOPBACK = "pjrt-cts-loopback"
CHOICES = ("auto", "jaxlib", "loopback")


def requested_backend(explicit: str | None = None) -> str:
    """"auto" | "jaxlib" | "loopback" (ValueError otherwise)."""
    value = (explicit or run_context().settings.kv_backend or "auto").strip().lower()
    if value not in CHOICES:
        raise ValueError(f"key-value backend {value!r}: expected one of {', '.join(CHOICES)} ({KV_BACKEND_ENV})")
    return value


def jaxlib_unavailable_reason() -> str | None:
    """None when jaxlib's extension module can be imported; found without importing it (the caller may
    have a plugin loaded: jaxlib is only imported in the service and node processes)."""
    problems = []
    for module in ("jaxlib._jax", "jax._src.lib"):
        try:
            if importlib.util.find_spec(module) is not None:
                return None
            problems.append(f"no module {module}")
        except (ImportError, ValueError) as error:  # the parent package is missing or fails to import
            problems.append(f"{module}: {error}")
    return "jaxlib is not importable (" + "; ".join(problems) + ")"


def open_node_store(kv: dict[str, Any]) -> tuple[KeyValueStoreLike, dict[str, Any]]:
    """Node side: the store a node's callbacks use, from the launcher's `kv` spec; (store, facts to report)."""
    if kv["backend"] == LOOPBACK:
        return RemoteKeyValueStore(kv["address"], io_timeout_s=float(kv.get("io_timeout_s", 10.0))), {}
    if kv["backend"] == JAXLIB:
        from pjrt_cts.kvstore.jaxlib_store import connect_store

        store, seconds = connect_store(kv["address"], int(kv["task_id"]), init_timeout_s=float(kv["init_timeout_s"]),
                                       heartbeat_timeout_s=float(kv["heartbeat_timeout_s"]))
        return store, {"task_id": int(kv["task_id"]), "num_tasks": int(kv["num_tasks"]), "connect_seconds": seconds}
    raise ValueError(f"unknown key-value backend {kv['backend']!r}")
