"""Multi-device layer fixtures: every addressable device (at least two), and a runner for N-device programs."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import pytest

from pjrt_cts.testing import unsupported_if_unimplemented


@pytest.fixture
def all_devices(client: Any) -> list[Any]:
    """Every addressable device (the layer's test modules declare `requires(devices=2)`)."""
    return list(client.addressable_devices)


@pytest.fixture
def run_on_devices(client: Any) -> Callable[..., list[tuple[Any, int, list[np.ndarray]]]]:
    """Compile `program` for an explicit [replica][partition] assignment, feed each device the row of its
    logical id (replica * num_partitions + partition), and return (device, logical id, outputs) per
    addressable device, checking that every output lands on its device.
    """

    def run(program: str, assignment: Sequence[Sequence[int]], rows_by_logical_id: Sequence[Sequence[np.ndarray]],
            *, use_spmd_partitioning: bool = False, **execute_options: Any) -> list[tuple[Any, int, list[np.ndarray]]]:
        replicas, partitions = len(assignment), len(assignment[0])
        with unsupported_if_unimplemented("PJRT_Client_Compile"):
            exe = client.compile(program, num_replicas=replicas, num_partitions=partitions,
                                 device_assignment=[list(row) for row in assignment],
                                 use_spmd_partitioning=use_spmd_partitioning)
        logical = {assignment[r][p]: r * partitions + p for r in range(replicas) for p in range(partitions)}
        devices = exe.addressable_devices
        assert sorted(d.id for d in devices) == sorted(logical), (
            f"PJRT_LoadedExecutable_AddressableDevices returned device ids {[d.id for d in devices]}, "
            f"the device assignment {list(map(list, assignment))} names {sorted(logical)}"
        )
        arguments = [[client.buffer_from_numpy(a, d) for a in rows_by_logical_id[logical[d.id]]] for d in devices]
        outputs, events = exe.execute_sharded(arguments, **execute_options)
        for event in events:
            event.wait()
            event.close()
        assert len(outputs) == len(devices), f"PJRT_LoadedExecutable_Execute returned {len(outputs)} output rows for {len(devices)} devices"
        results = []
        for device, row in zip(devices, outputs):
            for index, buffer in enumerate(row):
                assert buffer.device.id == device.id, (
                    f"PJRT_LoadedExecutable_Execute: output {index} of the row for device {device.id} lives on device {buffer.device.id}"
                )
            results.append((device, logical[device.id], [b.to_numpy() for b in row]))
        return results

    return run
