"""Exceptions raised by the runtime: a plugin's PJRT_Error, or a function the plugin does not have."""
from __future__ import annotations


class PjrtError(Exception):
    """A PJRT_Error returned by a plugin function (already destroyed; its code, message and payloads copied)."""

    def __init__(self, function: str, code: str, message: str, code_value: int | None = None, *,
                 payloads: dict[bytes, bytes] | None = None, payload_problem: str | None = None) -> None:
        self.function = function  # e.g. "PJRT_Client_Compile"
        self.code = code  # enum name, e.g. "INVALID_ARGUMENT"
        self.code_value = code_value
        self.message = message
        self.payloads = payloads or {}  # PJRT_Error_ForEachPayload: type URL -> serialized payload
        self.payload_problem = payload_problem  # why the payloads could not be read (pjrt_cts.runtime.payloads)
        super().__init__(f"{function} failed: {code}: {message}")

    def as_error_of(self, function: str) -> "PjrtError":
        """The same error, reported as `function`'s (an event's error surfacing through the call that awaited it)."""
        return PjrtError(function, self.code, self.message, self.code_value, payloads=self.payloads,
                         payload_problem=self.payload_problem)


class MissingFunction(Exception):
    """The plugin lacks a function: beyond its PJRT_Api struct_size, or a NULL slot."""

    def __init__(self, function: str, plugin_version: str, reason: str) -> None:
        self.function = function
        self.plugin_version = plugin_version
        self.reason = reason
        super().__init__(f"{function} is not available in this plugin (API {plugin_version}): {reason}")


class NullExtensionFunction(MissingFunction):
    """A function of an extension the plugin advertises is NULL inside the extension's struct_size: the header
    gives the plugin no such choice, so it is a defect of the plugin, not a feature it lacks (the extensions
    layer fails it)."""


# What PluginLoadError says when dlopen itself fails (a library the plugin needs is missing, a wrong ELF): the one load
# failure the runner's preflight reports as a finding of its own (pjrt_cts.runner.controller.preflight).
DLOPEN_FAILED = "cannot be loaded as a shared library"


class PluginLoadError(Exception):
    """The file is not a loadable PJRT plugin (missing, not a shared library, no GetPjrtApi)."""
