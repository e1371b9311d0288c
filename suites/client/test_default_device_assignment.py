"""PJRT_Client_DefaultDeviceAssignment: shape of the answer and rejection of bad arguments."""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.testing import expect_rejection, requires

SHAPES = [pytest.param(r, p, id=f"{r}x{p}", marks=requires(devices=r * p))
          for r, p in [(1, 1), (2, 1), (1, 2), (2, 2), (4, 1), (1, 4)]]
ZERO_COUNTS = [pytest.param(r, p, id=f"{r}x{p}") for r, p in [(0, 1), (1, 0)]]  # few: each runs in its own process
NEGATIVE_COUNTS = [pytest.param(r, p, id=f"{r}x{p}") for r, p in [(-1, 1), (1, -1)]]
TOO_SMALL = [pytest.param(r, p, size, id=f"{r}x{p}-size{size}") for r, p, size in [(2, 1, 1), (2, 2, 3), (1, 4, 0)]]


def _assignment(client: Any, replicas: int, partitions: int, size: int | None = None) -> list[int]:
    return client.default_device_assignment(replicas, partitions, buffer_size=size)


def _valid(client: Any) -> Any:
    """The control of every rejection here: a 1x1 assignment into a 4-entry buffer."""
    return lambda: client.default_device_assignment(1, 1, buffer_size=4)


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
    expect_rejection(lambda: client.default_device_assignment(replicas, partitions, buffer_size=4),
                     control=_valid(client), function="PJRT_Client_DefaultDeviceAssignment",
                     what=f"num_replicas={replicas}, num_partitions={partitions}")


@pytest.mark.parametrize(("replicas", "partitions"), NEGATIVE_COUNTS)
def test_default_assignment_rejects_negative_counts(client: Any, replicas: int, partitions: int) -> None:
    expect_rejection(lambda: client.default_device_assignment(replicas, partitions, buffer_size=4),
                     control=_valid(client), function="PJRT_Client_DefaultDeviceAssignment",
                     what=f"num_replicas={replicas}, num_partitions={partitions}")


@pytest.mark.parametrize(("replicas", "partitions", "size"), TOO_SMALL)
def test_default_assignment_rejects_too_small_buffer(client: Any, replicas: int, partitions: int, size: int) -> None:
    expect_rejection(lambda: client.default_device_assignment(replicas, partitions, buffer_size=size),
                     control=_valid(client), codes=("FAILED_PRECONDITION", "INVALID_ARGUMENT"),
                     function="PJRT_Client_DefaultDeviceAssignment",
                     what=f"a {replicas}x{partitions} assignment into default_assignment_size={size}")


def test_default_assignment_rejects_overflowing_product(client: Any) -> None:
    # 65536 * 65537 overflows a 32-bit product; the plugin must not write that many entries.
    expect_rejection(lambda: client.default_device_assignment(65536, 65537, buffer_size=1), control=_valid(client),
                     codes=("FAILED_PRECONDITION", "INVALID_ARGUMENT", "RESOURCE_EXHAUSTED"),
                     function="PJRT_Client_DefaultDeviceAssignment",
                     what="a 65536x65537 assignment into default_assignment_size=1")


@pytest.mark.isolated  # the API 0.81 XLA CPU plugin aborts: (-2)*(-2) passes its size check
def test_default_assignment_rejects_negative_counts_with_positive_product(client: Any) -> None:
    expect_rejection(lambda: client.default_device_assignment(-2, -2, buffer_size=4), control=_valid(client),
                     function="PJRT_Client_DefaultDeviceAssignment", what="num_replicas=-2, num_partitions=-2")
