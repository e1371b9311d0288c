"""Loading a PJRT plugin in this process and calling its function table safely."""
from __future__ import annotations

import ctypes
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TypeVar

from pjrt_cts.abi import structs
from pjrt_cts.abi.api import PJRT_Api_Head
from pjrt_cts.abi.callbacks import GetPjrtApiFunction, SlotFunction, VoidSlotFunction
from pjrt_cts.abi.enums import ErrorCode, ExtensionType
from pjrt_cts.abi.slots import SLOTS, SLOTS_BY_NAME, VOID_FUNCTIONS, Slot, slot_count_for_struct_size
from pjrt_cts.runtime import callcount, calltimes
from pjrt_cts.runtime.hooks import CallHook, add_call_hook, call_hooks, remove_call_hook
from pjrt_cts.runtime.errors import DLOPEN_FAILED, MissingFunction, NullExtensionFunction, PjrtError, PluginLoadError
from pjrt_cts.runtime.named_calls import named_call
from pjrt_cts.runtime.named_values import NamedValue, read_named_value_items
from pjrt_cts.runtime.payloads import read_payloads

_ArgsT = TypeVar("_ArgsT", bound=ctypes.Structure)  # a call returns the args struct it was given
calltimes.install_if_requested()  # opt-in: benchmarks/bench_run_overhead.py measures the plugin floor
callcount.install_if_requested()  # a run's workers and their children: the API coverage of each test

_initialized_apis: set[int] = set()
_init_lock = threading.Lock()
_MAX_EXTENSIONS = 256  # a longer chain is treated as a cycle


def _address_of(symbol: Any) -> int:
    """The address of a ctypes function symbol (never NULL: dlsym found it)."""
    return int(ctypes.cast(symbol, ctypes.c_void_p).value or 0)


@dataclass(frozen=True)
class ExtensionInfo:
    type: int
    name: str  # ExtensionType name, or "UNKNOWN_<n>"
    struct_size: int
    address: int


class Plugin:
    """A PJRT plugin: its GetPjrtApi table, version, slot availability, extensions and attributes."""

    def __init__(self, path: Path, library: ctypes.CDLL, api_address: int) -> None:
        self.path = path
        self._library = library
        self.api_address = api_address
        head = PJRT_Api_Head.from_address(api_address)
        self.struct_size = int(head.struct_size)
        self.api_version = (int(head.pjrt_api_version.major_version), int(head.pjrt_api_version.minor_version))
        self.api_version_struct_size = int(head.pjrt_api_version.struct_size)
        self.extension_start = int(head.extension_start or 0)
        self._pointers = self._read_slot_pointers()
        self._has_payloads = self.has("Error_ForEachPayload")  # read on every error: looked up once
        self._functions: dict[str, Callable[..., Any]] = {}
        self._attribute_items: list[tuple[str, NamedValue]] | None = None

    # ---- loading -------------------------------------------------------------------------------
    @classmethod
    def load(cls, path: "str | os.PathLike[str]", *, preload: "Sequence[str | os.PathLike[str]]" = (), initialize: bool = True) -> "Plugin":
        """dlopen `path`, call GetPjrtApi and (once per process and plugin) PJRT_Plugin_Initialize."""
        file = Path(path)
        for hook in call_hooks():
            hook.before_load(file)
        if not file.exists():
            raise PluginLoadError(f"{file}: no such file")
        if not file.is_file():
            raise PluginLoadError(f"{file}: not a file")
        for library in preload:  # dependencies whose sonames the plugin needs, made global first
            ctypes.CDLL(str(library), mode=ctypes.RTLD_GLOBAL)
        try:
            library = ctypes.CDLL(str(file.resolve()), mode=os.RTLD_LAZY | os.RTLD_LOCAL)
        except OSError as exc:
            raise PluginLoadError(f"{file}: {DLOPEN_FAILED}: {exc}") from None
        try:
            symbol = library.GetPjrtApi
        except AttributeError:
            raise PluginLoadError(f"{file}: shared library does not export GetPjrtApi") from None
        get_api = GetPjrtApiFunction(_address_of(symbol))
        api_address = int(get_api() or 0)
        if not api_address:
            raise PluginLoadError(f"{file}: GetPjrtApi() returned NULL")
        plugin = cls(file.resolve(), library, api_address)
        if initialize:
            plugin.initialize_once()
        return plugin

    def get_pjrt_api_again(self) -> int:
        """Call GetPjrtApi once more (the ABI layer checks it is stable)."""
        return int(GetPjrtApiFunction(_address_of(self._library.GetPjrtApi))() or 0)

    def initialize_once(self) -> None:
        with _init_lock:
            if self.api_address in _initialized_apis:
                return
            self.initialize()
            _initialized_apis.add(self.api_address)

    def initialize(self) -> None:
        """PJRT_Plugin_Initialize (frameworks call it once; the ABI layer checks a second call is harmless)."""
        self.call("Plugin_Initialize", structs.PJRT_Plugin_Initialize_Args())

    # ---- slots --------------------------------------------------------------------------------
    def _read_slot_pointers(self) -> dict[str, int]:
        count = min(slot_count_for_struct_size(self.struct_size), len(SLOTS))
        if not count:
            return {}
        raw = (ctypes.c_void_p * count).from_address(self.api_address + 40)
        return {SLOTS[i].name: int(raw[i] or 0) for i in range(count)}

    @property
    def version_string(self) -> str:
        return f"{self.api_version[0]}.{self.api_version[1]}"

    @property
    def num_slots(self) -> int:
        return slot_count_for_struct_size(self.struct_size)

    def slot_pointer(self, name: str) -> int:
        return self._pointers.get(name, 0)

    def has(self, name: str) -> bool:
        return bool(self._pointers.get(name))

    def missing_slots(self) -> list[Slot]:
        """Slots of the 0.114 header that this plugin lacks (beyond struct_size or NULL)."""
        return [slot for slot in SLOTS if not self.has(slot.name)]

    def null_slots_within_struct_size(self) -> list[Slot]:
        return [slot for slot in SLOTS if slot.name in self._pointers and not self._pointers[slot.name]]

    def function(self, name: str) -> Callable[..., Any]:
        """The callable for slot `name` (its ctypes function behind a frame named `PJRT_<name>`, so that a stack dump
        names it); raises MissingFunction if the plugin lacks it."""
        fn = self._functions.get(name)
        if fn is None:
            pointer = self._pointers.get(name, 0)
            if not pointer:
                raise MissingFunction("PJRT_" + name, self.version_string, self._why_missing(name))
            kind = VoidSlotFunction if name in VOID_FUNCTIONS else SlotFunction
            fn = named_call("PJRT_" + name, kind(pointer))  # a crash or hang in it names it (named_calls.py)
            self._functions[name] = fn
        for hook in call_hooks():
            fn = hook.slot_function(self, name, fn)
        return fn

    @staticmethod
    def add_call_hook(hook: CallHook) -> None:
        """Intercept every load and slot call of this process (pjrt_cts.runtime.hooks)."""
        add_call_hook(hook)

    @staticmethod
    def remove_call_hook(hook: CallHook) -> None:
        remove_call_hook(hook)

    def _why_missing(self, name: str) -> str:
        slot = SLOTS_BY_NAME.get(name)
        if slot is None:
            return "unknown function"
        if name not in self._pointers:
            return (
                f"PJRT_Api struct_size {self.struct_size} ends before slot {slot.index} (offset {slot.offset}, "
                f"added in API 0.{slot.since_minor})"
            )
        return f"slot {slot.index} is NULL"

    # ---- calls and errors ----------------------------------------------------------------------
    def call(self, name: str, args: _ArgsT) -> _ArgsT:
        """Call slot `name` with `args`; a returned PJRT_Error becomes PjrtError (and is destroyed)."""
        error = self.function(name)(ctypes.addressof(args))
        if error:
            raise self.consume_error(error, "PJRT_" + name)
        return args

    def call_status(self, name: str, args: ctypes.Structure) -> PjrtError | None:
        """Like call() but returns the error instead of raising it."""
        error = self.function(name)(ctypes.addressof(args))
        return self.consume_error(error, "PJRT_" + name) if error else None

    def call_with_struct_size(
        self, name: str, struct_type: type[ctypes.Structure], struct_size: int, *, tail: int = 0, fill: int | None = None,
        **fields: Any,
    ) -> tuple[Any, PjrtError | None]:
        """Call slot `name` with a `struct_type` args struct whose struct_size is `struct_size`.

        Emulates an older caller (smaller size) or a newer one (larger size with `tail` zeroed bytes
        after the struct). With `fill`, every byte from offset `struct_size` on (memory an older caller
        would not own) is set to `fill` after `fields` are written, so stray reads/writes show up.
        Returns (args view, error or None); read output fields from the view.
        """
        storage = (ctypes.c_uint8 * (ctypes.sizeof(struct_type) + tail))()
        args = struct_type.from_buffer(storage)
        for field, value in fields.items():
            setattr(args, field, value)
        args.struct_size = struct_size
        if fill is not None and struct_size < len(storage):
            start = max(struct_size, ctypes.sizeof(ctypes.c_size_t))
            ctypes.memset(ctypes.addressof(storage) + start, fill, len(storage) - start)
        return args, self.call_status(name, args)

    def consume_error(self, error: int, function: str) -> PjrtError:
        """Copy code, message and payloads out of a PJRT_Error, destroy it, and return the PjrtError."""
        converted = self.read_error(error, function)
        self.destroy_error(error)
        return converted

    def read_error(self, error: int, function: str) -> PjrtError:
        """Copy code, message and payloads out of a PJRT_Error the caller does not own (the plugin destroys it, e.g.
        one handed to a callback for the call's duration), and return the PjrtError."""
        code_value, message = self.inspect_error(error)
        payloads, problem = read_payloads(self, error, function) if self._has_payloads else ({}, None)
        return PjrtError(function, self.error_code_name(code_value), message, code_value, payloads=payloads,
                         payload_problem=problem)

    @staticmethod
    def error_code_name(code_value: int) -> str:
        try:
            return ErrorCode(code_value).name
        except ValueError:
            return f"UNKNOWN_CODE_{code_value}"

    def inspect_error(self, error: int) -> tuple[int, str]:
        message_args = structs.PJRT_Error_Message_Args(error=error)
        self.function("Error_Message")(ctypes.addressof(message_args))
        message = ""
        if message_args.message and message_args.message_size:
            message = ctypes.string_at(message_args.message, message_args.message_size).decode(errors="replace")
        code_args = structs.PJRT_Error_GetCode_Args(error=error)
        nested = self.function("Error_GetCode")(ctypes.addressof(code_args))
        if nested:  # GetCode itself failed: report that, do not recurse forever
            self.destroy_error(nested)
            return int(ErrorCode.UNKNOWN), message
        return int(code_args.code), message

    def destroy_error(self, error: int) -> None:
        args = structs.PJRT_Error_Destroy_Args(error=error)  # must stay referenced during the call
        self.function("Error_Destroy")(ctypes.addressof(args))

    # ---- attributes and extensions ------------------------------------------------------------
    def attribute_items(self) -> list[tuple[str, NamedValue]]:
        """PJRT_Plugin_Attributes in plugin order, duplicates kept."""
        if self._attribute_items is None:
            args = self.call("Plugin_Attributes", structs.PJRT_Plugin_Attributes_Args())
            self._attribute_items = read_named_value_items(args.attributes, args.num_attributes)
        return self._attribute_items

    def read_attribute_items(self) -> list[tuple[str, NamedValue]]:
        """PJRT_Plugin_Attributes called afresh (not cached): for checks that the answer is stable."""
        args = self.call("Plugin_Attributes", structs.PJRT_Plugin_Attributes_Args())
        return read_named_value_items(args.attributes, args.num_attributes)

    @property
    def attributes(self) -> dict[str, NamedValue]:
        return dict(self.attribute_items())

    @property
    def extensions(self) -> list[ExtensionInfo]:
        """Walk the extension chain (stops on a repeat or after _MAX_EXTENSIONS links; see extension_chain_problems)."""
        return self._walk_extensions()[0]

    def extension_chain_problems(self) -> list[str]:
        return self._walk_extensions()[1]

    def _walk_extensions(self) -> tuple[list[ExtensionInfo], list[str]]:
        found: list[ExtensionInfo] = []
        problems: list[str] = []
        seen: set[int] = set()
        address = self.extension_start
        while address:
            if address in seen:
                problems.append(f"extension chain has a cycle back to 0x{address:x}")
                break
            if len(found) >= _MAX_EXTENSIONS:
                problems.append(f"extension chain longer than {_MAX_EXTENSIONS}")
                break
            seen.add(address)
            base = structs.PJRT_Extension_Base.from_address(address)
            try:
                name = ExtensionType(base.type).name
            except ValueError:
                name = f"UNKNOWN_{base.type}"
            found.append(ExtensionInfo(int(base.type), name, int(base.struct_size), address))
            if base.struct_size < structs.PJRT_Extension_Base.STRUCT_SIZE:
                problems.append(f"extension {name} has struct_size {base.struct_size} < {structs.PJRT_Extension_Base.STRUCT_SIZE}")
            address = int(base.next or 0)
        return found, problems

    def find_extension(self, extension_type: ExtensionType) -> ExtensionInfo | None:
        return next((ext for ext in self.extensions if ext.type == extension_type), None)

    # ---- extension functions ----------------------------------------------------------------------
    def extension_function(
        self, extension: ExtensionType, name: str, offset: int, *,
        prototype: Callable[[int], Callable[..., Any]] = SlotFunction,
    ) -> Callable[..., Any]:
        """The function pointer at byte `offset` of the plugin's `extension` struct, as a ctypes callable of
        `prototype` (default: `PJRT_Error* f(Args*)`), handed to the call hooks under the name
        `EXTENSION.name` (`LAYOUTS.Client_GetDefaultLayout`) as slot functions are under theirs, so that blocks,
        call accounting and narration see extension calls too. Raises MissingFunction when the plugin does not
        advertise the extension or its struct_size ends before the pointer (an older version of the extension), and
        NullExtensionFunction when the pointer is NULL."""
        qualified = f"{extension.name}.{name}"
        fn = self._functions.get(qualified)
        if fn is None:
            info = self.find_extension(extension)
            if info is None:
                raise MissingFunction(qualified, self.version_string, f"the plugin does not advertise {extension.name}")
            if info.struct_size < offset + ctypes.sizeof(ctypes.c_void_p):
                raise MissingFunction(qualified, self.version_string,
                                      f"{extension.name} struct_size {info.struct_size} ends before offset {offset}")
            pointer = int(ctypes.c_void_p.from_address(info.address + offset).value or 0)
            if not pointer:
                raise NullExtensionFunction(qualified, self.version_string,
                                            f"{extension.name} advertises struct_size {info.struct_size} but its "
                                            f"function at offset {offset} is NULL")
            fn = prototype(pointer)
            self._functions[qualified] = fn
        return self.hooked(qualified, fn)

    def hooked(self, qualified: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """`fn`, a function the plugin handed out outside its tables (e.g. PROFILER's PLUGIN_Profiler_Api), as the
        call hooks wrap it under the name `qualified` (`PROFILER.create`)."""
        for hook in call_hooks():
            fn = hook.slot_function(self, qualified, fn)
        return fn

    def call_extension(self, extension: ExtensionType, name: str, offset: int, args: _ArgsT) -> _ArgsT:
        """Call an extension function (extension_function) with `args`; a returned PJRT_Error becomes PjrtError
        naming the function `EXTENSION.name`."""
        error = self.extension_function(extension, name, offset)(ctypes.addressof(args))
        if error:
            raise self.consume_error(error, f"{extension.name}.{name}")
        return args

    # ---- clients ---------------------------------------------------------------------------------
    def create_client(self, options: Mapping[str, NamedValue] | None = None, **kwargs: Any) -> "Client":
        from pjrt_cts.runtime.client import Client

        return Client.create(self, options or {}, **kwargs)

    def __repr__(self) -> str:
        return f"<Plugin {self.path.name} API {self.version_string} slots={self.num_slots}>"


from pjrt_cts.runtime.client import Client  # noqa: E402  (type reference for create_client)
