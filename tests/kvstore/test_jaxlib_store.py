"""The store interface over jaxlib's distributed runtime (a real service on localhost): same semantics as the
loopback store (get blocks until put or deadline, try_get answers at once, puts overwrite), errors mapped to
KeyNotFound / KeyTimeout, keys the service would alias kept apart, several processes sharing one service."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

from pjrt_cts.kvstore import (BackendUnavailable, DistributedRuntimeService, DistributedRuntimeStore, KeyNotFound,
                              KeyTimeout, ServiceSettings, StoreFailure)
from pjrt_cts.kvstore.jaxlib_store import ESCAPED_PREFIX, service_key

Settings = Callable[[int], ServiceSettings]


def test_plain_keys_are_stored_as_given() -> None:
    for key in (b"gpu:local_topology/cuda/0", b"a", b"", "\u00e9t\u00e9/x".encode()):
        assert service_key(key) == key.decode()


@pytest.mark.parametrize("key", [b"a\x00b", b"/a", b"a/", b"a//b", b"\xff\xfe", ESCAPED_PREFIX.encode() + b"x"])
def test_keys_the_service_would_alias_or_reject_are_escaped(key: bytes) -> None:
    escaped = service_key(key)
    assert escaped.startswith(ESCAPED_PREFIX) and "\x00" not in escaped and escaped.count("/") == 1


def test_key_mapping_is_injective() -> None:
    keys = [b"a", b"a\x00b", b"/a", b"a/", b"a//b", b"a/b", b"\xff", b"", ESCAPED_PREFIX.encode() + b"YQ=="]
    assert len({service_key(k) for k in keys}) == len(keys)


def test_put_then_get_and_try_get_return_the_value(jaxlib_store: DistributedRuntimeStore) -> None:
    value = bytes(range(256)) * 3
    jaxlib_store.put(b"k", value)
    assert jaxlib_store.get(b"k", 1.0) == value
    assert jaxlib_store.try_get(b"k") == value
    jaxlib_store.put(b"empty", b"")
    assert jaxlib_store.try_get(b"empty") == b""


def test_put_overwrites_like_the_loopback_store(jaxlib_store: DistributedRuntimeStore) -> None:
    jaxlib_store.put(b"k", b"1")
    jaxlib_store.put(b"k", b"2")
    assert jaxlib_store.try_get(b"k") == b"2"


def test_put_without_overwrite_is_a_store_failure(jaxlib_store: DistributedRuntimeStore) -> None:
    strict = DistributedRuntimeStore(jaxlib_store.client, allow_overwrite=False)
    strict.put(b"once", b"1")
    with pytest.raises(StoreFailure, match="ALREADY_EXISTS"):
        strict.put(b"once", b"2")


def test_try_get_of_missing_key_raises_not_found_at_once(jaxlib_store: DistributedRuntimeStore) -> None:
    start = time.monotonic()
    with pytest.raises(KeyNotFound, match="NOT_FOUND"):
        jaxlib_store.try_get(b"missing")
    assert time.monotonic() - start < 1.0


def test_get_of_missing_key_times_out_after_its_deadline(jaxlib_store: DistributedRuntimeStore) -> None:
    start = time.monotonic()
    with pytest.raises(KeyTimeout, match="DEADLINE_EXCEEDED"):
        jaxlib_store.get(b"missing", 0.3)
    elapsed = time.monotonic() - start
    assert 0.29 <= elapsed < 3.0, f"get(timeout=0.3) returned after {elapsed:.3f} s"


def test_get_with_zero_timeout_is_an_immediate_timeout(jaxlib_store: DistributedRuntimeStore) -> None:
    start = time.monotonic()
    with pytest.raises(KeyTimeout):
        jaxlib_store.get(b"missing", 0.0)
    assert time.monotonic() - start < 1.0


def test_get_blocks_until_another_thread_puts(jaxlib_store: DistributedRuntimeStore) -> None:
    timer = threading.Timer(0.2, jaxlib_store.put, args=(b"late", b"value"))
    timer.start()
    start = time.monotonic()
    assert jaxlib_store.get(b"late", 5.0) == b"value"  # the blocking get releases the GIL: the put can run
    assert 0.15 <= time.monotonic() - start < 4.0
    timer.join()


def test_keys_the_service_would_alias_stay_distinct(jaxlib_store: DistributedRuntimeStore) -> None:
    keys = [b"a", b"a\x00b", b"a/", b"/a", b"x/y", b"x//y/", b"\xff\xfe"]
    for index, key in enumerate(keys):
        jaxlib_store.put(key, str(index).encode())
    assert [jaxlib_store.try_get(key) for key in keys] == [str(i).encode() for i in range(len(keys))]


_TASK = """
import json, sys
from pjrt_cts.kvstore import connect_store
address, task = sys.argv[1], int(sys.argv[2])
store, seconds = connect_store(address, task, init_timeout_s=20, heartbeat_timeout_s=300)
store.put(f"from/{task}".encode(), f"value {task}".encode())
print(json.dumps({"task": task, "other": store.get(f"from/{1 - task}".encode(), 20.0).decode(), "connect_s": seconds}))
"""


def test_two_processes_exchange_values_through_one_service(jaxlib_settings: Settings) -> None:
    """Two tasks in two processes, as the nodes use it: each puts its key and blocks on the other's."""
    with DistributedRuntimeService(jaxlib_settings(2)) as service:
        tasks = [subprocess.Popen([sys.executable, "-c", _TASK, service.address, str(t)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for t in range(2)]
        outputs = [task.communicate(timeout=60) for task in tasks]  # they exit before the service closes
    for task, (_stdout, stderr) in zip(tasks, outputs):
        assert task.returncode == 0, stderr[-2000:]
    answers = [json.loads(stdout.strip().splitlines()[-1]) for stdout, _ in outputs]
    assert [a["other"] for a in answers] == ["value 1", "value 0"]


def test_a_service_that_cannot_start_is_backend_unavailable(jaxlib_settings: Settings, tmp_path: Path) -> None:
    """The child reports why (here: jaxlib hidden by a package that fails to import), within its bound."""
    hidden = tmp_path / "jaxlib"
    hidden.mkdir()
    (hidden / "__init__.py").write_text("raise ImportError('jaxlib hidden by the test')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    start = time.monotonic()
    with pytest.raises(BackendUnavailable, match="jaxlib hidden by the test"):
        DistributedRuntimeService(jaxlib_settings(1), env).start()
    assert time.monotonic() - start < 30
