"""KeyValueStore alone: get blocks until put or its deadline, try_get answers at once, puts are thread-safe."""
from __future__ import annotations

import threading
import time

import pytest

from pjrt_cts.kvstore import KeyNotFound, KeyTimeout, KeyValueStore


def test_put_then_get_and_try_get_return_the_value() -> None:
    store = KeyValueStore()
    store.put(b"k", b"v\x00w")
    assert store.get(b"k", 1.0) == b"v\x00w"
    assert store.try_get(b"k") == b"v\x00w"


def test_put_overwrites() -> None:
    store = KeyValueStore()
    store.put(b"k", b"1")
    store.put(b"k", b"2")
    assert store.try_get(b"k") == b"2"


def test_try_get_of_missing_key_raises_not_found_at_once() -> None:
    start = time.monotonic()
    with pytest.raises(KeyNotFound, match="k"):
        KeyValueStore().try_get(b"k")
    assert time.monotonic() - start < 0.5


def test_get_of_missing_key_times_out_after_its_deadline() -> None:
    start = time.monotonic()
    with pytest.raises(KeyTimeout):
        KeyValueStore().get(b"missing", 0.2)
    elapsed = time.monotonic() - start
    assert 0.19 <= elapsed < 2.0, f"get(timeout=0.2) returned after {elapsed:.3f} s"


def test_get_blocks_until_another_thread_puts() -> None:
    store = KeyValueStore()
    timer = threading.Timer(0.1, store.put, args=(b"late", b"value"))
    timer.start()
    start = time.monotonic()
    assert store.get(b"late", 5.0) == b"value"
    assert 0.05 <= time.monotonic() - start < 3.0
    timer.join()


def test_concurrent_puts_and_gets_lose_nothing() -> None:
    store = KeyValueStore()
    results: dict[int, bytes] = {}

    def writer(i: int) -> None:
        store.put(f"key{i}".encode(), f"value{i}".encode())

    def reader(i: int) -> None:
        results[i] = store.get(f"key{i}".encode(), 5.0)

    threads = [threading.Thread(target=reader, args=(i,)) for i in range(32)]
    threads += [threading.Thread(target=writer, args=(i,)) for i in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert results == {i: f"value{i}".encode() for i in range(32)}
    assert len(store.keys()) == 32
