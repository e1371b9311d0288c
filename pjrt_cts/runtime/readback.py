"""Host readback that cannot pass without the plugin writing the destination.

Every host destination is filled with a poison pattern before the plugin copies into it. After the
copy, positions that still hold the poison are suspects: either the data really has those bytes or
the plugin never wrote them. Only then is the copy repeated into a destination poisoned with a second,
different pattern; a position that is real data holds the same value both times, an unwritten one
holds each pattern in turn. The common case (no suspect) costs one copy.

Suspects are every aligned 4-byte word that equals the poison word, every byte of the unaligned tail,
and the first and last byte (so a copy that stops, or starts, in the middle of a word is still seen).
Once a second copy is made, every byte is compared, so the count and first offset reported are exact.
"""
from __future__ import annotations

import ctypes
from typing import Callable

import numpy as np

FIRST_POISON = 0xA5
SECOND_POISON = 0x5A
_WORD = 4


class UnwrittenHostBytes(AssertionError):
    """A host copy reported success but left part of the destination unwritten.

    An AssertionError: the plugin produced a wrong result (the runner reports the test as FAIL).
    """

    def __init__(self, function: str, size: int, unwritten: int, first_offset: int) -> None:
        self.function = function  # e.g. "PJRT_Buffer_ToHostBuffer"
        self.size = size
        self.unwritten = unwritten
        self.first_offset = first_offset
        super().__init__(
            f"{function} reported success but left {unwritten} of {size} bytes of the host destination unwritten "
            f"(first at byte offset {first_offset}): they still held the poison pattern after a copy into a "
            f"destination filled with 0x{FIRST_POISON:02X} and after a second copy into one filled with "
            f"0x{SECOND_POISON:02X}"
        )


def poison(address: int, size: int) -> None:
    """Fill `size` bytes at `address` with the first poison pattern (for destinations the caller owns)."""
    if size:
        ctypes.memset(address, FIRST_POISON, size)


def _has_suspects(data: np.ndarray) -> bool:
    """Whether any position may be unwritten (False: the fast path, one copy)."""
    aligned = data.size - data.size % _WORD
    if data[0] == FIRST_POISON or data[-1] == FIRST_POISON or (data[aligned:] == FIRST_POISON).any():
        return True
    return bool((data[:aligned].view(np.uint32) == np.uint32(FIRST_POISON * 0x01010101)).any())


def read_checked(copy: Callable[[int], None], size: int, function: str) -> np.ndarray:
    """`size` bytes that `copy(address)` wrote (it must complete before returning), as a uint8 array.

    Raises UnwrittenHostBytes naming `function` when part of the destination was not written.
    """
    first = np.full(max(size, 1), FIRST_POISON, dtype=np.uint8)  # a valid address even for 0 bytes
    copy(first.ctypes.data)
    first = first[:size]
    if not size or not _has_suspects(first):
        return first
    second = np.full(size, SECOND_POISON, dtype=np.uint8)
    copy(second.ctypes.data)
    # Now byte by byte: a byte the plugin wrote holds the same value after both copies.
    unwritten = (first == FIRST_POISON) & (second != first)
    if unwritten.any():
        raise UnwrittenHostBytes(function, size, int(unwritten.sum()), int(np.argmax(unwritten)))
    return first
