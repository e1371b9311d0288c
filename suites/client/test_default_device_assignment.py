"""PJRT_Client_DefaultDeviceAssignment: shape of the answer and rejection of bad arguments."""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts import suite_support as support
from pjrt_cts.model import NotSupported

SHAPES = [pytest.param(r, p, id=f"{r}x{p}") for r, p in [(1, 1), (2, 1), (1, 2), (2, 2), (4, 1), (1, 4)]]
ZERO_COUNTS = [pytest.param(r, p, id=f"{r}x{p}") for r, p in [(0, 1), (1, 0)]]  # few: each runs in its own process
NEGATIVE_COUNTS = [pytest.param(r, p, id=f"{r}x{p}") for r, p in [(-1, 1), (1, -1)]]
TOO_SMALL = [pytest.param(r, p, size, id=f"{r}x{p}-size{size}") for r, p, size in [(2, 1, 1), (2, 2, 3), (1, 4, 0)]]


def _assignment(client: Any, replicas: int, partitions: int, size: int | None = None) -> list[int]:
    needed = replicas * partitions
    available = len(client.devices)
    if needed > available:
        raise NotSupported(f"a {replicas}x{partitions} assignment needs {needed} devices, the plugin has {available}")
    return client.default_device_assignment(replicas, partitions, buffer_size=size)


@pytest.mark.parametrize(("replicas", "partitions"), SHAPES)
def test_default_assignment_names_distinct_devices(client: Any, replicas: int, partitions: int) -> None:
    ids = _assignment(client, replicas, partitions)
    known = {d.id for d in client.devices}
    where = f"PJRT_Client_DefaultDeviceAssignment({replicas}, {partitions})"
    assert len(ids) == replicas * partitions
    assert set(ids) <= known, f"{where} should name devices of PJRT_Client_Devices {sorted(known)}, but returned {ids}"
    assert len(set(ids)) == len(ids), f"{where} should assign each device once, but returned {ids}"


@pytest.mark.parametrize(("replicas", "partitions"), SHAPES)
def test_default_assignment_is_stable(client: Any, replicas: int, partitions: int) -> None:
    first = _assignment(client, replicas, partitions)
    second = _assignment(client, replicas, partitions)
    assert first == second, (
        f"PJRT_Client_DefaultDeviceAssignment({replicas}, {partitions}) should be deterministic, but returned {first} then {second}"
    )


def test_default_assignment_with_larger_buffer(client: Any) -> None:
    exact = _assignment(client, 1, 1)
    larger = _assignment(client, 1, 1, size=8)
    assert larger == exact, (
        f"PJRT_Client_DefaultDeviceAssignment(1, 1) with an 8-entry buffer should fill entry 0 as with an exact one "
        f"({exact}), but gave {larger}"
    )


@pytest.mark.isolated  # the API 0.81 XLA CPU plugin aborts (CHECK failure) on a zero count
@pytest.mark.parametrize(("replicas", "partitions"), ZERO_COUNTS)
def test_default_assignment_rejects_zero_counts(client: Any, replicas: int, partitions: int) -> None:
    support.expect_error(
        lambda: client.default_device_assignment(replicas, partitions, buffer_size=4), "INVALID_ARGUMENT",
        function=f"PJRT_Client_DefaultDeviceAssignment(num_replicas={replicas}, num_partitions={partitions})",
    )


@pytest.mark.parametrize(("replicas", "partitions"), NEGATIVE_COUNTS)
def test_default_assignment_rejects_negative_counts(client: Any, replicas: int, partitions: int) -> None:
    support.expect_error(
        lambda: client.default_device_assignment(replicas, partitions, buffer_size=4), "INVALID_ARGUMENT",
        function=f"PJRT_Client_DefaultDeviceAssignment(num_replicas={replicas}, num_partitions={partitions})",
    )


@pytest.mark.parametrize(("replicas", "partitions", "size"), TOO_SMALL)
def test_default_assignment_rejects_too_small_buffer(client: Any, replicas: int, partitions: int, size: int) -> None:
    support.expect_error(
        lambda: client.default_device_assignment(replicas, partitions, buffer_size=size),
        "FAILED_PRECONDITION", "INVALID_ARGUMENT",
        function=f"PJRT_Client_DefaultDeviceAssignment({replicas}, {partitions}, default_assignment_size={size})",
    )


def test_default_assignment_rejects_overflowing_product(client: Any) -> None:
    # 65536 * 65537 overflows a 32-bit product; the plugin must not write that many entries.
    support.expect_error(
        lambda: client.default_device_assignment(65536, 65537, buffer_size=1), "FAILED_PRECONDITION", "INVALID_ARGUMENT",
        "RESOURCE_EXHAUSTED", function="PJRT_Client_DefaultDeviceAssignment(65536, 65537, default_assignment_size=1)",
    )


@pytest.mark.isolated  # the API 0.81 XLA CPU plugin aborts: (-2)*(-2) passes its size check
def test_default_assignment_rejects_negative_counts_with_positive_product(client: Any) -> None:
    support.expect_error(
        lambda: client.default_device_assignment(-2, -2, buffer_size=4), "INVALID_ARGUMENT",
        function="PJRT_Client_DefaultDeviceAssignment(num_replicas=-2, num_partitions=-2)",
    )
