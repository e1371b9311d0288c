"""ctypes glue: the PJRT_KeyValue{Get,TryGet,Put}Callback functions a caller passes to PJRT_Client_Create.

Ownership (PJRT C API): get/try_get allocate the value with libc malloc and hand the plugin a
deleter; the plugin copies the bytes and calls the deleter once. Errors are built with the
plugin's own constructor, `*callback_error` (a PJRT_CallbackError* points at the function pointer).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import threading
from dataclasses import dataclass, field
from typing import Any

from pjrt_cts.abi import structs
from pjrt_cts.abi.callbacks import CallbackErrorFunction, KeyValueCallback, ValueDeleterCallback
from pjrt_cts.abi.enums import ErrorCode
from pjrt_cts.kvstore.store import KeyNotFound, KeyTimeout, KeyValueStoreError, KeyValueStoreLike

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
_libc.malloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]
_libc.free.restype = None
_libc.free.argtypes = [ctypes.c_void_p]

_STORE_ERROR_CODES: dict[type, ErrorCode] = {KeyNotFound: ErrorCode.NOT_FOUND, KeyTimeout: ErrorCode.DEADLINE_EXCEEDED}


@dataclass
class CallRecord:
    op: str  # "get" | "try_get" | "put"
    key: bytes
    timeout_ms: int | None = None  # what the plugin asked for (get only)
    error_code: str | None = None  # the code of the error we returned, None on success


@dataclass
class KeyValueStats:
    calls: list[CallRecord] = field(default_factory=list)
    allocations: int = 0  # values malloc'ed and handed to the plugin
    frees: int = 0  # values the plugin gave back through value_deleter_callback
    problems: list[str] = field(default_factory=list)  # contract violations seen from the plugin side


def _call_error_constructor(callback_error: int, code: ErrorCode, message: str) -> int:
    function_pointer = ctypes.c_void_p.from_address(callback_error).value
    if not function_pointer:
        return 0
    text = message.encode()
    return int(CallbackErrorFunction(function_pointer)(int(code), text, len(text)) or 0)


class KeyValueCallbacks:
    """Callbacks over `store`, keys prefixed with `namespace` (the caller namespaces keys per plugin).

    `max_get_timeout_s` caps the plugin's get timeout so a missing peer surfaces quickly;
    `fail_puts` makes every put fail with UNAVAILABLE (to check the plugin surfaces it).
    Keep the object alive as long as the plugin may call it (Client.create does, for the client's life).
    """

    def __init__(self, store: KeyValueStoreLike, *, namespace: bytes | str = b"", max_get_timeout_s: float | None = None,
                 fail_puts: bool = False) -> None:
        self.store = store
        self.namespace = namespace.encode() if isinstance(namespace, str) else bytes(namespace)
        self.max_get_timeout_s = max_get_timeout_s
        self.fail_puts = fail_puts
        self.stats = KeyValueStats()
        self._lock = threading.Lock()
        self._live_values: set[int] = set()
        # Distinct user_arg tokens: each callback checks the plugin passed its own back.
        self._tokens = {name: ctypes.c_int(i) for i, name in enumerate(("get", "try_get", "put"))}
        self._get = KeyValueCallback(self._on_get)
        self._try_get = KeyValueCallback(self._on_try_get)
        self._put = KeyValueCallback(self._on_put)
        self._deleter = ValueDeleterCallback(self._on_delete_value)

    # ---- wiring ---------------------------------------------------------------------------------
    def pointer(self, op: str) -> int:
        """The C function pointer of callback `op` ("get", "try_get", "put")."""
        function = {"get": self._get, "try_get": self._try_get, "put": self._put}[op]
        return int(ctypes.cast(function, ctypes.c_void_p).value or 0)

    def user_arg(self, op: str) -> int:
        return ctypes.addressof(self._tokens[op])

    @property
    def deleter_pointer(self) -> int:
        return int(ctypes.cast(self._deleter, ctypes.c_void_p).value or 0)

    def install(self, create_args: structs.PJRT_Client_Create_Args) -> None:
        create_args.kv_get_callback = self.pointer("get")
        create_args.kv_get_user_arg = self.user_arg("get")
        create_args.kv_put_callback = self.pointer("put")
        create_args.kv_put_user_arg = self.user_arg("put")
        create_args.kv_try_get_callback = self.pointer("try_get")
        create_args.kv_try_get_user_arg = self.user_arg("try_get")

    @property
    def outstanding_values(self) -> int:
        """Values handed to the plugin and not yet given back through the deleter."""
        with self._lock:
            return len(self._live_values)

    # ---- the callbacks ----------------------------------------------------------------------------
    def _record(self, record: CallRecord) -> None:
        with self._lock:
            self.stats.calls.append(record)

    def _problem(self, text: str) -> None:
        with self._lock:
            self.stats.problems.append(text)

    def _check_user_arg(self, op: str, user_arg: int | None) -> None:
        if (user_arg or 0) != self.user_arg(op):
            self._problem(f"{op} callback got user_arg 0x{user_arg or 0:x}, expected 0x{self.user_arg(op):x}")

    def _fail(self, record: CallRecord, callback_error: int, code: ErrorCode, message: str) -> int:
        record.error_code = code.name
        if not callback_error:
            self._problem(f"{record.op} callback: the plugin passed callback_error=NULL, cannot report {code.name}")
            return 0
        error = _call_error_constructor(callback_error, code, message)
        if not error:
            self._problem(f"{record.op} callback: the plugin's PJRT_CallbackError returned NULL for {code.name}")
        return error

    def _hand_out(self, args: Any, value: bytes) -> None:
        pointer = _libc.malloc(max(1, len(value)))
        if not pointer:
            raise MemoryError(f"malloc({len(value)}) failed")
        ctypes.memmove(pointer, value, len(value))
        with self._lock:
            self._live_values.add(int(pointer))
            self.stats.allocations += 1
        args.value = pointer
        args.value_size = len(value)
        args.value_deleter_callback = self.deleter_pointer

    def _read_key(self, args: Any) -> bytes:
        return ctypes.string_at(args.key, args.key_size) if args.key and args.key_size else b""

    def _serve_get(self, op: str, address: int, struct: Any, fetch: Any) -> int:
        record = CallRecord(op, b"")
        try:
            args = struct.from_address(address)
            record.key = self._read_key(args)
            self._check_user_arg(op, args.user_arg)
            if op == "get":
                record.timeout_ms = int(args.timeout_in_ms)
            self._record(record)
            try:
                value = fetch(self.namespace + record.key, record.timeout_ms)
            except KeyValueStoreError as error:
                code = _STORE_ERROR_CODES.get(type(error), ErrorCode.UNAVAILABLE)
                return self._fail(record, args.callback_error, code, f"key-value {op} {record.key!r}: {error}")
            self._hand_out(args, value)
            return 0
        except Exception as error:  # noqa: BLE001 - never let an exception cross into C (ctypes would swallow it)
            self._problem(f"{op} callback raised {error!r}")
            callback_error = ctypes.c_void_p.from_address(address + (40 if op == "get" else 32)).value or 0
            return self._fail(record, callback_error, ErrorCode.INTERNAL, f"key-value {op} failed: {error!r}")

    def _effective_timeout_s(self, timeout_ms: int | None) -> float:
        requested = max(0, timeout_ms or 0) / 1000.0
        return requested if self.max_get_timeout_s is None else min(requested, self.max_get_timeout_s)

    def _on_get(self, address: int) -> int:
        return self._serve_get("get", address, structs.PJRT_KeyValueGetCallback_Args,
                               lambda key, ms: self.store.get(key, self._effective_timeout_s(ms)))

    def _on_try_get(self, address: int) -> int:
        return self._serve_get("try_get", address, structs.PJRT_KeyValueTryGetCallback_Args,
                               lambda key, _ms: self.store.try_get(key))

    def _on_put(self, address: int) -> int:
        record = CallRecord("put", b"")
        try:
            args = structs.PJRT_KeyValuePutCallback_Args.from_address(address)
            record.key = self._read_key(args)
            self._check_user_arg("put", args.user_arg)
            self._record(record)
            if self.fail_puts:
                return self._fail(record, args.callback_error, ErrorCode.UNAVAILABLE,
                                  f"key-value put {record.key!r}: injected failure (fail_puts)")
            value = ctypes.string_at(args.value, args.value_size) if args.value and args.value_size else b""
            try:
                self.store.put(self.namespace + record.key, value)
            except KeyValueStoreError as error:
                return self._fail(record, args.callback_error, ErrorCode.UNAVAILABLE, f"key-value put {record.key!r}: {error}")
            return 0
        except Exception as error:  # noqa: BLE001 - never let an exception cross into C (ctypes would swallow it)
            self._problem(f"put callback raised {error!r}")
            callback_error = ctypes.c_void_p.from_address(address + 48).value or 0
            return self._fail(record, callback_error, ErrorCode.INTERNAL, f"key-value put failed: {error!r}")

    def _on_delete_value(self, pointer: int | None) -> None:
        with self._lock:
            if pointer is None or int(pointer) not in self._live_values:
                self.stats.problems.append(f"value_deleter_callback called with 0x{pointer or 0:x}, not a live value")
                return  # never free what we did not allocate (or twice)
            self._live_values.discard(int(pointer))
            self.stats.frees += 1
        _libc.free(pointer)
