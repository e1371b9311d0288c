"""Deterministic mutations of StableHLO program text.

Input n of a run depends only on (seed, n, the seed programs): `mutant(programs, seed, n)` is
reproducible alone, so a crash report needs just the seed and the index. Mutations avoid making
*valid* programs with huge shapes (that would test the host's memory, not the plugin's parser).
"""
from __future__ import annotations

import dataclasses
import random
import re
from typing import Callable, Sequence

_TOKEN = re.compile(rb"\s+|%[\w.#]+|[A-Za-z_][\w.$]*|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|\"[^\"\n]*\"|.", re.S)
_ELEMENT_TYPE = re.compile(rb"\b(?:f16|f32|f64|bf16|i1|i8|i16|i32|i64|ui8|ui32|ui64|complex<f32>)\b")
_SWAP_TYPES = (b"f16", b"f32", b"f64", b"bf16", b"i1", b"i8", b"i32", b"i64", b"ui32", b"complex<f32>", b"f8E4M3FN",
               b"index", b"none", b"tensor<f32>", b"!stablehlo.token")
_SHAPE_DIM = re.compile(rb"(?<=[<x])(\d+)(?=x)")
_ATTRIBUTE = re.compile(
    rb"(dims|dimensions|contracting_dims|across dimensions|dim|dense|batching_dims)\s*=?\s*(\[[^\]]*\]|<[^>]*>|\d+)"
)
_OP_NAME = re.compile(rb"stablehlo\.[a-z_]+")
_OP_NAMES = (b"stablehlo.add", b"stablehlo.dot_general", b"stablehlo.reduce", b"stablehlo.while", b"stablehlo.return",
             b"stablehlo.constant", b"stablehlo.custom_call", b"stablehlo.all_reduce", b"stablehlo.after_all",
             b"stablehlo.tuple", b"stablehlo.get_tuple_element", b"stablehlo.convert", b"stablehlo.bitcast_convert",
             b"stablehlo.reshape", b"stablehlo.slice", b"stablehlo.rng", b"stablehlo.infeed", b"stablehlo.sort",
             b"func.call", b"stablehlo.unknown_op")
# Replacement values: small, zero, negative, non-numeric or overflowing; never large-but-valid.
_BAD_NUMBERS = (b"0", b"1", b"3", b"-1", b"-7", b"2147483648", b"99999999999999999999", b"1.5", b"nan", b"")
_GARBAGE = (b"[", b"]", b"<", b">", b"{", b"}", b"(", b")", b"%", b":", b",", b"=", b"\"", b"#", b"!", b"@", b"\x00",
            b"\xff", b"\xc3\x28", b"->", b"^bb0", b"%arg99", b"dense<", b"tensor<", b"loc(", b"\\")


@dataclasses.dataclass(frozen=True)
class Mutant:
    seed: int
    index: int
    program: str  # name of the seed program
    mutations: tuple[str, ...]  # applied in order, e.g. ("type_swap", "truncate")
    data: bytes
    family: str = "text"  # "text" (StableHLO assembly) or "bytecode" (portable artifact)

    @property
    def name(self) -> str:
        return f"fuzz-{self.seed}-{self.index}" if self.family == "text" else f"fuzz-bc-{self.seed}-{self.index}"

    @property
    def suffix(self) -> str:
        return ".mlir" if self.family == "text" else ".mlirbc"


def _tokens(data: bytes) -> list[bytes]:
    return _TOKEN.findall(data)


def _non_space(tokens: Sequence[bytes]) -> list[int]:
    return [i for i, token in enumerate(tokens) if not token.isspace()]


def byte_flip(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return b"\xff"
    buf = bytearray(data)
    for _ in range(1 + rng.randrange(3)):
        pos = rng.randrange(len(buf))
        buf[pos] ^= 1 << rng.randrange(8)
    return bytes(buf)


def token_delete(data: bytes, rng: random.Random) -> bytes:
    tokens = _tokens(data)
    candidates = _non_space(tokens)
    if not candidates:
        return data[:-1]
    del tokens[rng.choice(candidates)]
    return b"".join(tokens)


def token_duplicate(data: bytes, rng: random.Random) -> bytes:
    tokens = _tokens(data)
    candidates = _non_space(tokens)
    if not candidates:
        return data + data
    i = rng.choice(candidates)
    tokens.insert(i, tokens[i] + (b" " if rng.random() < 0.5 else b""))
    return b"".join(tokens)


def token_insert_garbage(data: bytes, rng: random.Random) -> bytes:
    tokens = _tokens(data)
    tokens.insert(rng.randrange(len(tokens) + 1), rng.choice(_GARBAGE))
    return b"".join(tokens)


def type_swap(data: bytes, rng: random.Random) -> bytes:
    matches = list(_ELEMENT_TYPE.finditer(data))
    if not matches:
        return byte_flip(data, rng)
    match = rng.choice(matches)
    replacement = rng.choice([t for t in _SWAP_TYPES if t != match.group(0)])
    return data[: match.start()] + replacement + data[match.end():]


def shape_corrupt(data: bytes, rng: random.Random) -> bytes:
    matches = list(_SHAPE_DIM.finditer(data))
    if not matches:
        return type_swap(data, rng)
    match = rng.choice(matches)
    return data[: match.start()] + rng.choice(_BAD_NUMBERS) + data[match.end():]


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data))] if data else data


def attribute_corrupt(data: bytes, rng: random.Random) -> bytes:
    matches = list(_ATTRIBUTE.finditer(data))
    if not matches:
        return token_insert_garbage(data, rng)
    match = rng.choice(matches)
    start, end = match.span(2)
    value = data[start:end]
    choice = rng.randrange(4)
    if choice == 0:  # a number inside the value becomes a bad one
        numbers = list(re.finditer(rb"-?\d+(?:\.\d+)?", value))
        if numbers:
            number = rng.choice(numbers)
            value = value[: number.start()] + rng.choice(_BAD_NUMBERS) + value[number.end():]
        else:
            value = value[:-1]
    elif choice == 1:  # unbalanced brackets
        value = value[:-1]
    elif choice == 2:  # an element too many
        value = value[:-1] + b", 0" + value[-1:] if len(value) > 1 else value + b"0"
    else:  # the wrong kind of value
        value = rng.choice((b"\"text\"", b"[]", b"<>", b"unit", b"[[0]]", b"dense<[1, 2]>", b"#stablehlo<bad>"))
    return data[:start] + value + data[end:]


def op_swap(data: bytes, rng: random.Random) -> bytes:
    matches = list(_OP_NAME.finditer(data))
    if not matches:
        return token_delete(data, rng)
    match = rng.choice(matches)
    replacement = rng.choice([name for name in _OP_NAMES if name != match.group(0)])
    return data[: match.start()] + replacement + data[match.end():]


def line_swap(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    if len(lines) < 3:
        return token_delete(data, rng)
    i, j = rng.sample(range(len(lines)), 2)
    lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "byte_flip": byte_flip,
    "token_delete": token_delete,
    "token_duplicate": token_duplicate,
    "token_insert_garbage": token_insert_garbage,
    "type_swap": type_swap,
    "shape_corrupt": shape_corrupt,
    "truncate": truncate,
    "attribute_corrupt": attribute_corrupt,
    "op_swap": op_swap,
    "line_swap": line_swap,
}


# ---- binary mutations, for MLIR bytecode (portable artifacts) -------------------------------------


def byte_insert(data: bytes, rng: random.Random) -> bytes:
    pos = rng.randrange(len(data) + 1)
    return data[:pos] + bytes([rng.randrange(256)]) + data[pos:]


def byte_delete(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return data
    pos = rng.randrange(len(data))
    return data[:pos] + data[pos + 1:]


def byte_set_extreme(data: bytes, rng: random.Random) -> bytes:
    """A varint/length byte becomes 0, 0x7f, 0x80 or 0xff (lengths and counts go wild)."""
    if not data:
        return b"\xff"
    buf = bytearray(data)
    buf[rng.randrange(len(buf))] = rng.choice((0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF))
    return bytes(buf)


def chunk_duplicate(data: bytes, rng: random.Random) -> bytes:
    if len(data) < 2:
        return data + data
    start = rng.randrange(len(data) - 1)
    end = min(len(data), start + 1 + rng.randrange(16))
    return data[:end] + data[start:end] + data[end:]


BYTECODE_MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "byte_flip": byte_flip,
    "byte_insert": byte_insert,
    "byte_delete": byte_delete,
    "byte_set_extreme": byte_set_extreme,
    "chunk_duplicate": chunk_duplicate,
    "truncate": truncate,
}
FAMILIES: dict[str, dict[str, Callable[[bytes, random.Random], bytes]]] = {
    "text": MUTATIONS, "bytecode": BYTECODE_MUTATIONS,
}


def mutant(programs: Sequence[tuple[str, bytes]], seed: int, index: int, max_mutations: int = 3,
           family: str = "text") -> Mutant:
    """Input `index` of the run `seed`: one seed program with 1..max_mutations mutations applied.

    `family` picks the mutation set ("text" for StableHLO assembly, "bytecode" for portable artifacts)."""
    if not programs:
        raise ValueError("the fuzzer needs at least one seed program")
    kinds = FAMILIES[family]
    names = tuple(kinds)
    prefix = "pjrt-cts-fuzz" if family == "text" else f"pjrt-cts-fuzz-{family}"
    rng = random.Random(f"{prefix}/{seed}/{index}")
    name, data = programs[rng.randrange(len(programs))]
    applied: list[str] = []
    for _ in range(1 + rng.randrange(max_mutations)):
        kind = rng.choice(names)
        data = kinds[kind](data, rng)
        applied.append(kind)
    return Mutant(seed=seed, index=index, program=name, mutations=tuple(applied), data=data, family=family)


def mutants(programs: Sequence[tuple[str, bytes]], seed: int, start: int, count: int,
            family: str = "text") -> list[Mutant]:
    return [mutant(programs, seed, index, family=family) for index in range(start, start + count)]
