"""PyTorch/XLA finds the plugin: torch_xla starts on it through torch_xla.experimental.plugins and lists the devices
pjrt_cts sees, with matching kinds. These tests run no program."""
from __future__ import annotations

from typing import Any


def test_torch_xla_initializes_the_plugin(torch_layer: Any) -> None:
    assert torch_layer.error is None, torch_layer.error
    assert torch_layer.info is not None and torch_layer.info.ok
    from pjrt_cts.framework.torch_session import PLUGIN_DEVICE_NAME

    assert torch_layer.info.device_type == PLUGIN_DEVICE_NAME, (
        f"torch_xla.runtime.device_type() is {torch_layer.info.device_type!r}: PJRT_DEVICE={PLUGIN_DEVICE_NAME} was "
        "not used")


def test_device_count_matches_pjrt(torch_sut: Any, client: Any) -> None:
    info = torch_sut.info
    assert info.addressable_device_count == len(client.addressable_devices), (
        f"torch_xla.runtime.addressable_runtime_device_count() is {info.addressable_device_count}, "
        f"PJRT_Client_AddressableDevices lists {len(client.addressable_devices)}")
    assert info.global_device_count == len(client.devices), (
        f"torch_xla.runtime.global_runtime_device_count() is {info.global_device_count}, "
        f"PJRT_Client_Devices lists {len(client.devices)}")
    assert len(info.devices) == len(client.addressable_devices), (
        f"xm.get_xla_supported_devices() lists {info.devices}, PJRT has {len(client.addressable_devices)} addressable "
        "devices")


def test_device_kinds_match_pjrt(torch_sut: Any, client: Any) -> None:
    """xm.xla_device_hw names the device type torch_xla derived from the plugin: the PJRT platform or device kind."""
    kinds = {d.kind.lower() for d in client.addressable_devices} | {client.platform_name.lower()}
    for name, hw in zip(torch_sut.info.devices, torch_sut.info.device_hw):
        assert hw.lower() in kinds, (
            f"xm.xla_device_hw({name}) is {hw!r}; the plugin's PJRT_Client_PlatformName is {client.platform_name!r} "
            f"and its device kinds {sorted(d.kind for d in client.addressable_devices)}")


def check_runtime_identity(ctx: Any) -> dict[str, Any]:
    import torch_xla.experimental.plugins as plugins

    return {"device": str(ctx.device), "device_type": str(ctx.xr.device_type()),
            "using_dynamic_plugins": bool(plugins.using_dynamic_plugins())}


def test_the_plugin_is_a_dynamic_plugin(torch_sut: Any, torch_check: Any) -> None:
    found = torch_check(__file__, "check_runtime_identity")
    assert found["using_dynamic_plugins"], "torch_xla.experimental.plugins.using_dynamic_plugins() is False"
    assert found["device"].startswith("xla"), f"torch_xla.device() is {found['device']}, not an XLA device"
