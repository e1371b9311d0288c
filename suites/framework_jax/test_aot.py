"""Ahead-of-time paths on the plugin: lower/compile, serialized executables, jax.export round trips."""
from __future__ import annotations

from typing import Any

import numpy as np

from pjrt_cts.framework.compare import assert_matches_reference
from pjrt_cts.framework.lazy import jax, jnp
from pjrt_cts.testing import environment_lacks, unsupported_if_unimplemented


def _data(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((8, 8)).astype(np.float32)


def _program(v: Any) -> Any:
    return jnp.tanh(v @ v.T) + jnp.cumsum(v, axis=0)


def _require_export_serialization() -> None:
    import importlib.util

    if importlib.util.find_spec("flatbuffers") is None:
        environment_lacks("jax.export serialization needs the flatbuffers package (pip install flatbuffers)")


def _expected(cpu_device: Any) -> np.ndarray:
    return np.asarray(jax.jit(_program)(jax.device_put(_data(), cpu_device)))


def test_lower_compile_run(sut_device: Any, cpu_device: Any) -> None:
    x = jax.device_put(_data(), sut_device)
    lowered = jax.jit(_program).lower(x)
    assert "stablehlo" in lowered.as_text() or "mhlo" in lowered.as_text()
    compiled = lowered.compile()
    assert compiled.as_text(), "compiled.as_text() is empty"
    out = compiled(x)
    assert out.devices() == {sut_device}
    assert_matches_reference(np.asarray(out), _expected(cpu_device), "lower().compile()(x)", kind="reduction")


def test_compiled_rejects_wrong_shape(sut_device: Any) -> None:
    compiled = jax.jit(_program).lower(jax.device_put(_data(), sut_device)).compile()
    try:
        compiled(jax.device_put(np.zeros((4, 4), np.float32), sut_device))
    except (TypeError, ValueError) as error:
        assert "shape" in str(error).lower() or "argument" in str(error).lower(), str(error)
    else:
        raise AssertionError("a compiled program accepted an argument of another shape")


def test_serialized_executable_reloads(sut_device: Any, cpu_device: Any, jax_sut: Any) -> None:
    """PJRT_Executable_Serialize / DeserializeAndLoad through jax.experimental.serialize_executable."""
    from jax.experimental import serialize_executable

    x = jax.device_put(_data(), sut_device)
    compiled = jax.jit(_program).lower(x).compile()
    with unsupported_if_unimplemented("serialize/deserialize a compiled executable (JAX)"):
        payload, in_tree, out_tree = serialize_executable.serialize(compiled)
        reloaded = serialize_executable.deserialize_and_load(payload, in_tree, out_tree, backend=jax_sut.backend,
                                                             execution_devices=[sut_device])
    out = reloaded(x)
    assert out.devices() == {sut_device}
    assert_matches_reference(np.asarray(out), _expected(cpu_device), "reloaded executable", kind="reduction")


def test_export_serialize_deserialize_call(sut_device: Any, cpu_device: Any, jax_sut: Any, client: Any) -> None:
    _require_export_serialization()
    x = jax.device_put(_data(), sut_device)
    exported = jax.export.export(jax.jit(_program), platforms=[client.platform_name])(
        jax.ShapeDtypeStruct(x.shape, x.dtype))
    blob = exported.serialize()
    restored = jax.export.deserialize(blob)
    assert restored.platforms == (client.platform_name,)
    out = jax.jit(restored.call)(x)
    assert out.devices() == {sut_device}
    assert_matches_reference(np.asarray(out), _expected(cpu_device), "jax.export round trip", kind="reduction")


def test_export_with_symbolic_batch_and_vjp(sut_device: Any, cpu_device: Any, jax_sut: Any, client: Any) -> None:
    """Shape-polymorphic export, and the gradient of a deserialized function."""
    _require_export_serialization()
    batch = jax.export.symbolic_shape("b")[0]
    fn = jax.jit(lambda v: jnp.sum(jnp.sin(v) * v, axis=1))
    # Lowered for the plugin and for the CPU reference, which calls the same deserialized function.
    platforms = list(dict.fromkeys([client.platform_name, "cpu"]))
    exported = jax.export.export(fn, platforms=platforms)(jax.ShapeDtypeStruct((batch, 8), jnp.float32))
    restored = jax.export.deserialize(exported.serialize(vjp_order=1))

    def both(v: Any) -> Any:
        return restored.call(v), jax.grad(lambda u: restored.call(u).sum())(v)

    for rows in (3, 8):
        data = _data()[:rows]
        out = jax.jit(both)(jax.device_put(data, sut_device))
        expected = jax.jit(both)(jax.device_put(data, cpu_device))
        assert_matches_reference([np.asarray(o) for o in out], [np.asarray(e) for e in expected],
                                 f"exported shape-polymorphic fn, batch {rows}", kind="autodiff")
