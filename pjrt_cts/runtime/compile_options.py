"""Build and read serialized xla.CompileOptionsProto bytes for PJRT_Client_Compile.

Only the few fields a conformance suite needs: ExecutableBuildOptionsProto (field 3) with
device_ordinal (1), num_replicas (4), num_partitions (5), use_spmd_partitioning (6) and
device_assignment (9: DeviceAssignmentProto{replica_count 1, computation_count 2,
computation_devices 3{replica_device_ids 1}}). Empty options bytes abort real plugins
(num_replicas 0), so callers always get at least num_replicas = num_partitions = 1.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from pjrt_cts.runtime import protobuf_wire as wire

_EXECUTABLE_BUILD_OPTIONS = 3
_COMPILE_PORTABLE_EXECUTABLE = 4  # CompileOptionsProto field: not bound to devices; run with execute_device
_DEVICE_ORDINAL, _NUM_REPLICAS, _NUM_PARTITIONS, _USE_SPMD, _DEVICE_ASSIGNMENT = 1, 4, 5, 6, 9
_REPLICA_COUNT, _COMPUTATION_COUNT, _COMPUTATION_DEVICES, _REPLICA_DEVICE_IDS = 1, 2, 3, 1


@dataclass
class CompileOptions:
    num_replicas: int = 1
    num_partitions: int = 1
    device_ordinal: int = -1
    use_spmd_partitioning: bool = False
    # device_assignment[replica][partition] = device id; None lets the plugin choose.
    device_assignment: list[list[int]] | None = None
    unknown_fields: list[int] = field(default_factory=list)
    compile_portable_executable: bool = False

    def to_bytes(self) -> bytes:
        build = wire.varint_field(_DEVICE_ORDINAL, self.device_ordinal)
        build += wire.varint_field(_NUM_REPLICAS, self.num_replicas)
        build += wire.varint_field(_NUM_PARTITIONS, self.num_partitions)
        if self.use_spmd_partitioning:
            build += wire.varint_field(_USE_SPMD, 1)
        if self.device_assignment is not None:
            build += wire.bytes_field(_DEVICE_ASSIGNMENT, _encode_device_assignment(self.device_assignment))
        options = wire.bytes_field(_EXECUTABLE_BUILD_OPTIONS, build)
        if self.compile_portable_executable:
            options += wire.varint_field(_COMPILE_PORTABLE_EXECUTABLE, 1)
        return options

    @classmethod
    def from_bytes(cls, data: bytes) -> "CompileOptions":
        """Parse the fields above out of a serialized CompileOptionsProto (others are ignored)."""
        options = cls(num_replicas=0, num_partitions=0, device_ordinal=0)
        for number, _, value in wire.iter_fields(data):
            if number == _COMPILE_PORTABLE_EXECUTABLE:
                options.compile_portable_executable = bool(value)
                continue
            if number != _EXECUTABLE_BUILD_OPTIONS:
                options.unknown_fields.append(number)
                continue
            assert isinstance(value, bytes)
            for inner, _, inner_value in wire.iter_fields(value):
                if inner == _DEVICE_ORDINAL:
                    options.device_ordinal = wire.as_int64(int(inner_value))
                elif inner == _NUM_REPLICAS:
                    options.num_replicas = int(inner_value)
                elif inner == _NUM_PARTITIONS:
                    options.num_partitions = int(inner_value)
                elif inner == _USE_SPMD:
                    options.use_spmd_partitioning = bool(inner_value)
                elif inner == _DEVICE_ASSIGNMENT:
                    options.device_assignment = _decode_device_assignment(inner_value)  # type: ignore[arg-type]  # a length-delimited field: bytes
        return options


def _encode_device_assignment(assignment: Sequence[Sequence[int]]) -> bytes:
    replicas = len(assignment)
    partitions = len(assignment[0]) if replicas else 0
    if any(len(row) != partitions for row in assignment):
        raise ValueError("device_assignment must be a rectangular [replica][partition] table")
    body = wire.varint_field(_REPLICA_COUNT, replicas) + wire.varint_field(_COMPUTATION_COUNT, partitions)
    for partition in range(partitions):  # one ComputationDevice per partition, listing a device per replica
        ids = [assignment[replica][partition] for replica in range(replicas)]
        body += wire.bytes_field(_COMPUTATION_DEVICES, wire.packed_varints_field(_REPLICA_DEVICE_IDS, ids))
    return body


def _decode_device_assignment(data: bytes) -> list[list[int]]:
    replicas = partitions = 0
    columns: list[list[int]] = []
    for number, _wire_type, value in wire.iter_fields(data):
        if number == _REPLICA_COUNT:
            replicas = int(value)
        elif number == _COMPUTATION_COUNT:
            partitions = int(value)
        elif number == _COMPUTATION_DEVICES:
            ids: list[int] = []
            for inner, inner_type, inner_value in wire.iter_fields(value):  # type: ignore[arg-type]  # a length-delimited field: bytes
                if inner != _REPLICA_DEVICE_IDS:
                    continue
                if inner_type == wire.LENGTH_DELIMITED:
                    pos = 0
                    while pos < len(inner_value):  # type: ignore[arg-type]  # a packed field: bytes
                        device, pos = wire.decode_varint(inner_value, pos)  # type: ignore[arg-type]  # a packed field: bytes
                        ids.append(wire.as_int64(device))
                else:
                    ids.append(wire.as_int64(int(inner_value)))
            columns.append(ids)
    del partitions  # implied by the number of columns
    return [[column[r] for column in columns] for r in range(replicas)]


def compile_options_bytes(
    num_replicas: int = 1,
    num_partitions: int = 1,
    device_assignment: list[list[int]] | None = None,
    use_spmd_partitioning: bool = False,
) -> bytes:
    return CompileOptions(
        num_replicas=num_replicas,
        num_partitions=num_partitions,
        device_assignment=device_assignment,
        use_spmd_partitioning=use_spmd_partitioning,
    ).to_bytes()


def decode_device_assignment(data: bytes) -> list[list[int]]:
    """A serialized DeviceAssignmentProto (e.g. from PJRT_LoadedExecutable_GetDeviceAssignment) as [replica][partition]."""
    return _decode_device_assignment(data)
