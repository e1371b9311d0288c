"""A key-value store for multi-process PJRT clients: in-process store, loopback TCP server/client, ctypes callbacks.

    store = KeyValueStore()                          # thread-safe; get blocks with a timeout
    with KeyValueServer(store) as server:            # 127.0.0.1 only, stops after its lifetime
        remote = RemoteKeyValueStore(server.address) # same interface, in another process
        client = plugin.create_client(options, kv_callbacks=KeyValueCallbacks(remote, namespace="cpu/"))
"""
from pjrt_cts.kvstore.callbacks import KeyValueCallbacks
from pjrt_cts.kvstore.client import RemoteKeyValueStore
from pjrt_cts.kvstore.server import KeyValueServer
from pjrt_cts.kvstore.store import KeyValueStore, KeyValueStoreError, KeyNotFound, KeyTimeout, StoreFailure

__all__ = [
    "KeyNotFound", "KeyTimeout", "KeyValueCallbacks", "KeyValueServer", "KeyValueStore", "KeyValueStoreError",
    "RemoteKeyValueStore", "StoreFailure",
]
