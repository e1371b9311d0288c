"""Programs whose participants span every node: an all_reduce over N replicas, an all_reduce over N
partitions (channel handle, global device ids), and a GSPMD sum of an argument sharded over N
partitions. Each node feeds its own devices; results are checked against numpy."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

from pjrt_cts.multiprocess.checks import clients_by_node
from pjrt_cts.multiprocess.collective_programs import collective_expected
from pjrt_cts.testing import assert_same, requires

pytestmark = requires(feature="nodes")

COLLECTIVE_BOUND_S = 120.0


@pytest.mark.timeout(COLLECTIVE_BOUND_S + 150)  # + the shared topology run
@pytest.mark.parametrize("scenario", ["all_reduce", "all_reduce_partitions", "spmd_sum"],
                         ids=["all_reduce_replicas", "all_reduce_partitions", "spmd_sharded_sum"])
@requires(feature="multi_node_topology")
def test_program_spans_every_node(launch: Callable[..., list[Any]],
                                     scenario: str) -> None:
    reports = launch(scenario, COLLECTIVE_BOUND_S)
    global_ids = sorted(d["id"] for d in next(iter(clients_by_node(reports).values()))["devices"])
    expected = collective_expected(scenario, len(global_ids))
    seen: list[int] = []
    for report in reports:
        result = report.event("collective")
        error = report.event("collective_error")
        assert error is None, (f"node {report.node_id}: {scenario} over {len(global_ids)} participants failed in "
                               f"{error['function']}: {error['code']}: {error['message']}")
        assert result is not None, f"node {report.node_id} reported no {scenario} result: {report.summary()}"
        assert result["participants"] == len(global_ids)
        for device_id, values in result["results"].items():
            seen.append(int(device_id))
            assert_same(np.asarray(values, dtype=np.float32), expected,
                        f"node {report.node_id}, device {device_id}: {scenario} result against the sum over "
                        f"{len(global_ids)} participants")
    assert sorted(seen) == global_ids, f"results came back for devices {sorted(seen)}, the participants run on {global_ids}"
