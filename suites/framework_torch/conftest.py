"""framework_torch: the plugin under test loaded into PyTorch/XLA, compared with PyTorch's own CPU results.

Each pytest worker starts one PyTorch/XLA child process with PJRT_DEVICE=PJRTCTS and the plugin registered
through torch_xla.experimental.plugins (pjrt_cts/framework/torch_session.py says why a child: one runtime per
process, PJRT_DEVICE read before torch_xla starts). Tests send it check functions defined in this directory
(`def check_x(ctx, ...)`: they run in the child, `ctx` is pjrt_cts.framework.torch_child.TorchContext).

Outcomes:
- torch / torch_xla not installed: SKIP (test environment), as framework_jax does without JAX.
- PyTorch/XLA cannot start on the plugin: discovery.test_torch_xla_initializes_the_plugin FAILs with its error and
  the dependent tests FAIL as blocked.
- The plugin rejects the PJRT structs of torch_xla's (older) PJRT API version, shown by a real
  PJRT_LoadedExecutable_Execute through pjrt_cts.runtime with that version's PJRT_ExecuteOptions: every test that
  executes is a SKIP (test environment: this torch-xla cannot run programs on this plugin; the plugin's rejection is
  legal, versioning.args_struct_sizes judges it); negotiation.* records the versions and checks torch_xla agrees.
- A check that fails on the plugin is run again on torch_xla's built-in XLA CPU client: failing there too, it is a
  PyTorch/XLA defect (SKIP with both errors as evidence); failing only on the plugin, a FAIL naming the torch op and
  the PJRT function (inferred from the stage and torch_xla's metrics: torch_xla's errors carry neither the PJRT
  status code nor the function, so UNIMPLEMENTED cannot be told apart here and is a FAIL too).
- An op torch_xla computes on the host CPU (aten fallback) never reached the plugin: SKIP (not applicable), except
  the data-dependent-shape ops, whose fallback is the documented NOT_SUPPORTED (feature probes below).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from pjrt_cts.framework import TORCH_MISSING_REASON, torch_xla_installed
from pjrt_cts.testing import BlockedByFailure, FeatureProbe, environment_lacks, not_applicable, output_dir, profile_name

HERE = Path(__file__).resolve().parent
CALL_TIMEOUT_S = 100.0


@dataclass
class TorchLayer:
    """The PyTorch/XLA child on the plugin, the lazily started reference child, and the version negotiation."""

    plugin_path: str
    options: dict[str, Any]
    preload: tuple[str, ...]
    plugin_version: tuple[int, int]
    process: Any = None  # torch_session.TorchXlaProcess on the plugin
    info: Any = None  # torch_session.ChildInfo
    error: str | None = None  # why PyTorch/XLA could not start on the plugin
    framework: Any = None  # torch_session.FrameworkProbe
    execute_options: Any = None  # torch_session.ExecuteOptionsProbe (None: versions equal, nothing to negotiate)
    children: dict[str, Any] = field(default_factory=dict)  # "reference", "spmd", "reference-spmd"
    restarts: int = 0

    @property
    def torch_xla_version(self) -> str:
        return self.info.torch_xla_version if self.info is not None else "?"

    def can_execute(self) -> bool:
        return self.execute_options is None or bool(self.execute_options.accepted)

    def negotiation_summary(self) -> str:
        from pjrt_cts.framework.compat import format_version

        framework = self.framework.framework_version if self.framework is not None else None
        text = (f"torch-xla {self.torch_xla_version} is built for PJRT API {format_version(framework)}, the plugin "
                f"reports {format_version(self.plugin_version)}")
        if self.execute_options is not None:
            text += "; " + self.execute_options.describe()
        return text

    # ---- children ----
    def _log_dir(self) -> Path:
        return output_dir() / "framework_torch"

    def start_plugin_child(self) -> None:
        from pjrt_cts.framework import torch_session as ts

        launch = ts.child_launch("plugin", self.plugin_path, self.options, self.preload)
        self.process = ts.TorchXlaProcess(launch, self._log_dir(), name="plugin")
        try:
            self.info = self.process.start()
        except ts.TorchProcessDied as died:
            self.error = str(died)
            return
        if not self.info.ok:
            self.error = self.info.error.describe() if self.info.error else "unknown error"

    def child(self, name: str) -> Any:
        """"plugin", or a lazily started "reference" (torch_xla's CPU client), "spmd", "reference-spmd"."""
        from pjrt_cts.framework import torch_session as ts

        if name == "plugin":
            if not self.process.alive:  # died in an earlier test (that test FAILed): start afresh
                self.restarts += 1
                self.start_plugin_child()
                if self.error:
                    raise BlockedByFailure(f"blocked: PyTorch/XLA did not restart on the plugin: {self.error}")
            return self.process
        process = self.children.get(name)
        if process is None or not process.alive:
            reference = name.startswith("reference")
            launch = ts.child_launch("reference" if reference else "plugin", self.plugin_path, self.options,
                                     self.preload, spmd=name.endswith("spmd"),
                                     device_count=len(self.info.devices) if self.info else 0)
            process = ts.TorchXlaProcess(launch, self._log_dir(), name=name)
            started = process.start()
            if not started.ok:
                detail = started.error.describe() if started.error else "?"
                raise BlockedByFailure(f"blocked: PyTorch/XLA ({name}) did not start: {detail}")
            self.children[name] = process
        return process

    def close(self) -> None:
        for process in [self.process, *self.children.values()]:
            if process is not None:
                process.close()


@pytest.fixture(scope="session")
def torch_preload() -> tuple[str, ...]:
    """Checks torch and torch_xla are installed, then names the profile's runtime libraries (GPU plugins)."""
    if not torch_xla_installed():
        environment_lacks(TORCH_MISSING_REASON)
    name = profile_name()
    if not name:
        return ()
    from pjrt_cts.profiles import get_profile

    return tuple(str(p) for p in get_profile(name).preload_libraries())


@pytest.fixture(scope="session", autouse=True)
def torch_layer(torch_preload: tuple[str, ...], plugin: Any, client: Any,
                create_options: dict[str, Any]) -> Iterator[TorchLayer]:
    """Starts PyTorch/XLA on the plugin once per worker and negotiates versions. `client` comes first: a plugin
    without a usable device is NOT_SUPPORTED in every layer, this one included."""
    from pjrt_cts.framework import torch_session as ts

    layer = TorchLayer(plugin_path=str(plugin.path), options=dict(create_options), preload=torch_preload,
                       plugin_version=(int(plugin.api_version[0]), int(plugin.api_version[1])))
    layer.framework = ts.probe_framework_api_version(plugin.path, layer.plugin_version, create_options,
                                                     torch_preload, output_dir() / "framework_torch")
    framework = layer.framework.framework_version
    if framework is not None and tuple(framework) != layer.plugin_version:
        layer.execute_options = ts.probe_execute_options(client, layer.plugin_version, tuple(framework))
    layer.start_plugin_child()
    yield layer
    layer.close()


@pytest.fixture(scope="session")
def torch_sut(torch_layer: TorchLayer) -> TorchLayer:
    """The layer with PyTorch/XLA up on the plugin; dependent tests FAIL as blocked when it did not start
    (framework_torch.discovery.test_torch_xla_initializes_the_plugin FAILs with torch_xla's error then)."""
    if torch_layer.error:
        raise BlockedByFailure(f"blocked: PyTorch/XLA did not start on the plugin: {torch_layer.error} "
                               "(see framework_torch.discovery.test_torch_xla_initializes_the_plugin)")
    return torch_layer


@pytest.fixture(scope="session")
def torch_executing(torch_sut: TorchLayer) -> TorchLayer:
    """The layer, for tests that run programs: a SKIP when the plugin rejects this torch-xla's PJRT structs."""
    if not torch_sut.can_execute():
        environment_lacks(f"torch-xla {torch_sut.torch_xla_version} cannot run programs on this plugin: "
                          f"{torch_sut.negotiation_summary()} (framework_torch.negotiation.* records it)")
    return torch_sut


def _problem_of(result: Any) -> str | None:
    """None when a check's comparison agrees with PyTorch CPU, else what differs."""
    if not (isinstance(result, dict) and result.get("kind") == "compare"):
        return None
    from pjrt_cts.framework.compare import mismatches

    found = mismatches(result["actual"], result["expected"], kind=result.get("tolerance", "elementwise"),
                       exact=bool(result.get("exact")))
    if not found:
        return None
    return f"{result['op']}: the plugin's result differs from PyTorch's CPU result: " + "; ".join(found)


def _attempt(layer: TorchLayer, child: str, file: str, function: str, params: dict[str, Any]) -> tuple[Any, str | None]:
    """(result, problem) of a check in one child; problem None when it raised nothing and matched PyTorch CPU. A
    check that raised gives ({"op": the torch op it was in}, problem)."""
    from pjrt_cts.framework import torch_session as ts

    process = layer.child(child)
    try:
        result = process.call(file, function, timeout=CALL_TIMEOUT_S, **params)
    except ts.CheckError as error:
        return {"op": error.failure.op}, error.failure.describe()
    except ts.TorchProcessDied as died:
        return None, f"{function}: {died}"
    return result, _problem_of(result)


@pytest.fixture
def torch_check(torch_sut: TorchLayer, record_details: Callable[..., None]) -> Callable[..., Any]:
    """`torch_check(__file__, "check_x", **params)`: run the check on the plugin; returns its result when it
    passed; a failure is judged (pjrt_cts.framework.torch_session.judge_failure) against torch_xla's own CPU."""
    from pjrt_cts.framework import torch_session as ts

    def run(file: str, function: str, child: str = "plugin", allow_fallback: bool = False, **params: Any) -> Any:
        result, problem = _attempt(torch_sut, child, file, function, params)
        fallback = result.get("fallback_ops") if isinstance(result, dict) else None
        if problem is None:
            if fallback and not allow_fallback:
                not_applicable(f"torch_xla {torch_sut.torch_xla_version} computes {fallback} on the host CPU "
                               "(aten fallback), so the plugin never ran it")
            return result
        reference_child = "reference-spmd" if child == "spmd" else "reference"
        _, on_reference = _attempt(torch_sut, reference_child, file, function, params)
        op = str(result.get("op", function)) if isinstance(result, dict) else function
        fault, message = ts.judge_failure(op, problem, on_reference, torch_sut.torch_xla_version)
        record_details(fault=fault, on_plugin=problem[:2000], on_reference=(on_reference or "passed")[:2000])
        if fault == ts.FRAMEWORK_FAULT:
            environment_lacks(message)
        raise AssertionError(message)

    return run


def probe_on_device(layer: TorchLayer, function: str, description: str) -> FeatureProbe:
    """A data-dependent-shape op tried on the plugin: available when torch_xla ran it there (no aten fallback).
    The fallback does not depend on the plugin running programs: torch_xla decides it while tracing."""
    result, problem = _attempt(layer, "plugin", str(HERE / "test_dynamic_shapes.py"), function, {})
    if problem is not None or not isinstance(result, dict):
        return FeatureProbe(description, True, f"tried; it failed otherwise ({problem}): the test judges that")
    fallback = result.get("fallback_ops") or []
    if fallback:
        return FeatureProbe(description, False, (
            f"torch_xla {layer.torch_xla_version} does not lower it to the device: it ran {fallback} on the host CPU "
            "(aten fallback, torch_xla.debug.metrics.executed_fallback_ops: the output shape depends on the data)"))
    return FeatureProbe(description, True, "ran on the device")


@pytest.fixture(scope="session")
def feature_dynamic_nonzero(torch_sut: TorchLayer) -> FeatureProbe:
    return probe_on_device(torch_sut, "check_nonzero", "torch.nonzero (data-dependent shape) on the device")


@pytest.fixture(scope="session")
def feature_dynamic_masked_select(torch_sut: TorchLayer) -> FeatureProbe:
    return probe_on_device(torch_sut, "check_masked_select",
                           "torch.masked_select (data-dependent shape) on the device")


@pytest.fixture(scope="session")
def feature_dynamic_unique(torch_sut: TorchLayer) -> FeatureProbe:
    return probe_on_device(torch_sut, "check_unique", "torch.unique (data-dependent shape) on the device")
