"""The transfer layer's fixture: upload/readback helpers bound to the session client. Sample arrays and the
bit-exact comparison come from pjrt_cts.testing.arrays, shared by every layer."""
from __future__ import annotations

from typing import Any

import pytest


class Transfers:
    """Upload/readback helpers bound to the session client (requirements are declared with `@requires`)."""

    def __init__(self, plugin: Any, client: Any, devices: list[Any]) -> None:
        self.plugin = plugin
        self.client = client
        self.devices = devices

    def memory_of_kind(self, device: Any, kind: str) -> Any:
        """The memory of `kind` of `device` (tests declare `requires(memory_kind=kind)` for device 0)."""
        for memory in device.memories:
            if memory.kind == kind:
                return memory
        raise AssertionError(f"PJRT_Device_AddressableMemories of device {device.id} lists no {kind!r} memory "
                             f"(it has {[m.kind for m in device.memories]}), though device {self.devices[0].id} does")


@pytest.fixture(scope="session")
def transfers(plugin: Any, client: Any, devices: list[Any]) -> Transfers:
    return Transfers(plugin, client, devices)
