"""Robustness layer helpers: run one bad call in a child process and classify the ending.

`risky_call(name, body, covered=...)` writes a standalone reproduction script to
$PJRT_CTS_OUT/robustness/<name>.py (prelude below + `body`), runs it with a timeout, and judges:

  clean error              -> PASS (for inputs the contract covers, the error code is checked too), once the
                              control, the same function called with valid arguments in a child, succeeds
                              (a plugin that rejects every call proves nothing by rejecting this one)
  success on covered input -> FAIL (the contract says this input must be rejected)
  crash / hang             -> FAIL with the script path if the contract covers the input,
                              WARNING (HardeningFinding) if it does not (NULL args, use after destroy)

Scripts of passing cases are removed; the others stay as the reproduction file.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Callable

import pytest

from pjrt_cts.fuzz.isolate import ChildOutcome, run_script
from pjrt_cts.outcomes import HardeningFinding
from pjrt_cts.testing import output_dir

CHILD_TIMEOUT = 60.0

PRELUDE = '''"""pjrt-cts robustness reproduction: {title}

Run: python {path}
(PJRT_CTS_PLUGIN / PJRT_CTS_CREATE_OPTIONS select another plugin / client options.)
The last stdout line is the plugin's answer; a crash or hang is the finding.
"""
import ctypes
import json
import os

import numpy as np

from pjrt_cts.abi import structs
from pjrt_cts.fuzz.isolate import result_line
from pjrt_cts.runtime import PjrtError, Plugin, compile_options_bytes

PLUGIN = os.environ.get("PJRT_CTS_PLUGIN") or {plugin!r}
OPTIONS = json.loads(os.environ.get("PJRT_CTS_CREATE_OPTIONS") or {options!r})
ADD = """module @add {{
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {{
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }}
}}
"""

plugin = Plugin.load(PLUGIN)
client = plugin.create_client(OPTIONS)
device = client.addressable_devices[0]


def answer(error):
    """Report the plugin's answer and leave at once (no teardown of possibly broken objects)."""
    payload = {{"status": "ok"}} if error is None else {{"status": "error", "code": error.code,
                                                        "message": error.message[:500]}}
    print(result_line(payload), flush=True)
    os._exit(0)


def call(name, args):
    answer(plugin.call_status(name, args))


def call_raw(name, address):
    error = plugin.function(name)(address)
    answer(plugin.consume_error(error, "PJRT_" + name) if error else None)


def attempt(action):
    try:
        action()
    except PjrtError as error:
        answer(error)
    answer(None)


def options_buffer(data):
    return ctypes.create_string_buffer(data, max(1, len(data)))


def compile_args(program, options=None):
    data = compile_options_bytes() if options is None else options
    keep = options_buffer(data)
    args = structs.PJRT_Client_Compile_Args(client=client.handle, program=ctypes.addressof(program),
                                      compile_options=ctypes.addressof(keep), compile_options_size=len(data))
    args._keep = (keep, program)  # the program too: args holds only its address
    return args


def program_of(code=ADD, fmt="mlir"):
    data = code.encode() if isinstance(code, str) else code
    code_buffer = ctypes.create_string_buffer(data, len(data) + 1)
    format_buffer = ctypes.create_string_buffer(fmt.encode())
    program = structs.PJRT_Program(code=ctypes.addressof(code_buffer), code_size=len(data),
                             format=ctypes.addressof(format_buffer), format_size=len(fmt.encode()))
    program._keep = (code_buffer, format_buffer)
    return program


# ---- the case ----
'''


# The control of each function the rejection cases call: the same function with valid arguments (one child
# per function and worker; its answer is cached).
CONTROLS = {
    "PJRT_Client_BufferFromHostBuffer": "attempt(lambda: client.buffer_from_numpy(np.arange(4, dtype=np.float32)).to_numpy())",
    "PJRT_Client_Create": "attempt(lambda: plugin.create_client(OPTIONS).close())",
    "PJRT_Buffer_ToHostBuffer": "attempt(lambda: client.buffer_from_numpy(np.arange(4, dtype=np.float32)).to_numpy())",
    "PJRT_Event_Set": "from pjrt_cts.runtime import Event\nattempt(lambda: Event.create(plugin).set())",
    "PJRT_LoadedExecutable_Execute": ("executable = client.compile(ADD)\na = client.buffer_from_numpy(np.ones(4, np.float32))\n"
                                      "attempt(lambda: [x.to_numpy() for x in executable.execute([a, a])])"),
    "PJRT_Client_DefaultDeviceAssignment": "attempt(lambda: client.default_device_assignment(1, 1, buffer_size=1))",
    "PJRT_Client_LookupDevice": "attempt(lambda: client.lookup_device(client.devices[0].id))",
    "PJRT_Buffer_CopyRawToHost": "attempt(lambda: client.buffer_from_numpy(np.arange(4, dtype=np.float32)).copy_raw_to_host(0, 16))",
    "PJRT_Client_Compile": "call('Client_Compile', compile_args(program_of()))",
    "PJRT_Buffer_CopyToDevice": ("attempt(lambda: client.buffer_from_numpy(np.ones(4, np.float32))"
                                 ".copy_to_device(client.addressable_devices[-1]).to_numpy())"),
}
_control_outcomes: dict[str, ChildOutcome] = {}


@dataclasses.dataclass
class Recorder:
    details: Callable[..., None]


@pytest.fixture
def record(record_details: Callable[..., None]) -> Recorder:
    return Recorder(record_details)


@pytest.fixture(scope="session")
def repro_dir() -> Path:
    directory = output_dir() / "robustness"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


@dataclasses.dataclass
class RiskyCall:
    plugin_path: Any
    create_options: dict[str, Any]
    directory: Path
    record: Recorder

    def __call__(self, name: str, body: str, *, function: str, contract: str, covered: bool,
                 codes: tuple[str, ...] = (), expect_success: bool = False, accept_is_warning: bool = False,
                 timeout: float = CHILD_TIMEOUT) -> ChildOutcome:
        """Run `body` in a fresh process; see the module docstring for the verdicts.

        `expect_success`: the input is valid, the call must succeed (a crash is a FAIL).
        `accept_is_warning`: accepting the input is a hardening finding (WARNING), not a FAIL."""
        script = self.directory / f"{name}.py"
        script.write_text(PRELUDE.format(title=f"{function}: {contract}", path=script, plugin=str(self.plugin_path),
                                         options=json.dumps(self.create_options)) + body.strip() + "\n",
                          encoding="utf-8")
        outcome = run_script(script, timeout=timeout)
        details = {"outcome": outcome.status, "signal": outcome.signal, "returncode": outcome.returncode,
                   "answer": outcome.result, "covered_by_contract": covered}
        problem = self._judge(outcome, script, function=function, contract=contract, covered=covered, codes=codes,
                              expect_success=expect_success, accept_is_warning=accept_is_warning)
        rejected = covered and not expect_success and (outcome.result or {}).get("status") == "error"
        if rejected and problem is None:
            problem = self._control_problem(function, contract, script)
        if problem is None:
            self.record.details(details)
            script.unlink(missing_ok=True)  # a clean answer needs no reproduction
            return outcome
        details["repro_file"] = str(script)
        if not outcome.answered:
            details["stderr_tail"] = outcome.stderr_tail[-1500:]
        self.record.details(details)
        raise problem

    def _control_problem(self, function: str, contract: str, script: Path) -> Exception | None:
        """The same function with valid arguments must succeed, else the rejection shows nothing."""
        body = CONTROLS.get(function)
        assert body is not None, f"robustness suite: no control for {function} (add one to CONTROLS)"
        if function not in _control_outcomes:
            path = self.directory / f"control-{function}.py"
            path.write_text(PRELUDE.format(title=f"{function} with valid arguments (control)", path=path,
                                           plugin=str(self.plugin_path), options=json.dumps(self.create_options))
                            + body + "\n", encoding="utf-8")
            _control_outcomes[function] = run_script(path, timeout=CHILD_TIMEOUT)
            if _control_outcomes[function].answered and (_control_outcomes[function].result or {}).get("status") == "ok":
                path.unlink(missing_ok=True)
        control = _control_outcomes[function]
        result = control.result or {}
        if control.answered and result.get("status") == "ok":
            return None
        answer = (f"{result.get('code')}: {str(result.get('message'))[:300]}" if control.answered
                  else control.describe())
        return AssertionError(f"{contract}: {function} rejected the input, but the control, the same function with "
                              f"valid arguments, failed too ({answer}; reproduce: python "
                              f"{self.directory / f'control-{function}.py'}): the rejection shows nothing; "
                              f"the rejected case: python {script}")

    @staticmethod
    def _judge(outcome: ChildOutcome, script: Path, *, function: str, contract: str, covered: bool,
               codes: tuple[str, ...], expect_success: bool, accept_is_warning: bool) -> Exception | None:
        where = f"reproduce: python {script}"
        if not outcome.answered:
            if covered:
                return AssertionError(f"{contract}: {function} {outcome.describe()}; {where}")
            return HardeningFinding(f"{function} {outcome.describe()} on input the C API does not promise to reject "
                                    f"({contract}); {where}")
        result = outcome.result or {}
        if not covered:
            return None
        if expect_success:
            if result.get("status") == "ok":
                return None
            return AssertionError(f"{contract}: {function} failed on valid input with {result.get('code')}: "
                                  f"{str(result.get('message'))[:300]}; {where}")
        if result.get("status") != "error" and accept_is_warning:
            return HardeningFinding(f"{function} accepted it ({contract}); {where}")
        if result.get("status") != "error":
            wanted = " with " + " or ".join(codes) if codes else ""
            return AssertionError(f"{contract}: {function} should fail{wanted}, but succeeded; {where}")
        if codes and result.get("code") not in codes:
            return AssertionError(f"{contract}: {function} should fail with {' or '.join(codes)}, failed with "
                                  f"{result.get('code')}: {str(result.get('message'))[:300]}; {where}")
        return None


@pytest.fixture
def risky_call(plugin_path: Any, create_options: dict[str, Any], repro_dir: Path, record: Recorder, client: Any) -> RiskyCall:
    # `client`: the child scripts create a client too; where the plugin cannot (no device), the test is
    # NOT_SUPPORTED with the plugin's Client_Create error, like every device layer.
    return RiskyCall(plugin_path, create_options, repro_dir, record)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "timeout(seconds): per-test timeout for `pjrt-cts run`")
