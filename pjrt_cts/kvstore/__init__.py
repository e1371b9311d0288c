"""A key-value store for multi-process PJRT clients: in-process store, loopback TCP server/client, ctypes callbacks,
and an adapter to jaxlib's distributed runtime (the store JAX uses for multi-host clients; jaxlib imported on demand).

    store = KeyValueStore()                          # thread-safe; get blocks with a timeout
    with KeyValueServer(store) as server:            # 127.0.0.1 only, stops after its lifetime
        remote = RemoteKeyValueStore(server.address) # same interface, in another process
        client = plugin.create_client(options, kv_callbacks=KeyValueCallbacks(remote, namespace="cpu/"))

    with DistributedRuntimeService(ServiceSettings(num_tasks=2, ...)) as service:   # jaxlib's service, a child
        store, _ = connect_store(service.address, task_id, ...)                      # in each node: same interface
"""
from pjrt_cts.kvstore.backends import JAXLIB, LOOPBACK, jaxlib_unavailable_reason, requested_backend
from pjrt_cts.kvstore.callbacks import KeyValueCallbacks
from pjrt_cts.kvstore.client import RemoteKeyValueStore
from pjrt_cts.kvstore.jaxlib_service import BackendUnavailable, DistributedRuntimeService, ServiceSettings
from pjrt_cts.kvstore.jaxlib_store import DistributedRuntimeStore, connect_store
from pjrt_cts.kvstore.server import KeyValueServer
from pjrt_cts.kvstore.store import KeyValueStore, KeyValueStoreError, KeyNotFound, KeyTimeout, StoreFailure

__all__ = [
    "JAXLIB", "LOOPBACK", "BackendUnavailable", "DistributedRuntimeService", "DistributedRuntimeStore",
    "KeyNotFound", "KeyTimeout", "KeyValueCallbacks", "KeyValueServer", "KeyValueStore", "KeyValueStoreError",
    "RemoteKeyValueStore", "ServiceSettings", "StoreFailure", "connect_store", "jaxlib_unavailable_reason",
    "requested_backend",
]
