"""PJRT_ExecuteContext: per-execution state a caller hands to PJRT_LoadedExecutable_Execute.

    with ExecuteContext.create(plugin) as context:         # PJRT_ExecuteContext_Create (API 0.52)
        FfiExtension(plugin).add_user_data(context, type_id, address)
        outputs = executable.execute(buffers, context=context)   # PJRT_ExecuteOptions.context (API 0.64)
    # leaving the block: PJRT_ExecuteContext_Destroy (JAX destroys it as soon as Execute returns)

The context carries FFI user data to the program's custom calls; the plugin must take what it needs during
Execute, since the caller may destroy the context before the outputs are ready.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pjrt_cts.abi import structs
from pjrt_cts.runtime.handles import OwnedHandle

if TYPE_CHECKING:
    from pjrt_cts.runtime.plugin import Plugin

CONTEXT_OPTION_SINCE_MINOR = 64  # PJRT_ExecuteOptions.context


class ExecuteContext(OwnedHandle):
    """A PJRT_ExecuteContext this process owns; close() calls PJRT_ExecuteContext_Destroy once."""

    def __init__(self, plugin: "Plugin", handle: int) -> None:
        self.plugin = plugin

        def destroy(h: int) -> None:
            plugin.call("ExecuteContext_Destroy", structs.PJRT_ExecuteContext_Destroy_Args(context=h))

        self._own(handle, destroy)

    @classmethod
    def create(cls, plugin: "Plugin") -> "ExecuteContext":
        args = plugin.call("ExecuteContext_Create", structs.PJRT_ExecuteContext_Create_Args())
        if not args.context:
            raise ValueError("PJRT_ExecuteContext_Create succeeded but returned a NULL context")
        return cls(plugin, int(args.context))

    def __repr__(self) -> str:
        return f"<ExecuteContext 0x{self._handle:x}{' closed' if self.closed else ''}>"
