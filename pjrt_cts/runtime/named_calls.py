"""Slot calls that name their PJRT function in a Python stack dump.

A plugin that crashes or hangs inside a call leaves only faulthandler's dump of the Python stacks (the runner
reads it from the worker's stderr, pjrt_cts.runner.crashlog). A raw ctypes call shows up there as the runtime's
line that made it, which does not say which function of the table was running. Every slot callable is therefore
wrapped in a one-line function whose code object is named after the PJRT function, so the dump's innermost frame
reads `in PJRT_Client_Compile`: the finding names the function it crashed or hung in.
"""
from __future__ import annotations

import functools
import sys
import types
from typing import Any, Callable


def _call(function: Callable[..., Any], *args: Any) -> Any:
    return function(*args)


def named_call(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` behind a frame named `name` (e.g. "PJRT_Client_Compile")."""
    code = _call.__code__.replace(co_name=name)
    if sys.version_info >= (3, 11):
        code = code.replace(co_qualname=name)
    return functools.partial(types.FunctionType(code, {}, name), function)
