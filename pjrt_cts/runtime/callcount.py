"""Which PJRT functions a process calls, how often, and what they returned: the per-test API coverage of a run.

`pjrt-cts run` asks each of its workers for it (pjrt_cts.runner.api_calls): with `PJRT_CTS_CALL_COUNTS=DIR` in the
environment, every process that imports the runtime adds a call hook (pjrt_cts.runtime.hooks) that wraps each
function it obtains through `Plugin.function`, `Plugin.extension_function` or `Plugin.hooked` (extension functions
under their `EXTENSION.function` names) in a counter. Each process counts in a table of its own,
`DIR/calls-<pid>.bin`, a file mapped into its memory: what a process counted is there even after it died, and so
is the function it was inside when it died (the last one entered, on any thread). `take()` hands out what this
process counted since it last did and starts again from zero; `read_ended(DIR)` reads (and removes) the tables of
the processes of DIR that have ended: a test's children (a robustness case, a multi-process node), an isolated
test's process, a worker that died. A fork starts a table of its own, with the same names.

What each function returned: `failed`, its calls that returned an error, and `codes`, the codes of those errors
that the caller read with `Error_GetCode` (or the profiler's `error_get_code`), matched by the error's address:
the hook never calls the plugin itself. A call that never returned (its process died inside it) counts as called
and failed with the pseudo-code NEVER_RETURNED. A missing function is never called, so it is not counted here
(the runner notes the lookups that found none). Counts are not locked: one augmented assignment per call, as
cheap as accounting gets in Python (docs/bench.md gives its cost over a full run); coverage wants to know that a
function was reached, not an exact figure under contention.

An environment variable, not the run context, for the reasons PJRT_CTS_CALL_TIMES is one (calltimes.py): it must
reach every process that loads a plugin, and the runtime imports nothing of the project but the ABI.
"""
from __future__ import annotations

import ctypes
import mmap
import os
import threading
from pathlib import Path
from typing import Any, Callable, Iterable

from pjrt_cts.abi.enums import ErrorCode
from pjrt_cts.runtime.hooks import WrappingHook, add_call_hook


ENV = "PJRT_CTS_CALL_COUNTS"
NEVER_RETURNED = "NEVER_RETURNED"  # the process died (or was killed) inside the call
_OTHER_CODE = "UNKNOWN_CODE"  # an error whose code is no PJRT_Error_Code
# Functions whose args struct is {struct_size, 8 bytes, error @16, code @24}: reading them tells an error's code.
_CODE_READERS = frozenset({"Error_GetCode", "PROFILER.error_get_code"})
_ERROR_AT, _CODE_AT = 16, 24

# The table: int32 cells. A header, then per function index its calls, its failed calls and a bit mask of the codes
# seen (bit c: PJRT_Error_Code c; _OTHER_BIT: any other value), then the names (NUL-padded UTF-8).
_MAGIC = 0x434C4C31  # "CLL1"
MAX_FUNCTIONS = 512  # names beyond it are not counted (the 0.114 header has 138 slots, the extensions ~150)
_NAME_BYTES = 80
_HEADER = 4  # magic, in-flight index (-1: none), names, unused
_IN_FLIGHT, _NAMES = 1, 2
_CALLS, _FAILED, _CODES = _HEADER, _HEADER + MAX_FUNCTIONS, _HEADER + 2 * MAX_FUNCTIONS
_NAMES_AT = (_HEADER + 3 * MAX_FUNCTIONS) * 4  # byte offset of the names
_SIZE = _NAMES_AT + MAX_FUNCTIONS * _NAME_BYTES
_OTHER_BIT = 1 << 17
_ZEROS = memoryview(bytearray(3 * MAX_FUNCTIONS * 4)).cast("i")
_CODE_NAMES = tuple(code.name for code in ErrorCode)  # by value, 0..16


# A function's counts: (calls, failed calls, the codes of the failures: ErrorCode names, UNKNOWN_CODE, NEVER_RETURNED).
# pjrt_cts.schema.Tally is their typed form in records.
Count = tuple[int, int, tuple[str, ...]]
Counts = dict[str, Count]


def _codes_of(mask: int) -> tuple[str, ...]:
    codes = [name for value, name in enumerate(_CODE_NAMES) if mask & (1 << value)]
    return (*codes, _OTHER_CODE) if mask & _OTHER_BIT else tuple(codes)


# -- this process's table ----------------------------------------------------------------------------------------


class _Table:
    """A process's counts: a file DIR/calls-<pid>.bin mapped shared (or anonymous memory where no DIR is set)."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        directory = os.environ.get(ENV)
        self.path: Path | None = None
        memory: mmap.mmap | None = None
        if directory:
            try:
                path = Path(directory)
                path.mkdir(parents=True, exist_ok=True)
                self.path = path / f"calls-{os.getpid()}.bin"
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
                try:
                    os.ftruncate(fd, _SIZE)
                    memory = mmap.mmap(fd, _SIZE)
                finally:
                    os.close(fd)
            except OSError:
                self.path, memory = None, None  # accounting must never change how a run ends
        self.memory = memory if memory is not None else mmap.mmap(-1, _SIZE)
        self.cells = memoryview(self.memory).cast("i")
        self.cells[0], self.cells[_IN_FLIGHT] = _MAGIC, -1
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        for name in names:
            self.index_of(name)

    def index_of(self, name: str) -> int | None:
        """The index of `name`, given one (and its name written) the first time; None when the table is full."""
        index = self.index.get(name)
        if index is not None:
            return index
        if len(self.names) >= MAX_FUNCTIONS:
            return None
        index = len(self.names)
        encoded = name.encode("utf-8")[:_NAME_BYTES - 1]
        start = _NAMES_AT + index * _NAME_BYTES
        self.memory[start:start + len(encoded)] = encoded
        self.names.append(name)
        self.index[name] = index
        self.cells[_NAMES] = len(self.names)
        return index

    def take(self) -> Counts:
        """The counts since the last take; the table starts again from zero."""
        count = len(self.names)
        cells = self.cells
        calls = cells[_CALLS:_CALLS + count].tolist()
        failed = cells[_FAILED:_FAILED + count].tolist()
        codes = cells[_CODES:_CODES + count].tolist()
        cells[_CALLS:_CODES + MAX_FUNCTIONS] = _ZEROS
        return {self.names[i]: (calls[i], failed[i], _codes_of(codes[i])) for i in range(count) if calls[i] or failed[i]}


_lock = threading.Lock()
_table: _Table | None = None  # made at the first function the hook wraps
_cells: memoryview = memoryview(bytearray(_SIZE)).cast("i")  # the table's cells, read by every counted call
_pending: dict[int, int] = {}  # an error's address -> the index of the function that returned it, until its code is read
_MAX_PENDING = 4096  # errors never read: forgotten past this many


def _ensure_table() -> _Table:
    global _table, _cells
    with _lock:
        if _table is None:
            _table = _Table()
            _cells = _table.cells
        return _table


def _after_fork_in_child() -> None:
    """A forked process counts in a table of its own (its parent's file is the parent's), with the same names: the
    wrappers it inherited hold their indices."""
    global _table, _cells, _lock
    _lock = threading.Lock()
    _pending.clear()
    if _table is not None:
        _table = _Table(_table.names)
        _cells = _table.cells


os.register_at_fork(after_in_child=_after_fork_in_child)


def _note_code(args: tuple[Any, ...]) -> None:
    """After a successful Error_GetCode: the code of the error, for the function that returned it."""
    if not args or not isinstance(args[0], int):
        return
    error = ctypes.c_void_p.from_address(args[0] + _ERROR_AT).value
    index = _pending.pop(error or 0, None)
    if index is None:
        return
    code = ctypes.c_int.from_address(args[0] + _CODE_AT).value
    _cells[_CODES + index] |= (1 << code) if 0 <= code < len(_CODE_NAMES) else _OTHER_BIT


def counted(index: int, function: Callable[..., Any], *, reads_code: bool) -> Callable[..., Any]:
    """`function` with its calls counted at `index` of this process's table. Every function the hooks see returns a
    PJRT_Error* (or the profiler's error) or nothing: a result that is not NULL is an error."""
    calls_at, failed_at = _CALLS + index, _FAILED + index

    def call(*args: Any) -> Any:
        cells = _cells
        outer = cells[_IN_FLIGHT]
        cells[_IN_FLIGHT] = index
        try:
            result = function(*args)
        finally:
            cells[_IN_FLIGHT] = outer
        cells[calls_at] += 1
        if result:
            cells[failed_at] += 1
            if len(_pending) >= _MAX_PENDING:
                _pending.clear()
            _pending[result] = index
        elif reads_code:
            _note_code(args)
        return result

    return call


class CountingHook(WrappingHook):
    """Hands out each function wrapped in a counter, one wrapper per function (made at its first lookup)."""

    def wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        index = _ensure_table().index_of(name)
        if index is None:
            return function
        return counted(index, function, reads_code=name in _CODE_READERS)


HOOK = CountingHook()


def install_if_requested() -> None:
    """Add the counting hook when PJRT_CTS_CALL_COUNTS asks for it (pjrt_cts.runtime.plugin does, on import)."""
    if os.environ.get(ENV):
        add_call_hook(HOOK)


def install(directory: Path) -> None:
    """Count this process's calls, and those of the processes it starts, in `directory`."""
    os.environ[ENV] = str(directory)
    add_call_hook(HOOK)


def take() -> Counts:
    """What this process counted since it last took (nothing where no function was counted yet)."""
    return _table.take() if _table is not None else {}


def directory() -> Path | None:
    """Where this process and the processes it starts count (PJRT_CTS_CALL_COUNTS), None when they do not."""
    value = os.environ.get(ENV)
    return Path(value) if value else None


def read_ended(where: Path) -> list[Counts]:
    """The tables of the processes of `where` that have ended (dead, or a zombie not yet reaped), removed once read.
    This process's own table and those of processes still running stay."""
    try:
        entries = list(os.scandir(where))
    except OSError:
        return []
    found: list[Counts] = []
    for entry in entries:
        pid = _pid_of(entry.name)
        if pid is None or pid == os.getpid() or _running(pid):
            continue
        found.append(read_table(Path(entry.path)))
        try:
            os.unlink(entry.path)
        except OSError:
            pass
    return found


def read_table(path: Path) -> Counts:
    """A table file's counts, the call in flight when its process ended counted as NEVER_RETURNED."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    if len(data) < _SIZE:
        return {}
    cells = memoryview(data)[:_NAMES_AT].cast("i")
    if cells[0] != _MAGIC:
        return {}
    count = min(max(cells[_NAMES], 0), MAX_FUNCTIONS)
    in_flight = cells[_IN_FLIGHT]
    found: Counts = {}
    for index in range(count):
        start = _NAMES_AT + index * _NAME_BYTES
        name = data[start:start + _NAME_BYTES].split(b"\0", 1)[0].decode("utf-8", "replace")
        calls, failed, codes = cells[_CALLS + index], cells[_FAILED + index], _codes_of(cells[_CODES + index])
        if index == in_flight:
            calls, failed, codes = calls + 1, failed + 1, (*codes, NEVER_RETURNED)
        if calls or failed:
            found[name] = (calls, failed, codes)
    return found


def _pid_of(file_name: str) -> int | None:
    if not (file_name.startswith("calls-") and file_name.endswith(".bin")):
        return None
    pid = file_name[len("calls-"):-len(".bin")]
    return int(pid) if pid.isdigit() else None


def _running(pid: int) -> bool:
    """Whether `pid` still runs (a zombie has ended: it counts no more)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"
