"""The plugin under test inside PyTorch/XLA (torch_xla), seen from the pytest worker: a child process per worker.

What PyTorch/XLA does (torch 2.9.0 / torch-xla 2.9.0, observed):
- A PJRT plugin is loaded through `torch_xla.experimental.plugins`: a `DevicePlugin` subclass whose
  `library_path()` names the .so and whose `client_create_options()` gives PJRT_Client_Create's options,
  `register_plugin(NAME, plugin)`, `use_dynamic_plugins()`, and `PJRT_DEVICE=NAME` in the environment before
  torch_xla starts its runtime (importing torch_xla already reads PJRT_DEVICE). One runtime per process: the
  plugin and torch_xla's built-in CPU client cannot both be used in one process. So the layer runs PyTorch/XLA in
  a child process of each pytest worker (`python -m pjrt_cts.framework.torch_child SETTINGS`), started with that
  environment, which runs the suites' check functions on request; a second child with `PJRT_DEVICE=CPU` (torch_xla's
  own XLA CPU client) is started only when a check fails on the plugin, to tell a framework defect from the
  plugin's.
- torch_xla 2.9.0 is built against PJRT C API 0.75 (it says so when ENABLE_PJRT_COMPATIBILITY=false: "Mismatched
  PJRT plugin PJRT API version (0.115) and framework PJRT API version 0.75)"). With compatibility on (the default)
  its loader accepts a newer plugin; then it passes its own 0.75 structs, e.g. PJRT_ExecuteOptions of 80 bytes.
- torch_xla's RuntimeError carries a PJRT error's message but not its status code, nor the PJRT function. The
  function is inferred from the stage of the check and torch_xla's own metrics (compile and execute timers).

Nothing here imports torch: the layer is collected (and SKIPs) where PyTorch/XLA is not installed.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import ctypes
import json
import os
import pickle
import signal
import struct
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Mapping, Sequence

from pjrt_cts.framework.compat import COMPATIBILITY_ENV, ApiVersion, format_version, parse_framework_version

CHILD_MODULE = "pjrt_cts.framework.torch_child"
PLUGIN_DEVICE_NAME = "PJRTCTS"  # the torch_xla registration name (PJRT_DEVICE=...): torch_xla.runtime.device_type()
# keeps only what precedes the first "_" of PJRT_DEVICE, so the name has none
REFERENCE_DEVICE_NAME = "CPU"  # torch_xla's built-in XLA CPU client

MODES = ("plugin", "reference", "probe")
START_TIMEOUT_S = 300.0
_HEADER = struct.Struct("<Q")

# What PJRT function a stage of a check calls when it fails (torch_xla's PjRtComputationClient over the C API).
STAGE_FUNCTIONS = {
    "transfer_to_device": "PJRT_Client_BufferFromHostBuffer",
    "transfer_to_host": "PJRT_Buffer_ToHostBuffer",
    "compile": "PJRT_Client_Compile",
    "execute": "PJRT_LoadedExecutable_Execute",
    "initialize": "PJRT_Client_Create",
}
# torch_xla metrics (torch_xla.debug.metrics) read since the start of a check: timers count their samples even
# when the timed call fails; the execution counters count only executions that returned. SPMD mode executes through
# ExecuteReplicated.
METRIC_COMPILE = "CompileTime"
METRICS_EXECUTE = ("ExecuteTime", "ExecuteReplicatedTime")
COUNTERS_EXECUTED = ("ExecuteComputation", "ExecuteReplicated")
METRIC_TO_DEVICE = "TransferToDeviceTime"
METRIC_FROM_DEVICE = "TransferFromDeviceTime"
EXECUTE_ATTEMPTS = "execute_attempts"  # sum of METRICS_EXECUTE samples
EXECUTED = "executed"  # sum of COUNTERS_EXECUTED


def infer_pjrt_function(stage: str, before: Mapping[str, int], after: Mapping[str, int]) -> str | None:
    """The PJRT function a failed check was in, from torch_xla's metric counts at its start and at the failure.

    More executions timed than executions that returned: PJRT_LoadedExecutable_Execute failed (torch_xla executes
    asynchronously, so its error surfaces later, e.g. in `.cpu()`). A compile timed with no execution after it:
    PJRT_Client_Compile. Otherwise the failing stage's own function (transfers), or None (a stage that calls no one
    PJRT function: tracing).
    """
    def grown(name: str) -> int:
        return after.get(name, 0) - before.get(name, 0)

    if grown(EXECUTE_ATTEMPTS) > grown(EXECUTED):
        return STAGE_FUNCTIONS["execute"]
    if grown(METRIC_COMPILE) > 0 and grown(EXECUTE_ATTEMPTS) == 0:
        return STAGE_FUNCTIONS["compile"]
    return STAGE_FUNCTIONS.get(stage)


@dataclass
class CheckFailure:
    """A check that raised in the PyTorch/XLA child: which torch op, at which stage, in which PJRT function."""

    type: str
    message: str
    op: str
    stage: str
    pjrt_function: str | None
    traceback: str = ""
    mode: str = "plugin"

    @classmethod
    def from_info(cls, info: Mapping[str, Any], mode: str = "plugin") -> "CheckFailure":
        return cls(type=str(info.get("type", "Exception")), message=str(info.get("message", "")),
                   op=str(info.get("op", "?")), stage=str(info.get("stage", "?")),
                   pjrt_function=info.get("pjrt_function"), traceback=str(info.get("traceback", "")), mode=mode)

    def describe(self) -> str:
        where = f"failed in stage {self.stage}" + (f" ({self.pjrt_function})" if self.pjrt_function else "")
        first = self.message.strip().splitlines()[0] if self.message.strip() else ""
        return f"{self.op} under PyTorch/XLA: {where}: {self.type}: {first}"


class CheckError(Exception):
    """Raised in the worker for a check that failed in the child (carries the CheckFailure)."""

    def __init__(self, failure: CheckFailure) -> None:
        super().__init__(failure.describe())
        self.failure = failure


class TorchProcessDied(Exception):
    """The PyTorch/XLA child died or stopped answering (signal, exit status, stderr tail)."""

    def __init__(self, what: str, returncode: int | None, stderr_tail: str) -> None:
        self.returncode = returncode
        self.stderr_tail = stderr_tail
        super().__init__(f"the PyTorch/XLA process died {what} ({describe_exit(returncode)}); "
                         f"stderr: {stderr_tail[-1500:]}")


def describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit status {returncode}"


@dataclass
class ChildInfo:
    """What the child reported once PyTorch/XLA was up (or why it is not)."""

    ok: bool
    torch_version: str = ""
    torch_xla_version: str = ""
    device_type: str = ""  # torch_xla.runtime.device_type()
    devices: list[str] = field(default_factory=list)  # xm.get_xla_supported_devices()
    device_hw: list[str] = field(default_factory=list)  # xm.xla_device_hw(device) per device
    global_device_count: int = 0
    addressable_device_count: int = 0
    error: CheckFailure | None = None


def read_frame(stream: IO[bytes]) -> Any:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError("stream closed")
    (length,) = _HEADER.unpack(header)
    payload = stream.read(length)
    if len(payload) < length:
        raise EOFError("stream closed inside a frame")
    return pickle.loads(payload)  # our own child, over its own pipe


def write_frame(stream: IO[bytes], value: Any) -> None:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


@dataclass(frozen=True)
class ChildSettings:
    """What torch_child runs on, given on its command line (one JSON argument; read by torch_child.main)."""

    mode: str = "plugin"  # "plugin" | "reference" | "probe"
    spmd: bool = False  # torch_xla SPMD mode (one virtual device over every addressable one)
    plugin_path: str | None = None  # plugin and probe modes
    options: Mapping[str, Any] = field(default_factory=dict)  # client create options
    preload: tuple[str, ...] = ()  # runtime libraries to dlopen RTLD_GLOBAL first

    def to_json(self) -> str:
        return json.dumps({"mode": self.mode, "spmd": self.spmd, "plugin_path": self.plugin_path,
                           "options": dict(self.options), "preload": list(self.preload)})

    @classmethod
    def from_json(cls, text: str) -> "ChildSettings":
        data = json.loads(text)
        return cls(mode=str(data["mode"]), spmd=bool(data["spmd"]), plugin_path=data.get("plugin_path"),
                   options=dict(data.get("options") or {}), preload=tuple(data.get("preload") or ()))


@dataclass(frozen=True)
class ChildLaunch:
    """How to start one torch_child: its settings, and the environment torch_xla reads (PJRT_DEVICE, ...)."""

    settings: ChildSettings
    env: Mapping[str, str]


def child_launch(mode: str, plugin_path: Path | str | None, options: Mapping[str, Any] | None,
                 preload: Sequence[Path | str] = (), spmd: bool = False, device_count: int = 0,
                 base: Mapping[str, str] | None = None) -> ChildLaunch:
    """What makes torch_child run PyTorch/XLA on the plugin ("plugin", "probe") or on torch_xla's own CPU client
    ("reference"). PJRT_DEVICE is set in the environment here, before the child imports torch_xla."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; known: {MODES}")
    env = dict(os.environ if base is None else base)
    env["TF_CPP_MIN_LOG_LEVEL"] = env.get("TF_CPP_MIN_LOG_LEVEL", "1")
    env["PYTHONUNBUFFERED"] = "1"
    if mode == "reference":
        env["PJRT_DEVICE"] = REFERENCE_DEVICE_NAME
        if device_count:
            env["CPU_NUM_DEVICES"] = str(device_count)
        settings = ChildSettings(mode, spmd)
    else:
        if plugin_path is None:
            raise ValueError("plugin mode needs the plugin's path")
        env["PJRT_DEVICE"] = PLUGIN_DEVICE_NAME
        settings = ChildSettings(mode, spmd, str(Path(plugin_path).resolve()), dict(options or {}),
                                 tuple(str(p) for p in preload))
    if mode == "probe":
        env[COMPATIBILITY_ENV] = "false"
    return ChildLaunch(settings, env)


class TorchXlaProcess:
    """One PyTorch/XLA child: `call(file, function, **params)` runs `function(ctx, **params)` from that file there."""

    def __init__(self, launch: ChildLaunch, log_dir: Path | str | None = None, name: str = "plugin") -> None:
        self.launch = launch
        self.name = name
        self.mode = launch.settings.mode
        self._log_dir = Path(log_dir) if log_dir else Path(tempfile.gettempdir())
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr_path: Path | None = None
        self._lock = threading.Lock()
        self.info: ChildInfo | None = None

    # ---- lifetime ----
    def start(self) -> ChildInfo:
        self._log_dir.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f"torch-{self.name}-", suffix=".log", dir=self._log_dir)
        os.close(handle)
        self._stderr_path = Path(name)
        with open(self._stderr_path, "wb") as stderr:
            self._process = subprocess.Popen([sys.executable, "-m", CHILD_MODULE, self.launch.settings.to_json()],
                                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                             env=dict(self.launch.env))
        reply = self._receive("while starting PyTorch/XLA", START_TIMEOUT_S)
        self.info = reply if isinstance(reply, ChildInfo) else ChildInfo(ok=False, error=CheckFailure(
            type="ProtocolError", message=repr(reply)[:500], op="startup", stage="initialize", pjrt_function=None))
        return self.info

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.stdin:
                process.stdin.close()
            process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()

    def stderr_tail(self, lines: int = 30) -> str:
        if self._stderr_path is None or not self._stderr_path.exists():
            return ""
        text = self._stderr_path.read_text(errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    # ---- calls ----
    def call(self, file: Path | str, function: str, timeout: float | None = None, **params: Any) -> Any:
        """Result of `function(ctx, **params)` in the child; CheckError if it raised, TorchProcessDied if it died."""
        with self._lock:
            if not self.alive or self._process is None or self._process.stdin is None:
                raise TorchProcessDied(f"before {function}", self._process.poll() if self._process else None,
                                       self.stderr_tail())
            try:
                write_frame(self._process.stdin, ("call", str(file), function, params))
            except (BrokenPipeError, OSError):
                raise TorchProcessDied(f"before {function}", self._process.poll(), self.stderr_tail()) from None
            status, value = self._receive(f"running {function}", timeout)
        if status == "error":
            raise CheckError(CheckFailure.from_info(value, self.mode))
        return value

    def _receive(self, what: str, timeout: float | None) -> Any:
        process = self._process
        assert process is not None and process.stdout is not None
        timer = threading.Timer(timeout, process.kill) if timeout else None
        if timer:
            timer.start()
        try:
            return read_frame(process.stdout)
        except (EOFError, OSError, pickle.UnpicklingError):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            raise TorchProcessDied(what, process.returncode, self.stderr_tail()) from None
        finally:
            if timer:
                timer.cancel()


# ---- version negotiation --------------------------------------------------------------------------


@dataclass(frozen=True)
class FrameworkProbe:
    """torch_xla started on the plugin with ENABLE_PJRT_COMPATIBILITY=false: exact match, or its version."""

    accepted_exactly: bool
    framework_version: ApiVersion | None
    output: str


def probe_framework_api_version(plugin_path: Path | str, plugin_version: ApiVersion, options: Mapping[str, Any],
                                preload: Sequence[Path | str] = (), log_dir: Path | str | None = None) -> FrameworkProbe:
    """Ask torch_xla which PJRT C API version it is built for (its loader names it when compatibility is off)."""
    process = TorchXlaProcess(child_launch("probe", plugin_path, options, preload), log_dir, name="probe")
    try:
        info = process.start()
    except TorchProcessDied as died:
        return FrameworkProbe(False, parse_framework_version(died.stderr_tail), str(died))
    finally:
        process.close()
    if info.ok:
        return FrameworkProbe(True, (int(plugin_version[0]), int(plugin_version[1])), "accepted")
    message = info.error.message if info.error else ""
    return FrameworkProbe(False, parse_framework_version(message), message)


_ADD_PROGRAM = """
func.func public @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}"""


@dataclass(frozen=True)
class ExecuteOptionsProbe:
    """The plugin's answer, through pjrt_cts.runtime, to PJRT_LoadedExecutable_Execute with a framework's options."""

    framework_version: ApiVersion
    size: int  # PJRT_ExecuteOptions struct_size at the framework's minor
    own_size: int  # at the plugin's minor
    accepted: bool
    error: str  # "CODE: message" when rejected

    def describe(self) -> str:
        verdict = "accepts" if self.accepted else f"rejects it: PJRT_LoadedExecutable_Execute: {self.error}"
        return (f"PJRT_ExecuteOptions of PJRT API {format_version(self.framework_version)} is {self.size} bytes "
                f"(the plugin's own {self.own_size}); the plugin {verdict}")


def probe_execute_options(client: Any, plugin_version: ApiVersion, framework_version: ApiVersion) -> ExecuteOptionsProbe:
    """Execute a one-add program with PJRT_ExecuteOptions of the framework's size: a real attempt on the plugin."""
    import numpy as np

    from pjrt_cts.abi import structs
    from pjrt_cts.runtime import PjrtError

    size = structs.PJRT_ExecuteOptions.struct_size_at(framework_version[1])
    own = structs.PJRT_ExecuteOptions.struct_size_at(min(plugin_version[1], _newest_minor(structs.PJRT_ExecuteOptions)))
    storage = (ctypes.c_uint8 * ctypes.sizeof(structs.PJRT_ExecuteOptions))()
    options = structs.PJRT_ExecuteOptions.from_buffer(storage)
    options.struct_size = size
    device = client.addressable_devices[0]
    x = np.arange(4, dtype=np.float32)
    executable = client.compile(_ADD_PROGRAM)
    a, b = client.buffer_from_numpy(x, device), client.buffer_from_numpy(x, device)
    try:
        outputs, _ = executable.execute_sharded([[a, b]], options=options)
    except PjrtError as error:
        return ExecuteOptionsProbe(framework_version, size, own, False, f"{error.code}: {error.message.strip()}")
    finally:
        a.close()
        b.close()
    try:
        got = outputs[0][0].to_numpy()
    finally:
        for buffer in outputs[0]:
            buffer.close()
        executable.close()
    if not np.array_equal(got, x + x):
        return ExecuteOptionsProbe(framework_version, size, own, False, f"wrong result {got.tolist()}")
    return ExecuteOptionsProbe(framework_version, size, own, True, "")


def _newest_minor(struct_type: Any) -> int:
    return max([int(struct_type._since_), *map(int, struct_type._field_since_.values())])


# ---- the torch_xla plugin interface (torch_xla.experimental.plugins) --------------------------------


def make_device_plugin(plugins_module: Any, library_path: Path | str, options: Mapping[str, Any]) -> Any:
    """A `DevicePlugin` of `plugins_module` whose library_path() is the plugin under test and whose
    client_create_options() are the profile's create options (one device per process is torch_xla's default)."""
    base = plugins_module.DevicePlugin
    path, create_options = str(library_path), dict(options)

    class PjrtCtsDevicePlugin(base):  # type: ignore[misc, valid-type]  # torch_xla's class, known only at run time
        def library_path(self) -> str:
            return path

        def client_create_options(self) -> dict[str, Any]:
            return dict(create_options)

    return PjrtCtsDevicePlugin()


def register_plugin_under_test(plugins_module: Any, name: str, library_path: Path | str,
                               options: Mapping[str, Any]) -> Any:
    """What a plugin vendor's package does: use_dynamic_plugins(), then register_plugin(NAME, DevicePlugin)."""
    plugins_module.use_dynamic_plugins()
    device_plugin = make_device_plugin(plugins_module, library_path, options)
    plugins_module.register_plugin(name, device_plugin)
    return device_plugin


# ---- judging a failed check ------------------------------------------------------------------------

PLUGIN_FAULT = "plugin"  # fails on the plugin only: FAIL naming the torch op and the PJRT function
FRAMEWORK_FAULT = "framework"  # fails the same way on torch_xla's own CPU client: not the plugin's (SKIP)


def judge_failure(op: str, on_plugin: str, on_reference: str | None, torch_xla_version: str) -> tuple[str, str]:
    """Whose fault a failed check is. `on_reference`: how the same check went on torch_xla's built-in XLA CPU
    client (None: it passed there). A check that also fails there is a defect of PyTorch/XLA (or of the check's
    expectations of it), shown by that evidence; one that fails only on the plugin is the plugin's."""
    if on_reference is None:
        return PLUGIN_FAULT, f"{on_plugin} (the same check passes on torch_xla {torch_xla_version}'s built-in CPU client)"
    return FRAMEWORK_FAULT, (f"PyTorch/XLA defect, not the plugin's: {op} fails the same way on torch_xla "
                             f"{torch_xla_version}'s built-in XLA CPU client ({on_reference}); on the plugin: {on_plugin}")
