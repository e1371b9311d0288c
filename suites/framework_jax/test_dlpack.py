"""jax.dlpack with the plugin's arrays: export to a consumer and import back, values intact."""
from __future__ import annotations

from typing import Any

import numpy as np

from pjrt_cts.framework.compare import assert_matches_reference
from pjrt_cts.testing import not_applicable, unsupported_if_unimplemented
from pjrt_cts.framework.lazy import jax

DLPACK_CPU = 1  # kDLCPU


def _data(dtype: Any = np.float32, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal((4, 6)) * 50).astype(dtype)


def test_plugin_array_round_trips_through_dlpack(sut_device: Any) -> None:
    """plugin array -> __dlpack__ capsule -> jax.dlpack.from_dlpack onto the plugin's device.

    JAX resolves the capsule's device by platform name (kDLCPU -> the backend called "cpu"), so for
    a plugin registered under another name the import lands on that backend and is then copied
    (copy=None allows it); the plugin's export side is exercised either way."""
    source = jax.device_put(_data(), sut_device)
    with unsupported_if_unimplemented("jax.dlpack export/import"):
        back = jax.dlpack.from_dlpack(source, device=sut_device)
    assert back.devices() == {sut_device}
    assert_matches_reference(np.asarray(back), _data(), "dlpack round trip", exact=True)
    assert_matches_reference(np.asarray(source), _data(), "source after export", exact=True)


def test_dlpack_device_matches_plugin_device(sut_device: Any) -> None:
    source = jax.device_put(_data(), sut_device)
    device_type, device_id = source.__dlpack_device__()
    assert device_id == sut_device.local_hardware_id or device_id == sut_device.id, (
        f"__dlpack_device__ id {device_id} names neither local_hardware_id {sut_device.local_hardware_id} "
        f"nor id {sut_device.id} of {sut_device!r}"
    )
    if sut_device.platform == "cpu":
        assert int(device_type) == DLPACK_CPU, f"a CPU plugin's array has DLPack device type {device_type}"


def test_host_consumer_reads_plugin_array(sut_device: Any) -> None:
    """numpy consumes the plugin's array zero-copy (host memory) — only where the memory is on the host."""
    source = jax.device_put(_data(np.int32), sut_device)
    device_type, _ = source.__dlpack_device__()
    if int(device_type) != DLPACK_CPU:
        not_applicable(f"the plugin's arrays live in DLPack device type {int(device_type)}, numpy reads only kDLCPU")
    consumed = np.from_dlpack(source)
    assert_matches_reference(consumed, _data(np.int32), "np.from_dlpack(plugin array)", exact=True)


def test_host_array_imported_onto_plugin(sut_device: Any) -> None:
    for dtype in (np.float32, np.int8, np.uint16):
        host = _data(dtype, seed=3)
        with unsupported_if_unimplemented("jax.dlpack.from_dlpack(numpy)"):
            imported = jax.dlpack.from_dlpack(host, device=sut_device)
        assert imported.devices() == {sut_device}
        doubled = jax.jit(lambda v: v + v)(imported)
        assert_matches_reference(np.asarray(doubled), host + host, f"numpy {np.dtype(dtype).name} -> plugin via dlpack",
                                 exact=True)
