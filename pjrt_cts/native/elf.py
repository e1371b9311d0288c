"""Just enough ELF64 reading to answer: which sonames does a shared library need, which RUNPATH does
it carry, and which dynamic symbols does it define. Reads headers and two small sections, so it is
cheap even on a 500 MB plugin, and never loads the library."""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

_SHT_DYNSYM = 11
_SHT_DYNAMIC = 6
_DT_NEEDED, _DT_RPATH, _DT_RUNPATH = 1, 15, 29
_SHN_UNDEF = 0
_STB_WEAK = 2


class NotElfError(ValueError):
    """The file is not a little-endian ELF64 shared object this reader understands."""


@dataclass
class DynamicInfo:
    needed: list[str] = field(default_factory=list)  # DT_NEEDED sonames, in file order
    runpath: list[str] = field(default_factory=list)  # DT_RUNPATH (or DT_RPATH) entries, $ORIGIN unexpanded


@dataclass(frozen=True)
class _Section:
    type: int
    offset: int
    size: int
    link: int
    entsize: int


def _sections(data_file) -> list[_Section]:
    header = data_file.read(64)
    if len(header) < 64 or header[:4] != b"\x7fELF":
        raise NotElfError("not an ELF file")
    if header[4] != 2 or header[5] != 1:
        raise NotElfError("only little-endian ELF64 is supported")
    shoff = struct.unpack_from("<Q", header, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", header, 0x3A)
    data_file.seek(shoff)
    table = data_file.read(shentsize * shnum)
    sections = []
    for index in range(shnum):
        _name, sh_type, _flags, _addr, offset, size, link, _info, _align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", table, index * shentsize
        )
        sections.append(_Section(sh_type, offset, size, link, entsize))
    return sections


def _read(data_file, section: _Section) -> bytes:
    data_file.seek(section.offset)
    return data_file.read(section.size)


def _string(table: bytes, offset: int) -> str:
    end = table.find(b"\0", offset)
    return table[offset:end if end >= 0 else len(table)].decode("utf-8", "replace")


def dynamic_info(path: str | Path) -> DynamicInfo:
    """DT_NEEDED and DT_RUNPATH/DT_RPATH of a shared library."""
    info = DynamicInfo()
    with open(path, "rb") as data_file:
        sections = _sections(data_file)
        for section in sections:
            if section.type != _SHT_DYNAMIC:
                continue
            strings = _read(data_file, sections[section.link])
            entries = _read(data_file, section)
            rpath: list[str] = []
            for offset in range(0, len(entries) - 15, 16):
                tag, value = struct.unpack_from("<qQ", entries, offset)
                if tag == 0:
                    break
                if tag == _DT_NEEDED:
                    info.needed.append(_string(strings, value))
                elif tag == _DT_RUNPATH:
                    info.runpath.extend(p for p in _string(strings, value).split(":") if p)
                elif tag == _DT_RPATH:
                    rpath.extend(p for p in _string(strings, value).split(":") if p)
            if not info.runpath:
                info.runpath = rpath
    return info


def _dynamic_symbols(path: str | Path) -> Iterator[tuple[str, int, int]]:
    """(name, st_info, st_shndx) of every named entry of the library's .dynsym."""
    with open(path, "rb") as data_file:
        sections = _sections(data_file)
        for section in sections:
            if section.type != _SHT_DYNSYM:
                continue
            strings = _read(data_file, sections[section.link])
            symbols = _read(data_file, section)
            entsize = section.entsize or 24
            for offset in range(0, len(symbols) - entsize + 1, entsize):
                st_name, st_info, _other, st_shndx = struct.unpack_from("<IBBH", symbols, offset)
                if st_name:
                    yield _string(strings, st_name), st_info, st_shndx


def defined_dynamic_symbols(path: str | Path) -> set[str]:
    """Names the library exports (defined entries of .dynsym), without symbol versions."""
    return {name for name, _info, shndx in _dynamic_symbols(path) if shndx != _SHN_UNDEF}


def undefined_dynamic_symbols(path: str | Path) -> set[str]:
    """Names the library needs from others (undefined, non-weak entries of .dynsym)."""
    return {name for name, info, shndx in _dynamic_symbols(path) if shndx == _SHN_UNDEF and (info >> 4) != _STB_WEAK}
