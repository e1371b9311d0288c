"""One result record per test (pjrt_cts.schema.TestRecord), from the pytest phase reports the controller receives."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from pjrt_cts.judgment.outcomes import Outcome, test_id_from_nodeid
from pjrt_cts.judgment.results import jsonable
from pjrt_cts.schema import PhaseInfo, Tally, TestRecord, merge_tallies

_MAX_TRACEBACK_CHARS = 20_000
_SUITE_PATH = re.compile(r"(?:^|/)suites/(?P<layer>[^/]+)/")


@dataclass
class PhaseResult:
    """What a test's phase reports say, folded (`result_of_phases`), before it becomes a record."""

    outcome: Outcome
    message: str = ""
    duration: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    compatibility: dict[str, Any] = field(default_factory=dict)
    api_calls: dict[str, Tally] = field(default_factory=dict)


def layer_of_nodeid(nodeid: str) -> str:
    """The layer of a node id (its directory under suites/; a module that failed to collect has no test id yet),
    `unknown` elsewhere. Of a test id: pjrt_cts.judgment.outcomes.layer_of; of a record: its `layer`."""
    match = _SUITE_PATH.search(nodeid.replace("\\", "/"))
    return match["layer"] if match else "unknown"


def make_record(nodeid: str, result: PhaseResult, repro: str, test_id: str | None = None) -> TestRecord:
    return TestRecord(id=test_id or test_id_from_nodeid(nodeid), nodeid=nodeid, layer=layer_of_nodeid(nodeid),
                      outcome=result.outcome, duration=round(result.duration, 4), message=result.message,
                      details=result.details, tags=tuple(result.tags), repro=repro,
                      compatibility=result.compatibility, api_calls=result.api_calls)


def info_of(report: Any) -> PhaseInfo:
    """What the worker added to `report` (pjrt_cts.runner.worker.outcomes: its `pjrt_cts` attribute)."""
    return PhaseInfo.from_json(getattr(report, "pjrt_cts", None))


def result_of_phases(reports: Mapping[str, Any]) -> PhaseResult:
    """Fold the setup/call/teardown reports of one test into its outcome and message."""
    result = PhaseResult(outcome=Outcome.PASS)
    for when in ("setup", "call", "teardown"):
        report = reports.get(when)
        if report is None:
            continue
        info = info_of(report)
        result.duration += float(getattr(report, "duration", 0.0) or 0.0)
        result.details.update(_user_properties(report))
        result.details.update(info.details)
        result.compatibility.update(info.compatibility)
        if info.api_calls:
            result.api_calls = merge_tallies(result.api_calls, info.api_calls)
        if info.tags:
            result.tags = list(info.tags)
        if result.outcome not in (Outcome.PASS, Outcome.WARNING, Outcome.SHARED_DEVIATION):
            continue  # the first bad phase decides; later ones only add details
        phase_outcome, message = _phase_outcome(when, report, info)
        if phase_outcome is None:
            continue
        if when == "teardown" and phase_outcome in (Outcome.FAIL, Outcome.ERROR):
            phase_outcome = Outcome.ERROR
            message = f"teardown failed: {message}"
        if phase_outcome in (Outcome.WARNING, Outcome.SHARED_DEVIATION) and result.outcome is not Outcome.PASS:
            continue
        result.outcome = phase_outcome
        result.message = message
        traceback = _traceback_text(report)
        if traceback and phase_outcome in (Outcome.FAIL, Outcome.ERROR):
            result.details.setdefault("traceback", traceback)
    return result


def _phase_outcome(when: str, report: Any, info: PhaseInfo) -> tuple[Outcome | None, str]:
    if info.outcome is not None:
        return info.outcome, info.message
    if hasattr(report, "wasxfail"):  # pytest's own xfail marker, should a suite use it
        if report.skipped:
            return Outcome.XFAIL, str(report.wasxfail)
        if report.passed:
            return Outcome.XPASS, str(report.wasxfail)
    if report.passed:
        return None, ""
    if report.skipped:
        reason = _skip_reason(report)
        if reason.startswith("NOT_SUPPORTED"):
            return Outcome.NOT_SUPPORTED, reason.split(":", 1)[1].strip() if ":" in reason else ""
        return Outcome.SKIP, reason
    # failed
    message = _failure_message(report)
    return (Outcome.FAIL if when == "call" else Outcome.ERROR), message


def _user_properties(report: Any) -> dict[str, Any]:
    """`record_property(key, value)` pairs, for suites that use pytest's own fixture."""
    properties: dict[str, Any] = {}
    for pair in getattr(report, "user_properties", None) or []:
        if isinstance(pair, (tuple, list)) and len(pair) == 2:
            properties[str(pair[0])] = jsonable(pair[1])
    return properties


def _skip_reason(report: Any) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, (tuple, list)) and len(longrepr) == 3:
        reason = str(longrepr[2])
    else:
        reason = str(longrepr or "")
    return reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason


def _failure_message(report: Any) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        return str(crash.message)
    text = getattr(report, "longreprtext", "") or str(report.longrepr or "")
    return text.strip().splitlines()[-1] if text.strip() else "failed"


def _traceback_text(report: Any) -> str:
    text = getattr(report, "longreprtext", "") or ""
    if len(text) > _MAX_TRACEBACK_CHARS:
        text = "...\n" + text[-_MAX_TRACEBACK_CHARS:]
    return text
