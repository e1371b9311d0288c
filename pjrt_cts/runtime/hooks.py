"""Call hooks: the one declared way to intercept a process's calls into PJRT plugins.

    class Refuse(CallHook):
        def slot_function(self, plugin, name, function):
            if name == "Client_Compile":
                raise RuntimeError("not in this process")
            return function

    Plugin.add_call_hook(Refuse())

Every `Plugin.load(path)` first asks each hook's `before_load(path)` (raise to refuse the load), and every lookup
of a slot function, `Plugin.function(name)` (which every slot call goes through), hands the slot's callable to each
hook's `slot_function(plugin, name, function)` in the order they were added: a hook returns the callable to use
(the one it got, or a wrapper of it) or raises to refuse the call. The hooks run at each lookup, not once per
slot, so a hook added later (or one whose decision changes) applies to plugins already loaded; a callable looked
up before (a handle's Destroy, kept for its finalizer) is not looked up again.

The project's hooks: the runner's blocks (pjrt_cts.runner.worker.blocking: a function that crashed or hung the run is not
called again), the benchmarks' call-time accounting (pjrt_cts.runtime.calltimes) and the preflight probe's
narration of each call (pjrt_cts.runner.probe_child).
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    from pjrt_cts.runtime.plugin import Plugin

SlotCallable = Callable[..., Any]  # a slot's ctypes function, or a hook's wrapper of it


class CallHook(Protocol):
    """Intercepts loads and slot calls. A class that names CallHook as its base inherits these defaults (they let
    everything through unchanged); one that has both methods is a hook without importing the runtime first."""

    def before_load(self, path: Path) -> None:
        """Called before `path` is loaded; raise to refuse loading it."""
        return None

    def slot_function(self, plugin: Plugin, name: str, function: SlotCallable) -> SlotCallable:
        """The callable `plugin.function(name)` returns: `function`, a wrapper of it, or raise to refuse the call."""
        return function


class WrappingHook(CallHook):
    """A hook that hands out each function wrapped once (the wrapper made at its first lookup, by `wrap`)."""

    def __init__(self) -> None:
        self._wrappers: dict[int, tuple[SlotCallable, SlotCallable]] = {}  # id -> (function, wrapper)

    def wrap(self, name: str, function: SlotCallable) -> SlotCallable:
        """The wrapper of `function` (or `function` itself, to leave it unwrapped)."""
        raise NotImplementedError

    def slot_function(self, plugin: Plugin, name: str, function: SlotCallable) -> SlotCallable:
        known = self._wrappers.get(id(function))
        if known is not None and known[0] is function:  # the entry holds the function: its id is not reused
            return known[1]
        wrapper = self.wrap(name, function)
        self._wrappers[id(function)] = (function, wrapper)
        return wrapper


_lock = threading.Lock()
_hooks: tuple[CallHook, ...] = ()  # replaced, never mutated: readers take the tuple without the lock


def add_call_hook(hook: CallHook) -> None:
    """Add `hook` after the hooks already there (adding one twice is a no-op)."""
    global _hooks
    with _lock:
        if hook not in _hooks:
            _hooks = (*_hooks, hook)


def remove_call_hook(hook: CallHook) -> None:
    global _hooks
    with _lock:
        _hooks = tuple(h for h in _hooks if h is not hook)


def call_hooks() -> tuple[CallHook, ...]:
    return _hooks
