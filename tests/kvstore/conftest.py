"""jaxlib's distributed runtime on localhost for the kvstore tests: a service child and one connected task.

The connected client lives in the test process, and jaxlib aborts a process whose service goes away while its
client lives: the store fixture shuts its client down before the service fixture closes the service.
"""
from __future__ import annotations

from typing import Callable, Iterator

import pytest

from pjrt_cts.kvstore import (DistributedRuntimeService, DistributedRuntimeStore, ServiceSettings, connect_store,
                              jaxlib_unavailable_reason)


@pytest.fixture
def jaxlib_settings() -> Callable[[int], ServiceSettings]:
    """settings(num_tasks) for a service on localhost; skips the test where jaxlib is not importable."""
    why_not = jaxlib_unavailable_reason()
    if why_not is not None:
        pytest.skip(why_not)
    return lambda num_tasks: ServiceSettings(num_tasks=num_tasks, heartbeat_timeout_s=300, register_timeout_s=20,
                                             lifetime_s=300)


@pytest.fixture
def jaxlib_service(jaxlib_settings: Callable[[int], ServiceSettings]) -> Iterator[DistributedRuntimeService]:
    """A one-task service (the test process is that task)."""
    with DistributedRuntimeService(jaxlib_settings(1)) as service:
        yield service


@pytest.fixture
def jaxlib_store(jaxlib_service: DistributedRuntimeService) -> Iterator[DistributedRuntimeStore]:
    store, _ = connect_store(jaxlib_service.address, 0, init_timeout_s=20, heartbeat_timeout_s=300)
    yield store
    store.client.shutdown()  # one task: the shutdown barrier passes at once; then the service may go
