"""A replicated all_reduce whose replicas span every node: each node feeds its own devices and gets the
sum over all replicas (numpy reference)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

from pjrt_cts.golden import EXACT, compare
from pjrt_cts.multiprocess.checks import clients_by_node
from pjrt_cts.multiprocess.programs import all_reduce_expected

COLLECTIVE_BOUND_S = 120.0


@pytest.mark.timeout(COLLECTIVE_BOUND_S + 60)
def test_all_reduce_spans_every_node(launch: Callable[..., list[Any]],
                                     require_global_topology: Callable[[], None]) -> None:
    require_global_topology()
    reports = launch("all_reduce", COLLECTIVE_BOUND_S)
    global_ids = sorted(d["id"] for d in next(iter(clients_by_node(reports).values()))["devices"])
    expected = all_reduce_expected(len(global_ids))
    seen: list[int] = []
    for report in reports:
        result = report.event("all_reduce")
        error = report.event("all_reduce_error")
        assert error is None, (f"node {report.node_id}: the all_reduce over {len(global_ids)} replicas failed in "
                               f"{error['function']}: {error['code']}: {error['message']}")
        assert result is not None, f"node {report.node_id} reported no all_reduce result: {report.summary()}"
        assert result["num_replicas"] == len(global_ids)
        for device_id, values in result["results"].items():
            seen.append(int(device_id))
            mismatch = compare(np.asarray(values, dtype=np.float32), expected, EXACT)
            assert mismatch is None, (f"node {report.node_id}, device {device_id}: all_reduce result differs from "
                                      f"the sum over {len(global_ids)} replicas: {mismatch}")
    assert sorted(seen) == global_ids, f"results came back for devices {sorted(seen)}, the replicas run on {global_ids}"
