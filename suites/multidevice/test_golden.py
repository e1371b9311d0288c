"""Multi-device cases of the golden corpus (features like "num_devices:N" / "spmd"), one test per case id.

Each case runs on its first num_replicas * num_partitions addressable devices with an explicit device
assignment; device row k of the corpus is logical id k = replica * num_partitions + partition. A case needs
its device count (NOT_SUPPORTED below it); an unreadable corpus is one ERROR placeholder (golden_corpus_unreadable).
"""
from __future__ import annotations

from pjrt_cts.testing import golden_param, multi_device_cases, read_case, unsupported_if_unimplemented


@golden_param(cases=multi_device_cases())
def test_golden_multidevice_case(client, case) -> None:
    from pjrt_cts.golden import compare

    devices = client.addressable_devices  # golden_param: the case requires its num_devices
    replicas, partitions = case.num_replicas, case.num_partitions
    assignment = [[devices[r * partitions + p].id for p in range(partitions)] for r in range(replicas)]
    text = read_case(case, "program text", case.program_text)
    with unsupported_if_unimplemented("PJRT_Client_Compile"):
        exe = client.compile(text, num_replicas=replicas, num_partitions=partitions, device_assignment=assignment,
                             use_spmd_partitioning=case.use_spmd_partitioning)
    logical = {assignment[r][p]: r * partitions + p for r in range(replicas) for p in range(partitions)}
    input_rows = read_case(case, "inputs", case.input_rows)
    expected_rows = read_case(case, "expected outputs", case.expected_rows)
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
