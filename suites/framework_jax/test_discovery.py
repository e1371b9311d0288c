"""JAX finds the plugin: jax.devices(<backend>) lists the devices pjrt_cts sees, with the same
platform name and kinds; jaxlib's version policy agrees with the plugin's API version."""
from __future__ import annotations

from typing import Any

from pjrt_cts.framework import compat
from pjrt_cts.framework.lazy import jax


def test_jax_initializes_the_plugin(jax_registration: Any) -> None:
    assert jax_registration.error is None, jax_registration.error
    assert jax_registration.backend is not None


def test_jax_devices_lists_the_plugin_devices(jax_sut: Any, client: Any) -> None:
    listed = jax.devices(jax_sut.name)
    expected = client.addressable_devices
    assert len(listed) == len(expected), (
        f"jax.devices({jax_sut.name!r}) lists {len(listed)} devices, PJRT_Client_AddressableDevices {len(expected)}"
    )
    assert all(device.client is jax_sut.backend for device in listed), "jax.devices() lists another client's devices"
    assert sorted(d.id for d in listed) == sorted(d.id for d in expected), (
        f"device ids in JAX {sorted(d.id for d in listed)} != PJRT {sorted(d.id for d in expected)}"
    )


def test_platform_name_matches_pjrt(jax_sut: Any, client: Any) -> None:
    from pjrt_cts.framework.jax_backend import jax_platform_of

    expected = jax_platform_of(client.platform_name)  # JAX spells "cuda"/"rocm" as "gpu"
    assert jax_sut.platform == expected, (
        f"JAX backend platform {jax_sut.platform!r} != {expected!r} (PJRT_Client_PlatformName {client.platform_name!r})"
    )
    for device in jax.devices(jax_sut.name):
        assert device.platform == expected, f"{device!r}.platform is {device.platform!r}, expected {expected!r}"


def test_platform_version_matches_pjrt(jax_sut: Any, client: Any) -> None:
    # jaxlib's C API client reports "PJRT C API\n<PJRT_Client_PlatformVersion>".
    reported = jax_sut.backend.platform_version
    assert reported.splitlines()[-1:] == [client.platform_version] or reported == client.platform_version, (
        f"JAX backend platform_version {reported!r} does not carry PJRT_Client_PlatformVersion {client.platform_version!r}"
    )


def test_device_kinds_match_pjrt(jax_sut: Any, client: Any) -> None:
    kinds = {d.id: d.kind for d in client.addressable_devices}
    for device in jax.devices(jax_sut.name):
        assert device.device_kind == kinds[device.id], (
            f"device {device.id}: JAX device_kind {device.device_kind!r} != PJRT_DeviceDescription_Kind {kinds[device.id]!r}"
        )


def test_backend_reports_the_plugin_api_version(jax_sut: Any, plugin: Any) -> None:
    assert jax_sut.api_version == tuple(plugin.api_version), (
        f"JAX backend says PJRT C API {jax_sut.api_version}, the plugin's PJRT_Api says {plugin.api_version}"
    )


def test_builtin_cpu_backend_stays_separate(jax_sut: Any) -> None:
    reference = jax.devices("cpu")
    assert reference, "JAX's built-in CPU backend has no devices"
    assert all(d.client is not jax_sut.backend for d in reference), "jax.devices('cpu') returns the plugin's devices"
    assert not set(reference) & set(jax_sut.devices)
    assert jax.default_backend() == "cpu"


def test_jaxlib_version_policy_matches_its_loader(jax_registration: Any, plugin: Any) -> None:
    """With ENABLE_PJRT_COMPATIBILITY=false jaxlib wants its exact version: our model of the policy
    must predict what its loader does, and it names the framework version."""
    version = jax_registration.plugin_version
    probe = compat.probe_framework_api_version(plugin.path, version, jax_registration.preload)
    assert probe.framework_version is not None, f"jaxlib did not name its framework PJRT API version: {probe.output}"
    strict = compat.JaxlibApiPolicy(compat.installed_jaxlib_version(), False, probe.framework_version)
    predicted = strict.rejection(version) is None
    assert predicted == probe.accepted_exactly, (
        f"plugin {compat.format_version(version)}, framework {compat.format_version(probe.framework_version)}: "
        f"policy predicts {'accept' if predicted else 'reject'}, jaxlib's loader said: {probe.output[-300:]}"
    )
