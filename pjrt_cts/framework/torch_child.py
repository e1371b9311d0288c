"""The PyTorch/XLA child process of the framework_torch layer (`python -m pjrt_cts.framework.torch_child`).

Started by pjrt_cts.framework.torch_session.TorchXlaProcess with PJRT_DEVICE already in its environment. It brings
up torch_xla on the plugin under test (mode "plugin": the plugin registered through torch_xla.experimental.plugins;
"probe": the same with ENABLE_PJRT_COMPATIBILITY=false) or on torch_xla's own CPU client ("reference"), reports a
ChildInfo, then runs check functions on request: `function(ctx, **params)` from a suite file, `ctx` a TorchContext.
Frames (8-byte length + pickle) go over stdin and the original stdout; fd 1 is pointed at stderr so that nothing
torch prints can corrupt them.
"""
from __future__ import annotations

import contextlib
import ctypes
import hashlib
import importlib.util
import os
import sys
import traceback
from types import ModuleType
from typing import Any, Callable, Iterator

from pjrt_cts.framework import torch_session as ts

_PR_SET_PDEATHSIG = 1


class TorchContext:
    """What a check function gets: torch, torch_xla, the device(s), and stage-tracked helpers."""

    def __init__(self, mode: str, spmd: bool) -> None:
        import torch
        import torch_xla
        import torch_xla.core.xla_model as xm
        import torch_xla.debug.metrics as met
        import torch_xla.runtime as xr

        self.mode = mode
        self.torch, self.torch_xla, self.xm, self.met, self.xr = torch, torch_xla, xm, met, xr
        self.spmd = spmd
        if self.spmd:
            xr.use_spmd()
        self.device_names: list[str] = list(xm.get_xla_supported_devices())
        self.devices = [torch.device(name) for name in self.device_names]
        self.device = torch_xla.device()
        self.op = "?"
        self.stage_name = "check"
        self.failure: dict[str, Any] | None = None
        self._before: dict[str, int] = self.metric_counts()

    # ---- bookkeeping ----
    def metric_counts(self) -> dict[str, int]:
        def samples(name: str) -> int:
            data = self.met.metric_data(name)
            return int(data[0]) if data else 0

        counts = {name: samples(name) for name in (ts.METRIC_COMPILE, ts.METRIC_TO_DEVICE, ts.METRIC_FROM_DEVICE)}
        counts[ts.EXECUTE_ATTEMPTS] = sum(samples(name) for name in ts.METRICS_EXECUTE)
        counts[ts.EXECUTED] = sum(int(self.met.counter_value(name) or 0) for name in ts.COUNTERS_EXECUTED)
        return counts

    def fallback_ops(self) -> list[str]:
        """aten ops torch_xla ran on the host CPU instead of lowering them (torch_xla's own metric)."""
        return sorted(self.met.executed_fallback_ops())

    def begin(self, op: str) -> None:
        self.op, self.stage_name, self.failure = op, "check", None
        self.met.clear_counters()  # fallback ops and execution counts of this check only
        self._before = self.metric_counts()

    @contextlib.contextmanager
    def stage(self, name: str, op: str | None = None) -> Iterator[None]:
        """Run a stage; a failure inside records the torch op, the stage and the PJRT function it was in."""
        if op:
            self.op = op
        self.stage_name = name
        try:
            yield
        except Exception:
            if self.failure is None:
                self.failure = {"op": self.op, "stage": name,
                                "pjrt_function": ts.infer_pjrt_function(name, self._before, self.metric_counts())}
            raise

    # ---- helpers for checks ----
    def to_device(self, tree: Any, device: Any = None) -> Any:
        target = device if device is not None else self.device
        with self.stage("transfer_to_device"):
            return _map(tree, lambda t: t.to(target) if isinstance(t, self.torch.Tensor) else t)

    def sync(self) -> None:
        """Cut the lazy graph and run it on the device (compile, then execute)."""
        with self.stage("execute"):
            self.torch_xla.sync()

    def to_host(self, tree: Any) -> Any:
        with self.stage("transfer_to_host"):
            return _map(tree, lambda t: t.cpu() if isinstance(t, self.torch.Tensor) else t)

    def numpy(self, tree: Any) -> Any:
        return _map(tree, self._numpy_of)

    def run(self, fn: Callable[..., Any], *inputs: Any, op: str) -> Any:
        """`fn(*inputs)` on the device: inputs uploaded, traced lazily, executed by a sync, read back (CPU tensors)."""
        self.op = op
        placed = self.to_device(list(inputs))
        with self.stage("trace"):
            out = fn(*placed)
        self.sync()
        return self.to_host(out)

    def compare(self, fn: Callable[..., Any], *inputs: Any, op: str, kind: str = "elementwise",
                exact: bool = False) -> dict[str, Any]:
        """The device's and PyTorch CPU's results of `fn(*inputs)`, for the worker to compare."""
        self.op = op
        actual = self.run(fn, *[_clone(x) for x in inputs], op=op)
        expected = fn(*[_clone(x) for x in inputs])
        return self.comparison(actual, expected, op=op, kind=kind, exact=exact)

    def comparison(self, actual: Any, expected: Any, op: str, kind: str = "elementwise",
                   exact: bool = False) -> dict[str, Any]:
        return {"kind": "compare", "op": op, "actual": self.numpy(actual), "expected": self.numpy(expected),
                "tolerance": kind, "exact": exact, "fallback_ops": self.fallback_ops()}

    def _numpy_of(self, value: Any) -> Any:
        torch = self.torch
        if not isinstance(value, torch.Tensor):
            return value
        value = value.detach().cpu()
        special = {torch.bfloat16: (torch.int16, "bfloat16"), torch.float8_e4m3fn: (torch.uint8, "float8_e4m3fn"),
                   torch.float8_e5m2: (torch.uint8, "float8_e5m2")}
        if value.dtype in special:
            import ml_dtypes

            carrier, name = special[value.dtype]
            return value.contiguous().view(carrier).numpy().view(getattr(ml_dtypes, name))
        return value.numpy()


def _clone(value: Any) -> Any:
    return value.clone() if hasattr(value, "clone") else value


def _map(tree: Any, fn: Callable[[Any], Any]) -> Any:
    if isinstance(tree, dict):
        return {key: _map(value, fn) for key, value in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_map(value, fn) for value in tree)
    return fn(tree)


# ---- start-up ---------------------------------------------------------------------------------------


def _set_parent_death_signal() -> None:
    """Die with the pytest worker (a timed-out worker is killed; its child must not outlive it)."""
    try:
        libc = ctypes.CDLL(None)
        libc.prctl(_PR_SET_PDEATHSIG, 9)
    except (OSError, AttributeError):  # not Linux: the child ends when its stdin closes
        pass


def start(settings: ts.ChildSettings) -> TorchContext:
    """torch_xla up on the plugin (registered as PJRT_DEVICE's name) or on its own CPU client."""
    for library in settings.preload:
        ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
    import torch_xla.experimental.plugins as plugins

    if settings.mode != "reference":
        ts.register_plugin_under_test(plugins, os.environ["PJRT_DEVICE"], str(settings.plugin_path),
                                      dict(settings.options))
    return TorchContext(settings.mode, settings.spmd)


def describe(ctx: TorchContext) -> ts.ChildInfo:
    import torch
    import torch_xla

    return ts.ChildInfo(
        ok=True, torch_version=str(torch.__version__), torch_xla_version=str(torch_xla.__version__),
        device_type=str(ctx.xr.device_type()), devices=list(ctx.device_names),
        device_hw=[str(ctx.xm.xla_device_hw(d)) for d in ctx.devices],
        global_device_count=int(ctx.xr.global_runtime_device_count()),
        addressable_device_count=int(ctx.xr.addressable_runtime_device_count()),
    )


_modules: dict[str, ModuleType] = {}


def load_checks(path: str) -> ModuleType:
    module = _modules.get(path)
    if module is None:
        name = "pjrt_cts_torch_checks_" + hashlib.sha256(path.encode()).hexdigest()[:12]
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load checks from {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        _modules[path] = module
    return module


def _error_info(error: BaseException, ctx: TorchContext | None, stage: str) -> dict[str, Any]:
    found = dict(ctx.failure or {}) if ctx is not None else {}
    if ctx is not None and not found:  # raised outside any stage of the check
        found["pjrt_function"] = ts.infer_pjrt_function(ctx.stage_name, ctx._before, ctx.metric_counts())
    return {
        "type": type(error).__name__, "message": str(error),
        "op": found.get("op", ctx.op if ctx is not None else "startup"),
        "stage": found.get("stage", ctx.stage_name if ctx is not None else stage),
        "pjrt_function": found.get("pjrt_function"),
        "traceback": "".join(traceback.format_exception(type(error), error, error.__traceback__))[-4000:],
    }


def main() -> int:
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    protocol_in = sys.stdin.buffer
    _set_parent_death_signal()
    settings = ts.ChildSettings.from_json(sys.argv[1]) if len(sys.argv) > 1 else ts.ChildSettings()
    mode = settings.mode
    ctx: TorchContext | None = None
    try:
        ctx = start(settings)
        info = describe(ctx)
    except Exception as error:  # noqa: BLE001 - reported to the worker: torch_xla could not start on the plugin
        info = ts.ChildInfo(ok=False, error=ts.CheckFailure.from_info(_error_info(error, None, "initialize"), mode))
    ts.write_frame(protocol_out, info)
    if ctx is None:
        return 0
    while True:
        try:
            request = ts.read_frame(protocol_in)
        except EOFError:
            return 0
        _, path, function, params = request
        try:
            check = getattr(load_checks(path), function)
            ctx.begin(function)
            reply: tuple[str, Any] = ("ok", check(ctx, **params))
        except Exception as error:  # noqa: BLE001 - every failure of a check goes back to the worker, which judges it
            reply = ("error", _error_info(error, ctx, "check"))
        ts.write_frame(protocol_out, reply)


if __name__ == "__main__":
    sys.exit(main())
