"""Robustness layer helpers: run one bad call in a child process and classify the ending.

`risky_call(name, case, kwargs, covered=...)` runs case `case` of pjrt_cts.testing.robustness_cases by name in a
child process (`python -m pjrt_cts.testing.robustness_cases ...`) with a timeout, writes a stand-alone
reproduction script to <out>/robustness/<name>.py (it calls the same case by name), and judges:

  clean error              -> PASS (for inputs the contract covers, the error code is checked too), once the
                              control, the same function called with valid arguments in a child, succeeds
                              (a plugin that rejects every call proves nothing by rejecting this one); the
                              control runs first in the case's own child, once per function and worker
  success on covered input -> FAIL (the contract says this input must be rejected)
  crash / hang             -> FAIL with the script path if the contract covers the input,
                              WARNING (HardeningFinding) if it does not (NULL args, use after destroy)

Scripts of passing cases are removed; the others stay as the reproduction file.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable, Mapping

import pytest

from pjrt_cts.fuzz.isolate import ChildOutcome, child_environment, run_command
from pjrt_cts.judgment.outcomes import HardeningFinding
from pjrt_cts.testing import output_dir
from pjrt_cts.testing.robustness_cases import CONTROLS, child_argv, reproduction_script

CHILD_TIMEOUT = 60.0

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

    def __call__(self, name: str, case: str, kwargs: Mapping[str, Any] | None = None, *, function: str,
                 contract: str, covered: bool, codes: tuple[str, ...] = (), expect_success: bool = False,
                 accept_is_warning: bool = False, timeout: float = CHILD_TIMEOUT) -> ChildOutcome:
        """Run robustness case `case` with `kwargs` in a fresh process; see the module docstring for the verdicts.

        `expect_success`: the input is valid, the call must succeed (a crash is a FAIL).
        `accept_is_warning`: accepting the input is a hardening finding (WARNING), not a FAIL."""
        script = self._write_script(name, case, kwargs or {}, title=f"{function}: {contract}")
        outcome = self._run_with_control(function, case, kwargs or {}, timeout=timeout,
                                         wants_control=covered and not expect_success)
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

    def _run_with_control(self, function: str, case: str, kwargs: Mapping[str, Any], *, timeout: float,
                          wants_control: bool) -> ChildOutcome:
        """The case in a child; for a rejection case whose function's control this worker has not run yet, the
        control runs first in the same child (one process start instead of two).

        A child that ran the control and then did not answer cleanly is not judged: the case runs again alone,
        as its reproduction script runs it, and that run decides."""
        control = CONTROLS.get(function) if wants_control and function not in _control_outcomes else None
        outcome = self._run(case, kwargs, timeout=timeout, control=control)
        if control is None:
            return outcome
        if outcome.control is not None:
            _control_outcomes[function] = ChildOutcome("answered", 0, None, outcome.control, "", outcome.seconds)
        if outcome.answered and outcome.control is not None:
            return outcome
        return self._run(case, kwargs, timeout=timeout)

    def _control_problem(self, function: str, contract: str, script: Path) -> Exception | None:
        """The same function with valid arguments must succeed, else the rejection shows nothing."""
        case = CONTROLS.get(function)
        assert case is not None, (f"robustness suite: no control for {function} (add one to CONTROLS in "
                                  f"pjrt_cts.testing.robustness_cases)")
        if function not in _control_outcomes:
            _control_outcomes[function] = self._run(case, {}, timeout=CHILD_TIMEOUT)
        control = _control_outcomes[function]
        result = control.result or {}
        if control.answered and result.get("status") == "ok":
            return None
        path = self._write_script(f"control-{function}", case, {}, title=f"{function} with valid arguments (control)")
        answer = (f"{result.get('code')}: {str(result.get('message'))[:300]}" if control.answered
                  else control.describe())
        return AssertionError(f"{contract}: {function} rejected the input, but the control, the same function with "
                              f"valid arguments, failed too ({answer}; reproduce: python {path}): the rejection "
                              f"shows nothing; the rejected case: python {script}")

    def _write_script(self, name: str, case: str, kwargs: Mapping[str, Any], *, title: str) -> Path:
        """The stand-alone reproduction file of one case (no pytest needed to rerun it)."""
        script = self.directory / f"{name}.py"
        script.write_text(reproduction_script(case, kwargs, title=title, path=script, plugin_path=self.plugin_path,
                                              options=self.create_options), encoding="utf-8")
        return script

    def _run(self, case: str, kwargs: Mapping[str, Any], *, timeout: float, control: str | None = None) -> ChildOutcome:
        """The case, run by name in a child process (python -m pjrt_cts.testing.robustness_cases ...)."""
        return run_command(child_argv(self.plugin_path, self.create_options, case, kwargs, control),
                           timeout=timeout, env=child_environment(), may_fork=True)

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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A risky call runs in a child that loads the plugin and creates a client: a long test where that takes seconds
    (a CUDA client), which the runner spreads over its order (runner/worker/order.py: spread_long_tests)."""
    for item in items:
        if "risky_call" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.own_process)
