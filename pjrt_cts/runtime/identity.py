"""A plugin's identity card: what `pjrt-cts info` shows and results.json records under "plugin"."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Mapping

from pjrt_cts.runtime.errors import PjrtError
from pjrt_cts.runtime.named_values import NamedValue
from pjrt_cts.runtime.plugin import Plugin


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _json_value(value: NamedValue) -> Any:
    return value


def plugin_identity(plugin: Plugin, create_options: Mapping[str, NamedValue] | None = None, *, with_sha256: bool = True) -> dict[str, Any]:
    """Everything about the plugin that does not need a test to judge it; a Client_Create failure is recorded."""
    identity: dict[str, Any] = {
        "path": str(plugin.path),
        "sha256": file_sha256(plugin.path) if with_sha256 else None,
        "api_version": plugin.version_string,
        "api_major": plugin.api_version[0],
        "api_minor": plugin.api_version[1],
        "struct_size": plugin.struct_size,
        "num_slots": plugin.num_slots,
        "missing_slots": [slot.c_name for slot in plugin.missing_slots()],
        "extensions": [{"type": e.type, "name": e.name, "struct_size": e.struct_size} for e in plugin.extensions],
        "attributes": {},
        "create_options": dict(create_options or {}),
        "platform_name": None,
        "platform_version": None,
        "process_index": None,
        "devices": [],
        "client_error": None,
    }
    try:
        identity["attributes"] = {name: _json_value(value) for name, value in plugin.attribute_items()}
    except PjrtError as error:
        identity["attributes_error"] = {"code": error.code, "message": error.message}
    try:
        client = plugin.create_client(create_options or {})
    except PjrtError as error:
        identity["client_error"] = {"function": error.function, "code": error.code, "message": error.message}
        return identity
    with client:
        identity["platform_name"] = client.platform_name
        identity["platform_version"] = client.platform_version
        identity["process_index"] = client.process_index
        addressable = {d.handle for d in client.addressable_devices}
        for device in client.devices:
            entry: dict[str, Any] = {"id": device.id, "kind": device.kind, "process_index": device.process_index, "addressable": device.handle in addressable}
            if device.handle in addressable:
                entry["local_hardware_id"] = device.local_hardware_id
                entry["memories"] = [memory.kind for memory in device.memories]
                entry["default_memory"] = device.default_memory.kind
            identity["devices"].append(entry)
    return identity
