"""Just enough protobuf wire format to write and read xla.CompileOptionsProto (no protobuf dependency)."""
from __future__ import annotations

from typing import Iterator

VARINT, FIXED64, LENGTH_DELIMITED, FIXED32 = 0, 1, 2, 5


def encode_varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64  # int64 negatives are 10-byte two's complement varints
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def tag(field: int, wire_type: int) -> bytes:
    return encode_varint((field << 3) | wire_type)


def varint_field(field: int, value: int) -> bytes:
    return tag(field, VARINT) + encode_varint(int(value))


def bytes_field(field: int, payload: bytes) -> bytes:
    return tag(field, LENGTH_DELIMITED) + encode_varint(len(payload)) + payload


def packed_varints_field(field: int, values: list[int]) -> bytes:
    return bytes_field(field, b"".join(encode_varint(v) for v in values))


def decode_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def iter_fields(data: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """Yield (field number, wire type, value) for each field; value is int or bytes."""
    pos = 0
    while pos < len(data):
        key, pos = decode_varint(data, pos)
        field, wire_type = key >> 3, key & 7
        if wire_type == VARINT:
            value, pos = decode_varint(data, pos)
            yield field, wire_type, value
        elif wire_type == LENGTH_DELIMITED:
            length, pos = decode_varint(data, pos)
            if pos + length > len(data):
                raise ValueError("truncated length-delimited field")
            yield field, wire_type, data[pos : pos + length]
            pos += length
        elif wire_type == FIXED64:
            yield field, wire_type, int.from_bytes(data[pos : pos + 8], "little")
            pos += 8
        elif wire_type == FIXED32:
            yield field, wire_type, int.from_bytes(data[pos : pos + 4], "little")
            pos += 4
        else:
            raise ValueError(f"unsupported wire type {wire_type}")


def as_int64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def repeated_varints(wire_type: int, value: int | bytes) -> list[int]:
    """The values of a repeated integer field's occurrence: one VARINT, or a packed (LENGTH_DELIMITED) run."""
    if wire_type == VARINT and isinstance(value, int):
        return [value]
    if wire_type != LENGTH_DELIMITED or not isinstance(value, bytes):
        raise ValueError(f"repeated integer field with wire type {wire_type}")
    out, pos = [], 0
    while pos < len(value):
        item, pos = decode_varint(value, pos)
        out.append(item)
    return out
