"""Versioning layer fixtures: live handles to query with odd struct sizes, and result recorders.

`record` writes results.json `details` (and `compatibility`) through the worker plugin's `record_details` /
`record_compatibility` fixtures (suites/pytest.ini loads that plugin for plain pytest runs too).
"""
from __future__ import annotations

import dataclasses
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


@pytest.fixture
def record(record_details: Callable[..., None], record_compatibility: Callable[..., None]) -> Recorder:
    return Recorder(details=record_details, compatibility=record_compatibility)


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
    return parts


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
    """The StableHLO window the plugin declares; its absence FAILs abi.plugin.test_standard_attribute_is_present."""
    from pjrt_cts.testing import BlockedByFailure

    attributes = plugin.attributes
    missing = [k for k in ("stablehlo_minimum_version", "stablehlo_current_version") if k not in attributes]
    if missing:
        raise BlockedByFailure(f"blocked: PJRT_Plugin_Attributes lacks {', '.join(missing)} "
                               "(see abi.plugin.test_standard_attribute_is_present)")
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
    version when there is one, else serialized with jaxlib at the target (capped at jaxlib's newest).

    A target older than any portable artifact (a window the plugin declares below StableHLO's first portable
    version) gets the oldest one there is: what the plugin declares never makes a test a SKIP of the test
    environment; only a version that exists and that this environment cannot write does."""
    from pjrt_cts.testing import environment_lacks
    from pjrt_cts.testing.corpus import OLDEST_PORTABLE_VERSION

    def make(seed: Any, target: Version) -> Artifact:
        target = max(target, parse_version(OLDEST_PORTABLE_VERSION))
        stored = sorted(((parse_version(v), data) for v, data in seed.bytecode.values()), reverse=True)
        best = min(target, portable_serializer.current) if portable_serializer is not None else target
        for version, data in stored:  # the corpus's own artifact at exactly the version wanted
            if version == best:
                return Artifact(data, version, "golden")
        if portable_serializer is None:
            usable = [(v, d) for v, d in stored if v <= target]
            if usable:  # the newest stored artifact the plugin should read
                return Artifact(usable[0][1], usable[0][0], "golden")
            environment_lacks(f"no stored artifact at or below {version_text(target)} and jax is not installed")
        if best < portable_serializer.minimum:
            environment_lacks(f"jaxlib cannot serialize StableHLO {version_text(best)} "
                              f"(supports {version_text(portable_serializer.minimum)}+)")
        return Artifact(portable_serializer.serialize(seed.text, best), best,
                        f"jaxlib {version_text(portable_serializer.current)}")

    return make
