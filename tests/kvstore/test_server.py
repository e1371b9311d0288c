"""KeyValueServer + RemoteKeyValueStore: loopback only, same semantics as the store, every wait bounded."""
from __future__ import annotations

import socket
import threading
import time

import pytest

from pjrt_cts.kvstore import KeyNotFound, KeyTimeout, KeyValueServer, RemoteKeyValueStore, StoreFailure
from pjrt_cts.kvstore.client import parse_address


@pytest.fixture
def server() -> KeyValueServer:
    with KeyValueServer(lifetime_s=30, max_get_timeout_s=2.0) as running:
        yield running


def test_server_listens_on_loopback_only(server: KeyValueServer) -> None:
    host, port = server.address
    assert host == "127.0.0.1" and port > 0


def test_remote_put_get_try_get(server: KeyValueServer) -> None:
    remote = RemoteKeyValueStore(server.address_string)
    remote.put(b"a", bytes(range(256)))
    assert remote.get(b"a", 1.0) == bytes(range(256))
    assert remote.try_get(b"a") == bytes(range(256))
    assert server.store.try_get(b"a") == bytes(range(256))


def test_remote_try_get_miss_is_not_found(server: KeyValueServer) -> None:
    with pytest.raises(KeyNotFound):
        RemoteKeyValueStore(server.address).try_get(b"nothing")


def test_remote_get_times_out(server: KeyValueServer) -> None:
    start = time.monotonic()
    with pytest.raises(KeyTimeout):
        RemoteKeyValueStore(server.address).get(b"nothing", 0.2)
    assert time.monotonic() - start < 2.0


def test_server_caps_a_long_get_timeout() -> None:
    with KeyValueServer(lifetime_s=30, max_get_timeout_s=0.2) as capped:
        start = time.monotonic()
        with pytest.raises(KeyTimeout):
            RemoteKeyValueStore(capped.address).get(b"nothing", 3600.0)
        assert time.monotonic() - start < 3.0


def test_remote_get_returns_a_value_put_by_another_client(server: KeyValueServer) -> None:
    timer = threading.Timer(0.1, RemoteKeyValueStore(server.address).put, args=(b"late", b"v"))
    timer.start()
    assert RemoteKeyValueStore(server.address).get(b"late", 1.5) == b"v"
    timer.join()


def test_closed_server_is_a_prompt_store_failure() -> None:
    closed = KeyValueServer(lifetime_s=30).start()
    address = closed.address
    closed.close()
    start = time.monotonic()
    with pytest.raises(StoreFailure, match="unreachable"):
        RemoteKeyValueStore(address, io_timeout_s=1.0).put(b"k", b"v")
    assert time.monotonic() - start < 3.0


def test_server_stops_after_its_lifetime() -> None:
    short = KeyValueServer(lifetime_s=0.2).start()
    time.sleep(0.6)
    with pytest.raises(StoreFailure):
        RemoteKeyValueStore(short.address, io_timeout_s=1.0).try_get(b"k")


def test_garbage_does_not_stop_the_server(server: KeyValueServer) -> None:
    with socket.create_connection(server.address, timeout=2) as sock:
        sock.sendall(b"not json\n")
        sock.recv(100)
    with socket.create_connection(server.address, timeout=2) as sock:
        sock.sendall(b'{"op": "explode", "key": ""}\n')
        assert b"failure" in sock.recv(1000)
    RemoteKeyValueStore(server.address).put(b"still", b"alive")
    assert server.store.try_get(b"still") == b"alive"


@pytest.mark.parametrize("address", ["10.0.0.1:5", "0.0.0.0:5", "example.com:80"])
def test_client_refuses_non_loopback_addresses(address: str) -> None:
    with pytest.raises(ValueError, match="loopback"):
        parse_address(address)
