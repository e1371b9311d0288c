"""Registering a bundled CPU plugin into JAX next to its built-in CPU backend (in a child process:
JAX's backend registry is per process and must not leak into other tests)."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from pjrt_cts.runtime import default_plugin_path, legacy_plugin_path

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax not installed (jax extra)"),
]

CHILD = """
import json, sys
import numpy as np
from pjrt_cts.framework.jax_backend import jax_backend_for_plugin
from pjrt_cts.runtime import Plugin
plugin = Plugin.load(sys.argv[1])
sut = jax_backend_for_plugin(sys.argv[1], {"cpu_device_count": 2}, api_address=plugin.api_address)
again = jax_backend_for_plugin(sys.argv[1], {"cpu_device_count": 2})
import jax
x = jax.device_put(np.arange(4, dtype=np.float32), sut.devices[1])
y = jax.jit(lambda v: v * 2)(x)
print(json.dumps({
    "name": sut.name, "platform": sut.platform, "devices": len(jax.devices(sut.name)),
    "same_object": again is sut, "api_version": list(sut.api_version), "adopted": sut.adopted_from_jax,
    "reference_is_plugin": any(d.client is sut.backend for d in jax.devices("cpu")),
    "default": jax.default_backend(), "result": np.asarray(y).tolist(),
    "result_on_plugin": next(iter(y.devices())).client is sut.backend,
}))
"""


@pytest.mark.parametrize("path_of", [default_plugin_path, legacy_plugin_path], ids=["api0115", "api081"])
def test_plugin_registers_beside_builtin_cpu(path_of) -> None:
    try:
        path = path_of()
    except FileNotFoundError as error:
        pytest.skip(str(error))
    done = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["name"] == "pjrt_cts_sut" and not found["adopted"]
    assert found["platform"] == "cpu" and found["devices"] == 2 and found["same_object"]
    assert not found["reference_is_plugin"] and found["default"] == "cpu"
    assert found["result"] == [0.0, 2.0, 4.0, 6.0] and found["result_on_plugin"]
    assert found["api_version"][0] == 0 and found["api_version"][1] in (81, 115)


ADOPT_CHILD = """
import json, sys
from jax._src import xla_bridge
from pjrt_cts.framework.jax_backend import capsule_address, jax_backend_for_plugin
from pjrt_cts.runtime import Plugin
plugin = Plugin.load(sys.argv[1])
# What a JAX plugin package (jax_plugins.xla_cuda13 for "cuda") does at discovery, with its own options.
c_api = xla_bridge.register_plugin("vendor_cpu", library_path=sys.argv[1], options={"cpu_device_count": 1})
sut = jax_backend_for_plugin(sys.argv[1], {"cpu_device_count": 3}, api_address=plugin.api_address)
print(json.dumps({"capsule_is_api": capsule_address(c_api) == plugin.api_address, "name": sut.name,
                  "adopted": sut.adopted_from_jax, "devices": len(sut.devices)}))
"""


def test_registration_of_the_same_library_by_a_jax_plugin_package_is_adopted() -> None:
    path = default_plugin_path()
    done = subprocess.run([sys.executable, "-c", ADOPT_CHILD, str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {"capsule_is_api": True, "name": "vendor_cpu", "adopted": True, "devices": 3}
