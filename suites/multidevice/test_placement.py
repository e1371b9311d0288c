"""Where programs and buffers run: each device separately, N replicas, explicit and permuted device
assignments, CopyToDevice chains across all devices, launch_id, and argument_lists shape."""
from __future__ import annotations

import numpy as np
import pytest

from pjrt_cts.runtime import PjrtError
from pjrt_cts.runtime.compile_options import CompileOptions
from pjrt_cts.testing import assert_same, expect_rejection, requires, unsupported_if_unimplemented

pytestmark = requires(devices=2)


ADD_ONE = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<4xf32>
  %0 = stablehlo.add %a, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}"""

REPLICA_ID = """
func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<ui32>) {
  %c = stablehlo.constant dense<1.0> : tensor<4xf32>
  %0 = stablehlo.add %a, %c : tensor<4xf32>
  %r = stablehlo.replica_id : tensor<ui32>
  return %0, %r : tensor<4xf32>, tensor<ui32>
}"""

def all_reduce_program(n: int) -> str:
    group = f"dense<[[{', '.join(map(str, range(n)))}]]> : tensor<1x{n}xi64>"
    return ALL_REDUCE.replace("REPLICA_GROUPS", group)


ALL_REDUCE = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.all_reduce"(%a) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {replica_groups = REPLICA_GROUPS} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""


def test_execute_on_each_device_with_single_device_assignment(client, all_devices) -> None:
    for device in all_devices:
        exe = client.compile(ADD_ONE, device_assignment=[[device.id]])
        assert [d.id for d in exe.addressable_devices] == [device.id], (
            f"PJRT_LoadedExecutable_AddressableDevices of a program assigned to device {device.id} is "
            f"{[d.id for d in exe.addressable_devices]}"
        )
        x = np.full(4, float(device.id), np.float32)
        out = exe.execute([client.buffer_from_numpy(x, device)])[0]
        assert out.device.id == device.id, f"Execute on device {device.id}: output lives on device {out.device.id}"
        assert_same(out.to_numpy(), x + 1, f"Execute on device {device.id}: wrong result")


def test_execute_portable_executable_on_each_device(client, all_devices) -> None:
    """compile_portable_executable + PJRT_LoadedExecutable_Execute(execute_device=d) for every device d."""
    options = CompileOptions(compile_portable_executable=True).to_bytes()
    with unsupported_if_unimplemented("PJRT_Client_Compile"):
        exe = client.compile(ADD_ONE, compile_options=options)
    for device in all_devices:
        x = np.full(4, float(device.id), np.float32)
        try:
            out = exe.execute([client.buffer_from_numpy(x, device)], device=device)[0]
        except PjrtError as error:
            raise AssertionError(
                f"PJRT_LoadedExecutable_Execute of a portable executable with execute_device={device.id} failed: "
                f"{error.code}: {error.message}"
            ) from None
        assert out.device.id == device.id, f"execute_device={device.id}: output lives on device {out.device.id}"
        assert_same(out.to_numpy(), x + 1, f"execute_device={device.id}: wrong result")


@pytest.mark.parametrize("order", ["identity", "rotated", "reversed"])
def test_replicas_follow_explicit_device_assignment(all_devices, run_on_devices, order) -> None:
    """num_replicas=N with argument_lists of N rows; replica r runs on assignment[r] and sees replica_id r."""
    ids = [d.id for d in all_devices]
    if order == "rotated":
        ids = ids[1:] + ids[:1]
    elif order == "reversed":
        ids = ids[::-1]
    assignment = [[i] for i in ids]
    rows = [[np.full(4, 10.0 * r, np.float32)] for r in range(len(ids))]
    results = run_on_devices(REPLICA_ID, assignment, rows)
    for device, replica, (value, replica_id) in results:
        assert device.id == ids[replica]
        assert int(replica_id) == replica, (
            f"device assignment {assignment}: device {device.id} is replica {replica} but stablehlo.replica_id returned {int(replica_id)}"
        )
        assert_same(value, rows[replica][0] + 1,
                                      f"replica {replica} on device {device.id} computed on the wrong argument row")


@requires("LoadedExecutable_GetDeviceAssignment")
def test_device_assignment_is_reported_back(client, all_devices) -> None:
    ids = [d.id for d in all_devices][::-1]
    exe = client.compile(REPLICA_ID, num_replicas=len(ids), device_assignment=[[i] for i in ids])
    from pjrt_cts.runtime.compile_options import decode_device_assignment

    with unsupported_if_unimplemented("PJRT_LoadedExecutable_GetDeviceAssignment"):
        reported = decode_device_assignment(exe.device_assignment_bytes())
    assert reported == [[i] for i in ids], (
        f"PJRT_LoadedExecutable_GetDeviceAssignment returned {reported}, compiled with {[[i] for i in ids]}"
    )


def test_copy_to_device_chain_across_all_devices(client, all_devices) -> None:
    source = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    first = client.buffer_from_numpy(source, all_devices[0])
    current = first
    for device in all_devices[1:] + all_devices[:1]:
        previous = current
        current = current.copy_to_device(device)
        assert current.device.id == device.id, f"PJRT_Buffer_CopyToDevice to device {device.id}: copy lives on device {current.device.id}"
        assert_same(current.to_numpy(), source,
                                      f"PJRT_Buffer_CopyToDevice {previous.device.id} -> {device.id}: data changed")
        assert not previous.is_deleted, "PJRT_Buffer_CopyToDevice deleted its source buffer"
    assert_same(first.to_numpy(), source, "source buffer changed after a CopyToDevice chain")


def test_launch_ids_do_not_change_results(all_devices, run_on_devices) -> None:
    """launch_id tags one multi-device launch; every device of it gets the same id, results are unaffected."""
    n = len(all_devices)
    inputs = [np.arange(4, dtype=np.float32) + 100.0 * r for r in range(n)]
    expected = np.sum(inputs, axis=0, dtype=np.float32)
    for launch_id in (1, 7, 2**31 - 1, 1, 0):
        results = run_on_devices(all_reduce_program(n), [[d.id] for d in all_devices], [[x] for x in inputs],
                                 launch_id=launch_id, want_device_events=True)
        for device, _replica, outputs in results:
            assert_same(outputs[0], expected,
                                          f"all_reduce with launch_id={launch_id}: wrong result on device {device.id}")


def test_argument_lists_with_too_few_rows_is_invalid_argument(client, all_devices) -> None:
    exe = client.compile(REPLICA_ID, num_replicas=len(all_devices), device_assignment=[[d.id] for d in all_devices])
    every = [[client.buffer_from_numpy(np.zeros(4, np.float32), d)] for d in exe.addressable_devices]
    rows = every[:-1]
    expect_rejection(lambda: exe.execute_sharded(rows), control=lambda: exe.execute_sharded(every),
                     function="PJRT_LoadedExecutable_Execute",
                     what=f"{len(rows)} argument lists for {len(all_devices)} devices")



def _two_dimensional_all_reduce(replicas: int, partitions: int) -> str:
    groups = ", ".join("[" + ", ".join(str(r * partitions + p) for p in range(partitions)) + "]" for r in range(replicas))
    return f"""
func.func @main(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<ui32>) {{
  %0 = "stablehlo.all_reduce"(%a) ({{
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }}) {{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
      replica_groups = dense<[{groups}]> : tensor<{replicas}x{partitions}xi64>, use_global_device_ids}}
      : (tensor<2xf32>) -> tensor<2xf32>
  %r = stablehlo.replica_id : tensor<ui32>
  return %0, %r : tensor<2xf32>, tensor<ui32>
}}"""


@requires(devices=4)
def test_replicas_by_partitions_follow_two_dimensional_assignment(client, all_devices, run_on_devices) -> None:
    """2 replicas x N/2 partitions on a shuffled [replica][partition] table; all_reduce over each replica's partitions."""
    replicas, partitions = 2, len(all_devices) // 2
    ids = [d.id for d in all_devices[: replicas * partitions]]
    shuffled = ids[1::2] + ids[0::2]
    assignment = [shuffled[r * partitions:(r + 1) * partitions] for r in range(replicas)]
    rows = [[np.full(2, 2.0 ** logical, np.float32)] for logical in range(replicas * partitions)]
    results = run_on_devices(_two_dimensional_all_reduce(replicas, partitions), assignment, rows, use_spmd_partitioning=True)
    for device, logical, (total, replica_id) in results:
        replica = logical // partitions
        expected = np.full(2, sum(2.0 ** (replica * partitions + p) for p in range(partitions)), np.float32)
        assert_same(total, expected, f"all_reduce over the partitions of replica {replica} on device {device.id} "
                                     f"(assignment {assignment})")
        assert int(replica_id) == replica, (
            f"assignment {assignment}: device {device.id} is replica {replica} but stablehlo.replica_id returned {int(replica_id)}"
        )


@requires("LoadedExecutable_AddressableDeviceLogicalIds", devices=4)
def test_addressable_device_logical_ids_match_assignment(client, all_devices) -> None:
    """PJRT_LoadedExecutable_AddressableDeviceLogicalIds (0.96+) agrees with the compiled device assignment."""
    replicas, partitions = 2, len(all_devices) // 2
    ids = [d.id for d in all_devices[: replicas * partitions]][::-1]
    assignment = [ids[r * partitions:(r + 1) * partitions] for r in range(replicas)]
    exe = client.compile(_two_dimensional_all_reduce(replicas, partitions), num_replicas=replicas, num_partitions=partitions,
                         device_assignment=assignment, use_spmd_partitioning=True)
    with unsupported_if_unimplemented("PJRT_LoadedExecutable_AddressableDeviceLogicalIds"):
        reported = exe.addressable_device_logical_ids
    devices = [d.id for d in exe.addressable_devices]
    expected = [next((r, p) for r in range(replicas) for p in range(partitions) if assignment[r][p] == d) for d in devices]
    assert reported == expected, (
        f"PJRT_LoadedExecutable_AddressableDeviceLogicalIds returned {reported} for devices {devices}; "
        f"the assignment {assignment} gives {expected}"
    )
