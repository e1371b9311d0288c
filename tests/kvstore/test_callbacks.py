"""KeyValueCallbacks alone (over the in-process, loopback and jaxlib stores), called the way a plugin calls them:
through C function pointers taken from a PJRT_Client_Create_Args, with a C-callable PJRT_CallbackError made here
that records the errors it builds.
"""
from __future__ import annotations

import ctypes
import threading
import time
from dataclasses import dataclass, field

import pytest

from pjrt_cts.abi import structs
from pjrt_cts.abi.callbacks import CallbackErrorFunction, KeyValueCallback, ValueDeleterCallback
from pjrt_cts.abi.enums import ErrorCode
from pjrt_cts.kvstore import (DistributedRuntimeStore, KeyValueCallbacks, KeyValueServer, KeyValueStore,
                              RemoteKeyValueStore)


@dataclass
class FakePlugin:
    """The plugin side: calls the installed callbacks and owns a PJRT_CallbackError that builds fake errors."""

    callbacks: KeyValueCallbacks
    errors: dict[int, tuple[str, str]] = field(default_factory=dict)  # fake PJRT_Error* -> (code, message)

    def __post_init__(self) -> None:
        self.create_args = structs.PJRT_Client_Create_Args()
        self.callbacks.install(self.create_args)
        self._error_function = CallbackErrorFunction(self._make_error)
        self._error_function_slot = ctypes.c_void_p(ctypes.cast(self._error_function, ctypes.c_void_p).value)
        self.callback_error = ctypes.addressof(self._error_function_slot)  # PJRT_CallbackError*
        self._next_error = 0x1000

    def _make_error(self, code: int, message: bytes, size: int) -> int:
        self._next_error += 16
        self.errors[self._next_error] = (ErrorCode(code).name, ctypes.string_at(message, size).decode())
        return self._next_error

    def _function(self, field_name: str) -> KeyValueCallback:
        return KeyValueCallback(getattr(self.create_args, field_name))

    def put(self, key: bytes, value: bytes, *, callback_error: int | None = None) -> int:
        args = structs.PJRT_KeyValuePutCallback_Args(
            key=ctypes.cast(ctypes.c_char_p(key), ctypes.c_void_p), key_size=len(key),
            value=ctypes.cast(ctypes.c_char_p(value), ctypes.c_void_p), value_size=len(value),
            callback_error=self.callback_error if callback_error is None else callback_error,
            user_arg=self.create_args.kv_put_user_arg)
        keep = (key, value)  # the byte strings must outlive the call
        result = self._function("kv_put_callback")(ctypes.addressof(args)) or 0
        del keep
        return result

    def get(self, key: bytes, timeout_ms: int = 1000, *, try_get: bool = False, user_arg: int | None = None,
            callback_error: int | None = None) -> tuple[int, ctypes.Structure]:
        struct = structs.PJRT_KeyValueTryGetCallback_Args if try_get else structs.PJRT_KeyValueGetCallback_Args
        own_arg = self.create_args.kv_try_get_user_arg if try_get else self.create_args.kv_get_user_arg
        key_buffer = ctypes.create_string_buffer(key, len(key))
        args = struct(key=ctypes.addressof(key_buffer), key_size=len(key),
                      callback_error=self.callback_error if callback_error is None else callback_error,
                      user_arg=own_arg if user_arg is None else user_arg)
        if not try_get:
            args.timeout_in_ms = timeout_ms
        function = self._function("kv_try_get_callback" if try_get else "kv_get_callback")
        return function(ctypes.addressof(args)) or 0, args

    def take_value(self, args: ctypes.Structure) -> bytes:
        """What a plugin does with a returned value: copy it, then call the deleter once."""
        value = ctypes.string_at(args.value, args.value_size)
        ValueDeleterCallback(args.value_deleter_callback)(args.value)
        return value


@pytest.fixture
def store() -> KeyValueStore:
    return KeyValueStore()


@pytest.fixture
def plugin_side(store: KeyValueStore) -> FakePlugin:
    return FakePlugin(KeyValueCallbacks(store, namespace="test/"))


def test_install_fills_every_callback_and_distinct_user_args(plugin_side: FakePlugin) -> None:
    args = plugin_side.create_args
    pointers = [args.kv_get_callback, args.kv_put_callback, args.kv_try_get_callback]
    user_args = [args.kv_get_user_arg, args.kv_put_user_arg, args.kv_try_get_user_arg]
    assert all(pointers) and len(set(pointers)) == 3
    assert all(user_args) and len(set(user_args)) == 3


def test_put_stores_the_bytes_under_the_namespace(plugin_side: FakePlugin, store: KeyValueStore) -> None:
    assert plugin_side.put(b"k\x00ey", b"\x01\x02\x00\x03") == 0
    assert store.try_get(b"test/k\x00ey") == b"\x01\x02\x00\x03"


@pytest.mark.parametrize("try_get", [False, True], ids=["get", "try_get"])
def test_value_is_malloced_and_the_deleter_frees_it_once(plugin_side: FakePlugin, store: KeyValueStore,
                                                          try_get: bool) -> None:
    store.put(b"test/k", b"payload\x00bytes")
    error, args = plugin_side.get(b"k", try_get=try_get)
    assert error == 0, plugin_side.errors.get(error)
    assert args.value and args.value_size == len(b"payload\x00bytes") and args.value_deleter_callback
    stats = plugin_side.callbacks.stats
    assert (stats.allocations, stats.frees, plugin_side.callbacks.outstanding_values) == (1, 0, 1)
    assert plugin_side.take_value(args) == b"payload\x00bytes"
    assert (stats.allocations, stats.frees, plugin_side.callbacks.outstanding_values) == (1, 1, 0)
    assert stats.problems == []


def test_empty_value_round_trips(plugin_side: FakePlugin, store: KeyValueStore) -> None:
    store.put(b"test/empty", b"")
    error, args = plugin_side.get(b"empty")
    assert error == 0 and args.value_size == 0 and args.value  # a real (1-byte) allocation: the deleter frees it
    plugin_side.take_value(args)
    assert plugin_side.callbacks.outstanding_values == 0


def test_a_second_delete_is_recorded_and_not_freed_twice(plugin_side: FakePlugin, store: KeyValueStore) -> None:
    store.put(b"test/k", b"v")
    _, args = plugin_side.get(b"k")
    pointer = args.value
    plugin_side.take_value(args)
    ValueDeleterCallback(args.value_deleter_callback)(pointer)
    assert plugin_side.callbacks.stats.frees == 1
    assert any("not a live value" in p for p in plugin_side.callbacks.stats.problems)


def test_try_get_miss_builds_not_found_with_the_plugins_constructor(plugin_side: FakePlugin) -> None:
    start = time.monotonic()
    error, args = plugin_side.get(b"absent", try_get=True)
    assert time.monotonic() - start < 0.5
    assert plugin_side.errors[error][0] == "NOT_FOUND"
    assert "absent" in plugin_side.errors[error][1]
    assert not args.value and plugin_side.callbacks.stats.allocations == 0


def test_get_timeout_builds_deadline_exceeded_after_the_requested_time(plugin_side: FakePlugin) -> None:
    start = time.monotonic()
    error, _ = plugin_side.get(b"absent", timeout_ms=150)
    elapsed = time.monotonic() - start
    assert plugin_side.errors[error][0] == "DEADLINE_EXCEEDED"
    assert 0.14 <= elapsed < 2.0
    assert plugin_side.callbacks.stats.calls[-1].timeout_ms == 150


def test_max_get_timeout_caps_what_the_plugin_asks(store: KeyValueStore) -> None:
    plugin_side = FakePlugin(KeyValueCallbacks(store, max_get_timeout_s=0.1))
    start = time.monotonic()
    error, _ = plugin_side.get(b"absent", timeout_ms=3_600_000)
    assert plugin_side.errors[error][0] == "DEADLINE_EXCEEDED"
    assert time.monotonic() - start < 2.0


def test_get_waits_for_a_put_from_another_plugin_thread(plugin_side: FakePlugin) -> None:
    other = threading.Timer(0.1, plugin_side.put, args=(b"late", b"value"))
    other.start()
    error, args = plugin_side.get(b"late", timeout_ms=5000)
    other.join()
    assert error == 0 and plugin_side.take_value(args) == b"value"


def test_injected_put_failure_is_unavailable(store: KeyValueStore) -> None:
    plugin_side = FakePlugin(KeyValueCallbacks(store, fail_puts=True))
    error = plugin_side.put(b"k", b"v")
    assert plugin_side.errors[error][0] == "UNAVAILABLE"
    assert store.keys() == []


def test_unreachable_remote_store_is_unavailable() -> None:
    server = KeyValueServer(lifetime_s=10).start()
    address = server.address
    server.close()
    plugin_side = FakePlugin(KeyValueCallbacks(RemoteKeyValueStore(address, io_timeout_s=1.0)))
    assert plugin_side.errors[plugin_side.put(b"k", b"v")][0] == "UNAVAILABLE"
    error, _ = plugin_side.get(b"k", timeout_ms=100)
    assert plugin_side.errors[error][0] == "UNAVAILABLE"


def test_callbacks_over_a_remote_store_round_trip() -> None:
    with KeyValueServer(lifetime_s=10) as server:
        plugin_side = FakePlugin(KeyValueCallbacks(RemoteKeyValueStore(server.address), namespace="ns/"))
        assert plugin_side.put(b"k", b"remote") == 0
        assert server.store.try_get(b"ns/k") == b"remote"
        error, args = plugin_side.get(b"k")
        assert error == 0 and plugin_side.take_value(args) == b"remote"


def test_wrong_user_arg_is_recorded_as_a_contract_problem(plugin_side: FakePlugin, store: KeyValueStore) -> None:
    store.put(b"test/k", b"v")
    error, args = plugin_side.get(b"k", user_arg=0xDEAD)
    plugin_side.take_value(args)
    assert error == 0
    assert any("user_arg 0xdead" in p for p in plugin_side.callbacks.stats.problems)


def test_null_callback_error_is_recorded_not_dereferenced(plugin_side: FakePlugin) -> None:
    error, _ = plugin_side.get(b"absent", try_get=True, callback_error=0)
    assert error == 0
    assert any("callback_error=NULL" in p for p in plugin_side.callbacks.stats.problems)


# ---- the same callbacks over jaxlib's distributed runtime (tests/kvstore/conftest.py: a real service) ----------

def test_callbacks_over_jaxlib_round_trip(jaxlib_store: DistributedRuntimeStore) -> None:
    plugin_side = FakePlugin(KeyValueCallbacks(jaxlib_store, namespace="ns/"))
    assert plugin_side.put(b"k", b"\x00jaxlib\xff") == 0
    assert jaxlib_store.try_get(b"ns/k") == b"\x00jaxlib\xff"
    for try_get in (False, True):
        error, args = plugin_side.get(b"k", try_get=try_get)
        assert error == 0 and plugin_side.take_value(args) == b"\x00jaxlib\xff"
    assert plugin_side.callbacks.outstanding_values == 0 and plugin_side.callbacks.stats.problems == []


def test_jaxlib_try_get_miss_is_not_found(jaxlib_store: DistributedRuntimeStore) -> None:
    plugin_side = FakePlugin(KeyValueCallbacks(jaxlib_store))
    error, args = plugin_side.get(b"absent", try_get=True)
    assert plugin_side.errors[error][0] == "NOT_FOUND" and "absent" in plugin_side.errors[error][1]
    assert not args.value


def test_jaxlib_get_timeout_is_deadline_exceeded_capped(jaxlib_store: DistributedRuntimeStore) -> None:
    plugin_side = FakePlugin(KeyValueCallbacks(jaxlib_store, max_get_timeout_s=0.2))
    start = time.monotonic()
    error, _ = plugin_side.get(b"absent", timeout_ms=3_600_000)
    assert plugin_side.errors[error][0] == "DEADLINE_EXCEEDED"
    assert 0.19 <= time.monotonic() - start < 3.0


def test_jaxlib_get_waits_for_a_put_from_another_plugin_thread(jaxlib_store: DistributedRuntimeStore) -> None:
    plugin_side = FakePlugin(KeyValueCallbacks(jaxlib_store))
    other = threading.Timer(0.1, plugin_side.put, args=(b"late", b"value"))
    other.start()
    error, args = plugin_side.get(b"late", timeout_ms=5000)
    other.join()
    assert error == 0 and plugin_side.take_value(args) == b"value"
