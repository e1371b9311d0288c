"""Multi-device cases of the golden corpus (features like "num_devices:N" / "spmd"), one test per case id.

Each case runs on its first num_replicas * num_partitions addressable devices with an explicit device
assignment; device row k of the corpus is logical id k = replica * num_partitions + partition.
"""
from __future__ import annotations

import pytest

from pjrt_cts import suite_support as support
from pjrt_cts.model import NotSupported

NO_CORPUS = "golden_corpus_unavailable"


def _multi_device_cases() -> tuple[list, str]:
    try:
        from pjrt_cts.golden import load_manifest

        manifest = load_manifest()
    except Exception as error:  # noqa: BLE001 - no corpus yet: one NOT_SUPPORTED placeholder says why
        return [], f"golden corpus not loadable: {type(error).__name__}: {error}"
    cases = [case for case in manifest.cases if case.is_multi_device]
    return cases, "" if cases else "the golden corpus has no multi-device cases"


_CASES, _WHY_NONE = _multi_device_cases()


@pytest.mark.parametrize("case", _CASES or [NO_CORPUS], ids=lambda c: c if isinstance(c, str) else c.id)
def test_golden_multidevice_case(client, case) -> None:
    if isinstance(case, str):
        raise NotSupported(_WHY_NONE)
    from pjrt_cts.golden import compare

    devices = support.require_devices(client, case.num_devices)
    replicas, partitions = case.num_replicas, case.num_partitions
    assignment = [[devices[r * partitions + p].id for p in range(partitions)] for r in range(replicas)]
    exe = support.unimplemented_is_not_supported(lambda: client.compile(
        case.program_text(), num_replicas=replicas, num_partitions=partitions,
        device_assignment=assignment, use_spmd_partitioning=case.use_spmd_partitioning,
    ))
    logical = {assignment[r][p]: r * partitions + p for r in range(replicas) for p in range(partitions)}
    input_rows, expected_rows = case.input_rows(), case.expected_rows()
    run_devices = exe.addressable_devices
    arguments = [[client.buffer_from_numpy(a, d) for a in input_rows[logical[d.id]]] for d in run_devices]
    outputs, _ = exe.execute_sharded(arguments)
    donated = [int(i) for i in (case.donation or {}).get("args", [])]
    for device, row in zip(run_devices, arguments):
        for index in donated:
            assert row[index].is_deleted, (
                f"{case.id}: argument {index} is donated ({case.donation.get('kind')}) but not deleted on device {device.id} after Execute"
            )
    for device, row in zip(run_devices, outputs):
        index = logical[device.id]
        assert len(row) == len(expected_rows[index]), (
            f"{case.id}: PJRT_LoadedExecutable_Execute returned {len(row)} outputs on device {device.id}, expected {len(expected_rows[index])}"
        )
        for position, (buffer, expected) in enumerate(zip(row, expected_rows[index])):
            mismatch = compare(buffer.to_numpy(), expected, case.tolerance)
            assert mismatch is None, (
                f"{case.id}: output {position} on device {device.id} (logical {index}) of PJRT_LoadedExecutable_Execute: {mismatch}"
            )
