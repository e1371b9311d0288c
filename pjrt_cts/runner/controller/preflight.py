"""The run's preflight: walk the steps every test shares once, in a child, before any worker starts.

Steps (pjrt_cts.runner.probe_child): load (dlopen + GetPjrtApi), Plugin_Initialize, Plugin_Attributes,
Client_Create with the profile's options, device queries, one f32[4] upload + readback, compile and execute of
a one-add program, then destroying what was made. Each step may take the run's per-test timeout.

A step that crashes or hangs is recorded ONCE, as CRASH/TIMEOUT of the step's own test id (STEP_TESTS), with
the signal, the PJRT function in progress and the stderr tail; and a Block (pjrt_cts.runner.blocks) makes
every test that depends on the step FAIL "blocked by <that id>" instead of paying the crash again:
  - tests whose fixtures need the step are blocked before they start (STEP_TESTS fixtures: `plugin` for
    loading and initialising, `client` for client creation, `devices` for device queries);
  - any other test is blocked at its first call of the PJRT function that was in progress (the call is
    not made), e.g. every test that compiles when PJRT_Client_Compile aborted; tests that never call it
    run as usual (transfer tests when only compilation aborts).
A step that returns an error is not a preflight finding: the tests meet that error and judge it. The one exception is
loading: a library dlopen refuses (e.g. a runtime library it needs is absent) is one FAIL of
`abi.preflight.test_plugin_loads` naming the loader's message, and every test that needs the plugin FAILs as blocked
by it (one root cause, never an ERROR per test). A device-less run (`run --aot`) walks the steps before the client's.
The probe also yields the plugin's identity card for results.json.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.runner.blocks import LOAD_FUNCTION, Block, BlockFile
from pjrt_cts.runner.probe import ProbeResult, file_sha256, probe_plugin
from pjrt_cts.runner.probe_child import STEPS
from pjrt_cts.runner.records import PhaseResult, make_record
from pjrt_cts.schema import TestRecord
from pjrt_cts.runtime.errors import DLOPEN_FAILED

PREFLIGHT_AREA = "preflight"


@dataclass(frozen=True)
class StepTest:
    layer: str
    name: str  # test function name: the id is <layer>.preflight.<name>
    fixtures: tuple[str, ...]  # tests using one of these fixtures need the step
    function: str  # blocked when the death happened between PJRT calls of the step

    @property
    def test_id(self) -> str:
        return f"{self.layer}.{PREFLIGHT_AREA}.{self.name}"

    @property
    def nodeid(self) -> str:
        """A node id of the same shape as the suites' (the test has no file: the runner runs it itself)."""
        return f"suites/{self.layer}/test_{PREFLIGHT_AREA}.py::{self.name}"


STEP_TESTS: dict[str, StepTest] = {
    "load": StepTest("abi", "test_plugin_loads", ("plugin",), LOAD_FUNCTION),
    "initialize": StepTest("abi", "test_plugin_initialize_survives", ("plugin",), "PJRT_Plugin_Initialize"),
    "attributes": StepTest("abi", "test_plugin_attributes_survives", (), "PJRT_Plugin_Attributes"),
    "client": StepTest("client", "test_client_create_survives", ("client",), "PJRT_Client_Create"),
    "devices": StepTest("client", "test_device_queries_survive", ("devices",), "PJRT_Client_AddressableDevices"),
    "transfer": StepTest("transfer", "test_trivial_transfer_survives", (), "PJRT_Client_BufferFromHostBuffer"),
    "compile": StepTest("compile", "test_trivial_compile_survives", (), "PJRT_Client_Compile"),
    "execute": StepTest("execute", "test_trivial_execute_survives", (), "PJRT_LoadedExecutable_Execute"),
    "destroy": StepTest("client", "test_destroy_survives", (), "PJRT_Client_Destroy"),
}
assert set(STEP_TESTS) == set(STEPS)


@dataclass
class Preflight:
    probe: ProbeResult
    identity: dict[str, Any]  # results.json "plugin"
    finding: TestRecord | None  # the CRASH/TIMEOUT record, if a step died
    block: Block | None

    def write_blocks(self, path: Path) -> None:
        """A fresh blocks file for the run's workers (empty when every step survived)."""
        BlockFile(path, [self.block] if self.block is not None else []).write()

    def announcement(self) -> str:
        """One terminal line for the finding."""
        assert self.finding is not None and self.block is not None
        return (f"preflight: {self.finding.outcome.value} {self.finding.id}: {self.block.reason}; the tests that "
                f"depend on it FAIL as blocked by it without calling {', '.join(self.block.functions)}")


# The steps of a device-less run (`run --aot`): it creates no client.
DEVICE_LESS_STEPS = ("load", "initialize", "attributes")


def run_preflight(plugin_path: Path, create_options: Mapping[str, Any], env: Mapping[str, str], *,
                  step_timeout: float, repro: str, sha256: str | None = None,
                  steps: tuple[str, ...] = STEPS) -> Preflight:
    """`sha256`: the plugin file's digest when the caller has it (the run's binding); else hashed here."""
    if sha256 is not None:
        result = probe_plugin(plugin_path, create_options, steps=steps, step_timeout=step_timeout, env=env)
    else:
        with ThreadPoolExecutor(max_workers=1) as pool:  # hashing overlaps the child's work
            digest = pool.submit(_sha256_or_none, plugin_path)
            result = probe_plugin(plugin_path, create_options, steps=steps, step_timeout=step_timeout, env=env)
            sha256 = digest.result()
    identity = result.identity_card()
    identity["sha256"] = sha256
    if result.load_error:
        identity["error"] = result.load_error
    if result.death is not None and not result.death.reached_plugin:
        identity["error"] = f"the preflight child failed before loading the plugin: {result.death.one_line()}"
        return Preflight(result, identity, None, None)
    finding: TestRecord | None
    block: Block | None
    if result.death is None and result.load_error and DLOPEN_FAILED in result.load_error:
        finding, block = _load_failure(result, plugin_path, repro)
    else:
        finding, block = _finding(result, plugin_path, repro)
    return Preflight(result, identity, finding, block)


def _load_failure(result: ProbeResult, plugin_path: Path, repro: str) -> tuple[TestRecord, Block]:
    """The library could not be loaded (an error, not a death): one FAIL, and a block on everything that needs it."""
    test = STEP_TESTS["load"]
    reason = f"the plugin cannot be loaded: {result.load_error}"
    record = make_record(test.nodeid, PhaseResult(Outcome.FAIL, message=reason, duration=_step_seconds(result, "load"),
                                                  details={"preflight_step": "load", "function": test.function},
                                                  tags=["preflight"]), repro, test_id=test.test_id)
    block = Block(finding=test.test_id, reason=reason, fixtures=test.fixtures, functions=(test.function,),
                  plugin_path=str(Path(plugin_path).resolve()), kind="preflight")
    return record, block


def _finding(result: ProbeResult, plugin_path: Path, repro: str) -> tuple[TestRecord | None, Block | None]:
    death = result.death
    if death is None or death.step not in STEP_TESTS:
        return None, None
    test = STEP_TESTS[death.step]
    function = death.function or test.function
    if death.kind == "timeout":
        outcome = Outcome.TIMEOUT
        headline = f"{function} did not return within {death.timeout_s:g}s in the preflight (child killed)"
    else:
        outcome = Outcome.CRASH
        how = f"killed by {death.signal}" if death.signal else f"exited with status {death.exit_status}"
        headline = f"the plugin was {how} in {function} during the preflight's {death.step} step"
    reason_line = f": {death.reason}" if death.reason else ""
    message = headline + reason_line
    tail = death.stderr_tail
    if tail:
        message += f"\n--- last {len(tail)} lines of stderr ---\n" + "\n".join(tail)
    details = {"preflight_step": death.step, "function": function, "signal": death.signal,
               "exit_status": death.exit_status, "stderr_tail": tail, "last_returned": death.last_returned}
    record = make_record(test.nodeid, PhaseResult(outcome, message=message, duration=_step_seconds(result, death.step),
                                                  details=details, tags=["preflight"]), repro, test_id=test.test_id)
    summary = f"{outcome.value} of {function} ({death.signal or death.kind}){reason_line}"
    block = Block(finding=test.test_id, reason=summary, fixtures=test.fixtures, functions=(function,),
                  plugin_path=str(Path(plugin_path).resolve()), kind="preflight")
    return record, block


def _step_seconds(result: ProbeResult, step: str) -> float:
    record = result.step(step)
    return record.seconds if record else 0.0


def _sha256_or_none(path: Path) -> str | None:
    try:
        return file_sha256(path)
    except OSError:
        return None
