"""Input donation: programs that alias an argument to an output (tf.aliasing_output / jax.buffer_donor).

Contract (PJRT_LoadedExecutable_Execute): a donated argument is consumed (IsDeleted afterwards) unless its
index is in ExecuteOptions.non_donatable_input_indices; passing one buffer twice when one use is donated
is INVALID_ARGUMENT; donation never frees memory an external holder still references.
"""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from pjrt_cts.runtime import HostBufferSemantics, buffer_type_of
from pjrt_cts.testing import (BlockedByFailure, assert_same, expect_rejection, not_applicable, refuse_or_succeed,
                              requires, unsupported_if_unimplemented)

EXECUTE = "PJRT_LoadedExecutable_Execute"


# func.func argument attribute that marks %a donated, per frontend convention.
DONATION_ATTRIBUTES = {
    "tf_aliasing_output": "{tf.aliasing_output = 0 : i32}",
    "jax_buffer_donor": "{jax.buffer_donor = true}",
}


def add_program(donation_attribute: str, shape: str = "4xf32") -> str:
    """%a + %b with %a donated through `donation_attribute` ("" = no donation)."""
    return f"""
func.func @main(%a: tensor<{shape}> {donation_attribute}, %b: tensor<{shape}>) -> tensor<{shape}> {{
  %0 = stablehlo.add %a, %b : tensor<{shape}>
  return %0 : tensor<{shape}>
}}"""


@pytest.fixture(params=sorted(DONATION_ATTRIBUTES))
def donation_kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def donating_add(client, donation_kind):
    """A compiled f32[4] add whose first argument is donated (per `donation_kind`)."""
    return client.compile(add_program(DONATION_ATTRIBUTES[donation_kind]))


A = np.arange(4, dtype=np.float32)
B = np.full(4, 10.0, dtype=np.float32)


def _run(exe, client, device, **options):
    a = client.buffer_from_numpy(A, device)
    b = client.buffer_from_numpy(B, device)
    return a, b, exe.execute([a, b], **options)


def test_donated_input_is_deleted_after_execute(client, device, donating_add, donation_kind) -> None:
    a, b, outputs = _run(donating_add, client, device)
    assert_same(outputs[0].to_numpy(), A + B, "PJRT_LoadedExecutable_Execute: wrong result of a donating program")
    assert a.is_deleted, (
        f"donation ({donation_kind}): PJRT_Buffer_IsDeleted of the donated argument should be true after "
        "PJRT_LoadedExecutable_Execute, but it is false"
    )
    assert not b.is_deleted, "donation: PJRT_Buffer_IsDeleted of the argument that was not donated is true after Execute"


def test_donated_input_is_rejected_by_later_execute(client, device, donating_add, donation_kind) -> None:
    a, b, _ = _run(donating_add, client, device)
    if not a.is_deleted:
        raise BlockedByFailure(f"blocked: the plugin did not consume the donated argument ({donation_kind}) "
                               "(see donation.donation.test_donated_input_is_deleted_after_execute)")
    expect_rejection(lambda: donating_add.execute([a, b]), control=lambda: _run(donating_add, client, device)[2],
                     codes=("INVALID_ARGUMENT", "FAILED_PRECONDITION"), function=EXECUTE,
                     what=f"an argument consumed by an earlier donation ({donation_kind})")


@requires("Executable_GetCompiledMemoryStats", "Buffer_UnsafePointer")
def test_output_aliases_donated_input_when_plugin_reports_alias(client, device, donating_add, donation_kind) -> None:
    with unsupported_if_unimplemented("PJRT_Executable_GetCompiledMemoryStats"):
        stats = donating_add.executable.compiled_memory_stats()
    alias_bytes = stats["alias_size_in_bytes"] + stats["host_alias_size_in_bytes"]
    if alias_bytes <= 0:
        not_applicable(f"PJRT_Executable_GetCompiledMemoryStats reports alias_size_in_bytes=0 for a {donation_kind} "
                       "program: the plugin copies instead of aliasing (allowed)")
    a = client.buffer_from_numpy(A, device)
    b = client.buffer_from_numpy(B, device)
    with unsupported_if_unimplemented("PJRT_Buffer_UnsafePointer"):
        before = a.unsafe_pointer
    output = donating_add.execute([a, b])[0]
    after = output.unsafe_pointer
    assert after == before, (
        f"donation ({donation_kind}): GetCompiledMemoryStats reports {alias_bytes} alias bytes, but the output's "
        f"PJRT_Buffer_UnsafePointer 0x{after:x} differs from the donated argument's 0x{before:x}"
    )
    assert_same(output.to_numpy(), A + B, "aliased output has the wrong value")


def test_non_donatable_input_index_keeps_input_alive(client, device, donating_add, donation_kind) -> None:
    a, b, outputs = _run(donating_add, client, device, non_donatable_input_indices=[0])
    assert not a.is_deleted, (
        f"non_donatable_input_indices=[0] ({donation_kind}): PJRT_Buffer_IsDeleted of argument 0 is true after Execute"
    )
    assert_same(outputs[0].to_numpy(), A + B, "Execute with non_donatable_input_indices: wrong result")
    assert_same(a.to_numpy(), A, "non_donatable argument changed by Execute")
    again = donating_add.execute([a, b])[0]  # and it can still be donated afterwards
    assert_same(again.to_numpy(), A + B, "donating a previously kept argument: wrong result")


def test_same_buffer_donated_and_passed_again_is_invalid_argument(client, device, donating_add, donation_kind) -> None:
    a = client.buffer_from_numpy(A, device)
    error = expect_rejection(lambda: donating_add.execute([a, a]), control=lambda: _run(donating_add, client, device)[2],
                             function=EXECUTE, what=f"f(donate(a), a) ({donation_kind})")
    assert not a.is_deleted, (
        f"PJRT_LoadedExecutable_Execute rejected f(donate(a), a) ({error.code}) but deleted the argument anyway"
    )
    assert_same(a.to_numpy(), A, "argument of a rejected Execute changed")


def test_program_without_donation_keeps_inputs(client, device) -> None:
    exe = client.compile(add_program(""))
    a, b, outputs = _run(exe, client, device)
    assert not a.is_deleted and not b.is_deleted, "PJRT_LoadedExecutable_Execute deleted an argument of a program without donation"
    assert_same(outputs[0].to_numpy(), A + B, "wrong result")
    if a.is_on_cpu:
        assert outputs[0].unsafe_pointer != a.unsafe_pointer, "an output aliases an argument that was not donated"


@pytest.mark.isolated
def test_donating_externally_referenced_buffer_keeps_holder_memory(client, device, donating_add, donation_kind) -> None:
    """An external holder (DLPack) keeps the memory: Execute may refuse the donation or copy, never reuse it."""
    a = client.buffer_from_numpy(A, device).block_until_ready()  # its memory is read through a stream-less view
    b = client.buffer_from_numpy(B, device)
    a.increase_external_reference_count()
    pointer = a.opaque_device_memory_pointer
    read_held = _held_memory_reader(client, device, pointer, on_host=a.is_on_cpu)

    def check(outputs) -> None:
        out = outputs[0]
        assert_same(out.to_numpy(), A + B, "donating an externally referenced buffer: wrong result")
        assert out.opaque_device_memory_pointer != pointer, (
            f"donation ({donation_kind}) of a buffer with an external reference: the output was written into the "
            f"externally held memory 0x{pointer:x}"
        )
        # Churn the allocator: freed memory would be reused and overwritten.
        scratch = [client.buffer_from_numpy(np.full(4, -1.0, np.float32), device) for _ in range(16)]
        del scratch

    outputs = refuse_or_succeed(lambda: donating_add.execute([a, b]), check=check, function=EXECUTE,
                                codes=("INVALID_ARGUMENT", "FAILED_PRECONDITION"),
                                what="donating an externally referenced buffer")
    assert_same(
        read_held(), A,
        f"memory held through PJRT_Buffer_IncreaseExternalReferenceCount changed after a donating Execute ({donation_kind})",
    )
    del outputs  # alive until the held memory was read
    if not a.is_deleted:
        a.decrease_external_reference_count()


def _held_memory_reader(client, device, pointer: int, on_host: bool):
    """Reads A.size f32 at `pointer`: directly on host memory, else through a CreateViewOfDeviceBuffer view."""
    if on_host:
        return lambda: np.frombuffer(bytes((ctypes.c_char * A.nbytes).from_address(pointer)), dtype=np.float32)
    client.plugin.function("Client_CreateViewOfDeviceBuffer")  # device memory is read through a view: missing slot

    def read() -> np.ndarray:
        with unsupported_if_unimplemented("PJRT_Client_CreateViewOfDeviceBuffer"):
            view = client.create_view_of_device_buffer(pointer, A.shape, buffer_type_of(A.dtype), device=device,
                                                       memory=device.default_memory, on_delete=lambda ptr, arg: None)
        try:
            return view.to_numpy()
        finally:
            view.close()

    return read


def test_donating_buffer_whose_transfer_has_not_finished(client, device, donation_kind) -> None:
    big = np.arange(1 << 18, dtype=np.float32)
    ones = np.ones_like(big)
    exe = client.compile(add_program(DONATION_ATTRIBUTES[donation_kind], f"{big.size}xf32"))
    a, done = client.buffer_from_host_async(big, device, semantics=HostBufferSemantics.IMMUTABLE_UNTIL_TRANSFER_COMPLETES)
    b = client.buffer_from_numpy(ones, device)
    output = exe.execute([a, b])[0]  # immediately: the host-to-device copy may still be running
    if done is not None:
        done.wait()
        done.close()
    assert_same(output.to_numpy(), big + 1,
                                  "donating a buffer whose BufferFromHostBuffer transfer was in flight: wrong result")
    assert a.is_deleted, "donated argument (transfer in flight) not deleted after Execute"


def test_donating_output_of_pending_execution(client, device, donating_add) -> None:
    a = client.buffer_from_numpy(A, device)
    b = client.buffer_from_numpy(B, device)
    value = a
    for _ in range(8):  # each output is donated to the next launch before anyone waited for it
        value = donating_add.execute([value, b])[0]
    assert_same(value.to_numpy(), A + 8 * B, "chain of donating Executes: wrong result")


def test_donating_zero_copy_buffer_leaves_host_array_intact(client, device, donation_kind) -> None:
    """kImmutableZeroCopy promises the host array is never written: donation must not write the output there."""
    backing = np.zeros(4 * 4 + 256, np.uint8)  # 256-byte aligned: XLA CPU plugins alias only aligned host memory
    offset = (-backing.ctypes.data) % 256
    host = backing[offset: offset + 16].view(np.float32)
    host[:] = np.arange(4, dtype=np.float32)
    keep = host.copy()
    with unsupported_if_unimplemented("PJRT_Client_BufferFromHostBuffer"):
        a = client.buffer_from_numpy(host, device, semantics=HostBufferSemantics.IMMUTABLE_ZERO_COPY)
    b = client.buffer_from_numpy(B, device)
    exe = client.compile(add_program(DONATION_ATTRIBUTES[donation_kind]))
    output = exe.execute([a, b])[0]
    assert_same(output.to_numpy(), keep + B, "donating a zero-copy buffer: wrong result")
    assert_same(
        host, keep,
        f"donating a kImmutableZeroCopy buffer ({donation_kind}) let Execute write into the caller's immutable host array",
    )


@requires(devices=2)
def test_donation_in_every_replica_of_a_replicated_program(client, donation_kind) -> None:
    devices = client.addressable_devices
    exe = client.compile(add_program(DONATION_ATTRIBUTES[donation_kind]), num_replicas=len(devices),
                         device_assignment=[[d.id] for d in devices])
    rows = [[client.buffer_from_numpy(A + r, d), client.buffer_from_numpy(B, d)] for r, d in enumerate(exe.addressable_devices)]
    outputs, _ = exe.execute_sharded(rows)
    for r, (row, out) in enumerate(zip(rows, outputs)):
        assert_same(out[0].to_numpy(), A + r + B, f"replica {r} of a donating replicated program: wrong result")
        assert row[0].is_deleted, f"donation ({donation_kind}): the donated argument of replica {r} is not deleted after Execute"
        assert not row[1].is_deleted, f"replica {r}: the argument that was not donated is deleted after Execute"
