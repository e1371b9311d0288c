"""The key-value store itself: thread-safe, blocking get with a timeout, try_get, put."""
from __future__ import annotations

import threading
import time
from typing import Protocol


class KeyValueStoreError(Exception):
    """Base of the store's errors; each maps to one PJRT error code in the callbacks."""


class KeyNotFound(KeyValueStoreError):
    """try_get on a missing key (PJRT: NOT_FOUND)."""


class KeyTimeout(KeyValueStoreError):
    """get found no value before its deadline (PJRT: DEADLINE_EXCEEDED)."""


class StoreFailure(KeyValueStoreError):
    """The store could not serve the request (connection lost, injected failure; PJRT: UNAVAILABLE)."""


class KeyValueStoreLike(Protocol):
    def get(self, key: bytes, timeout_s: float) -> bytes: ...
    def try_get(self, key: bytes) -> bytes: ...
    def put(self, key: bytes, value: bytes) -> None: ...


class KeyValueStore:
    """Values are bytes; a put overwrites (XLA's stores do the same for repeated puts of one key)."""

    def __init__(self) -> None:
        self._values: dict[bytes, bytes] = {}
        self._changed = threading.Condition()

    def put(self, key: bytes, value: bytes) -> None:
        with self._changed:
            self._values[bytes(key)] = bytes(value)
            self._changed.notify_all()

    def try_get(self, key: bytes) -> bytes:
        with self._changed:
            value = self._values.get(bytes(key))
        if value is None:
            raise KeyNotFound(f"key {bytes(key)!r} not found")
        return value

    def get(self, key: bytes, timeout_s: float) -> bytes:
        deadline = time.monotonic() + max(0.0, timeout_s)
        key = bytes(key)
        with self._changed:
            while key not in self._values:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise KeyTimeout(f"key {key!r} not set within {timeout_s:.3f} s")
                self._changed.wait(left)
            return self._values[key]

    def keys(self) -> list[bytes]:
        with self._changed:
            return sorted(self._values)
