"""Versioning layer fixtures: live handles to query with odd struct sizes, and result recorders.

`record` writes results.json `details` (and `compatibility`) through the runner's fixtures when the
runner drives pytest, else through pytest's record_property (a plain `pytest suites/versioning`).
"""
from __future__ import annotations

import dataclasses
import json
from typing import Any, Callable, Iterator

import numpy as np
import pytest

ADD_PROGRAM = """module @versioning_add {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""


@dataclasses.dataclass
class Recorder:
    details: Callable[..., None]
    compatibility: Callable[..., None]


def _runner_fixture(request: pytest.FixtureRequest, name: str) -> Callable[..., None] | None:
    try:
        return request.getfixturevalue(name)
    except pytest.FixtureLookupError:
        return None


@pytest.fixture
def record(request: pytest.FixtureRequest, record_property: Callable[[str, Any], None]) -> Recorder:
    def fallback(key: str) -> Callable[..., None]:
        def write(mapping: dict[str, Any] | None = None, **values: Any) -> None:
            record_property(key, json.dumps({**(mapping or {}), **values}, default=str))

        return write

    return Recorder(
        details=_runner_fixture(request, "record_details") or fallback("details"),
        compatibility=_runner_fixture(request, "record_compatibility") or fallback("compatibility"),
    )


@dataclasses.dataclass
class LiveHandles:
    """One of each object the size probes query, created once per module with ordinary calls."""

    client: Any
    device: Any
    description: int
    memory: Any
    buffer: Any
    loaded: Any
    executable: Any
    inputs: list[np.ndarray]
    program: str = ADD_PROGRAM


@pytest.fixture(scope="module")
def live(client: Any, device: Any) -> Iterator[LiveHandles]:
    inputs = [np.arange(4, dtype=np.float32), np.full(4, 0.5, dtype=np.float32)]
    buffer = client.buffer_from_numpy(inputs[0], device)
    loaded = client.compile(ADD_PROGRAM)
    handles = LiveHandles(client=client, device=device, description=device.description.handle,
                          memory=device.default_memory, buffer=buffer, loaded=loaded, executable=loaded.executable,
                          inputs=inputs)
    yield handles
    loaded.close()
    buffer.close()


# ---- StableHLO portable artifacts ---------------------------------------------------------------

Version = tuple[int, int, int]


def parse_version(value: Any) -> Version:
    if isinstance(value, str):
        value = value.split(".")
    parts = tuple(int(v) for v in value)
    if len(parts) != 3:
        raise ValueError(f"not a major.minor.patch version: {value!r}")
    return parts  # type: ignore[return-value]


def version_text(version: Version) -> str:
    return ".".join(str(v) for v in version)


def intermediate_version(low: Version, high: Version) -> Version:
    """A version strictly between the plugin's minimum and current where one exists."""
    middle = (low[0], (low[1] + high[1]) // 2, 0) if low[0] == high[0] else (high[0], high[1] // 2, 0)
    return middle if low < middle < high else low


@dataclasses.dataclass(frozen=True)
class StablehloWindow:
    minimum: Version
    current: Version

    def target(self, label: str) -> Version:
        return {"minimum": self.minimum, "current": self.current,
                "intermediate": intermediate_version(self.minimum, self.current)}[label]

    def target_for(self, label: str, seed: Any) -> Version:
        """The version to test for `label`; for "intermediate", the corpus's stored intermediate artifact
        when it lies strictly inside the window (so stored bytecode is used)."""
        if label == "intermediate" and "intermediate" in seed.bytecode:
            stored = parse_version(seed.bytecode["intermediate"][0])
            if self.minimum < stored < self.current:
                return stored
        return self.target(label)


@pytest.fixture(scope="session")
def stablehlo_window(plugin: Any) -> StablehloWindow:
    from pjrt_cts.suite_support import skip_not_supported

    attributes = plugin.attributes
    missing = [k for k in ("stablehlo_minimum_version", "stablehlo_current_version") if k not in attributes]
    if missing:
        skip_not_supported(f"PJRT_Plugin_Attributes lacks {', '.join(missing)}")
    return StablehloWindow(parse_version(attributes["stablehlo_minimum_version"]),
                           parse_version(attributes["stablehlo_current_version"]))


class PortableSerializer:
    """StableHLO text -> versioned portable artifact, through jaxlib's bundled StableHLO (test time only)."""

    def __init__(self) -> None:
        from jax._src.lib.mlir.dialects import hlo

        self._hlo = hlo
        self.current = parse_version(hlo.get_current_version())
        self.minimum = parse_version(hlo.get_minimum_version())

    def serialize(self, text: str, version: Version) -> bytes:
        from jax._src.interpreters import mlir as jax_mlir
        from jax._src.lib.mlir import ir

        with jax_mlir.make_ir_context():
            module = ir.Module.parse(text)
            return bytes(self._hlo.serialize_portable_artifact(module, version_text(version)))


@pytest.fixture(scope="session")
def portable_serializer() -> PortableSerializer | None:
    try:
        return PortableSerializer()
    except ImportError:
        return None


@dataclasses.dataclass(frozen=True)
class Artifact:
    data: bytes
    version: Version  # the version it was serialized for
    source: str  # "golden" (stored bytecode) or "jaxlib <version>"


@pytest.fixture(scope="session")
def portable_artifact(portable_serializer: PortableSerializer | None) -> Callable[[Any, Version], Artifact]:
    """(seed program, target version) -> its portable artifact: the corpus's stored bytecode for that
    version when there is one, else serialized with jaxlib at the target (capped at jaxlib's newest)."""
    from pjrt_cts.model import NotSupported

    def make(seed: Any, target: Version) -> Artifact:
        stored = sorted(((parse_version(v), data) for v, data in seed.bytecode.values()), reverse=True)
        best = min(target, portable_serializer.current) if portable_serializer is not None else target
        for version, data in stored:  # the corpus's own artifact at exactly the version wanted
            if version == best:
                return Artifact(data, version, "golden")
        if portable_serializer is None:
            usable = [(v, d) for v, d in stored if v <= target]
            if usable:  # the newest stored artifact the plugin should read
                return Artifact(usable[0][1], usable[0][0], "golden")
            raise NotSupported(f"no stored artifact at or below {version_text(target)} and jax is not installed")
        if best < portable_serializer.minimum:
            raise NotSupported(f"jaxlib cannot serialize StableHLO {version_text(best)} "
                               f"(supports {version_text(portable_serializer.minimum)}+)")
        return Artifact(portable_serializer.serialize(seed.text, best), best,
                        f"jaxlib {version_text(portable_serializer.current)}")

    return make
