"""The store interface over jaxlib's distributed runtime client: the key-value store JAX gives multi-host
PJRT clients in production (`jax.distributed`). Used in node processes; jaxlib is imported on demand.

Facts this adapter rests on (jaxlib 0.10.2, observed; docs/layer-notes/multiprocess.md):
- keys are `str`; a NUL truncates a key and keys are normalised as paths ("a//b/" is "a/b"), so keys that
  would alias are escaped (`service_key`);
- a miss raises JaxRuntimeError with `error_code_string` NOT_FOUND (try_get) or DEADLINE_EXCEEDED (blocking get);
- `connect()` waits for every task of the service to register; the client's agent aborts its process when the
  service reports an error (a task that stopped heartbeating, the service gone) or when connecting fails.
"""
from __future__ import annotations

import base64
import time
from types import ModuleType
from typing import Any

from pjrt_cts.kvstore.store import KeyNotFound, KeyTimeout, KeyValueStoreError, StoreFailure

ESCAPED_PREFIX = "pjrt-cts-escaped/"
_ERRORS: dict[str, type[KeyValueStoreError]] = {"NOT_FOUND": KeyNotFound, "DEADLINE_EXCEEDED": KeyTimeout}


def import_jaxlib_runtime() -> ModuleType:
    """jaxlib's extension module with the distributed runtime (ImportError if there is none).

    `jaxlib._jax` directly: it is what `jax._src.lib._jax` re-exports, without the cost of importing jax on every
    node (docs/bench.md)."""
    try:
        from jaxlib import _jax
    except ImportError:
        from jax._src.lib import _jax  # a jaxlib that is only reachable through jax
    if not hasattr(_jax, "get_distributed_runtime_client"):
        raise ImportError(f"{_jax.__name__} has no get_distributed_runtime_client")
    return _jax


def _is_plain(text: str) -> bool:
    """A key the service stores as given: no NUL, no path normalisation, not in the escaped namespace."""
    return ("\x00" not in text and not text.startswith("/") and not text.endswith("/") and "//" not in text
            and not text.startswith(ESCAPED_PREFIX))


def service_key(key: bytes) -> str:
    """The service's key for a plugin key; injective (escaped keys carry a prefix no plain key has)."""
    try:
        text = bytes(key).decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and _is_plain(text):
        return text  # the common case: PJRT plugins' keys are readable text, stored as JAX would store them
    return ESCAPED_PREFIX + base64.urlsafe_b64encode(bytes(key)).decode("ascii")  # no "/" in urlsafe base64


def _store_error(error: RuntimeError, what: str) -> KeyValueStoreError:
    # The status code is an attribute of JaxRuntimeError; older jaxlibs only put it in front of the message.
    code = getattr(error, "error_code_string", None) or str(error).split(":", 1)[0].strip()
    first_line = (str(error).strip().splitlines() or [""])[0]
    return _ERRORS.get(code, StoreFailure)(f"{what}: jaxlib distributed runtime: {first_line}")


class DistributedRuntimeStore:
    """KeyValueStoreLike over a connected jaxlib DistributedRuntimeClient (thread-safe: the client is).

    A put overwrites, as the loopback store does: which backend ran must not change a verdict (without
    allow_overwrite the service answers ALREADY_EXISTS, which the callbacks would return as UNAVAILABLE).
    """

    def __init__(self, client: Any, *, allow_overwrite: bool = True) -> None:
        self.client = client
        self.allow_overwrite = allow_overwrite

    def put(self, key: bytes, value: bytes) -> None:
        try:
            self.client.key_value_set_bytes(service_key(key), bytes(value), allow_overwrite=self.allow_overwrite)
        except RuntimeError as error:
            raise _store_error(error, f"put {bytes(key)!r}") from None

    def try_get(self, key: bytes) -> bytes:
        try:
            return bytes(self.client.key_value_try_get_bytes(service_key(key)))
        except RuntimeError as error:
            raise _store_error(error, f"try_get {bytes(key)!r}") from None

    def get(self, key: bytes, timeout_s: float) -> bytes:
        timeout_ms = max(0, int(round(timeout_s * 1000)))
        try:
            return bytes(self.client.blocking_key_value_get_bytes(service_key(key), timeout_ms))
        except RuntimeError as error:
            raise _store_error(error, f"get {bytes(key)!r} ({timeout_ms} ms)") from None


def connect_store(address: str, task_id: int, *, init_timeout_s: float, heartbeat_timeout_s: float,
                  rpc_timeout_s: float = 30.0) -> tuple[DistributedRuntimeStore, float]:
    """Connect task `task_id` to the service at `address`: (store, seconds connect took).

    Blocks until every task registered; on failure jaxlib aborts this process (no exception comes back).
    `shutdown_on_destruction=False` and no shutdown call: a shutdown is a barrier of every task, which a
    SIGKILLed peer never reaches; the service outlives the nodes (the launcher closes it last)."""
    runtime = import_jaxlib_runtime()
    client = runtime.get_distributed_runtime_client(
        address, task_id, rpc_timeout=max(1, int(rpc_timeout_s)), init_timeout=max(1, int(init_timeout_s)),
        heartbeat_timeout=max(1, int(heartbeat_timeout_s)), shutdown_on_destruction=False)
    started = time.monotonic()
    client.connect()
    return DistributedRuntimeStore(client), time.monotonic() - started
