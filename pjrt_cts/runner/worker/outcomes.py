"""The outcome mapping: what a test's exception means (NOT_SUPPORTED, WARNING, SHARED_DEVIATION, FAIL, ERROR), put on
pytest's report as its `pjrt_cts` attribute, which the controller folds into the test's record (runner/records.py).

Every process that runs tests loads it: an xdist worker, the children it forks or starts, and a bare
`pytest suites/`. `OutcomeMapping` is the plugin object; `record_details` and `record_compatibility` are the suites'
fixtures (this module is registered as a plugin for them)."""
from __future__ import annotations

from typing import Any, Callable, Generator

import pytest

from pjrt_cts.judgment import outcomes
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.judgment.results import jsonable
from pjrt_cts.runner import api_calls
from pjrt_cts.runtime import MissingFunction, NullExtensionFunction
from pjrt_cts.schema import PhaseInfo
from pjrt_cts.testing.outcomes import BlockedByFailure, SuiteError

DETAILS_KEY = pytest.StashKey[dict]()
COMPATIBILITY_KEY = pytest.StashKey[dict]()

# Markers that are pytest machinery, not features worth tagging a result with.
_MACHINERY_MARKERS = frozenset(
    {"parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings", "timeout", "feature",
     "tryfirst", "trylast", "own_process"}
)


@pytest.fixture
def record_details(request: pytest.FixtureRequest) -> Callable[..., None]:
    """`record_details(max_abs_err=..., first_mismatch_index=...)`: lands in the test's results.json `details`."""
    return _recorder(request.node.stash.setdefault(DETAILS_KEY, {}))


@pytest.fixture
def record_compatibility(request: pytest.FixtureRequest) -> Callable[..., None]:
    """`record_compatibility(stablehlo_current_version=...)`: merged into results.json `compatibility`."""
    return _recorder(request.node.stash.setdefault(COMPATIBILITY_KEY, {}))


def _recorder(found: dict[str, Any]) -> Callable[..., None]:
    def record(mapping: dict[str, Any] | None = None, **values: Any) -> None:
        found.update(mapping or {})
        found.update(values)

    return record


def unsupported_kind(exc: BaseException) -> str:
    """What a NOT_SUPPORTED exception rests on (pjrt_cts.judgment.outcomes.UNSUPPORTED_KINDS): a missing slot, or the
    FeatureNotSupported's own kind."""
    if isinstance(exc, MissingFunction):
        return "slot"  # an extension function beyond the struct_size of an older version included
    return str(getattr(exc, "kind", "") or "unimplemented")


def classify_exception(exc: BaseException) -> tuple[Outcome | None, str]:
    """(NOT_SUPPORTED | WARNING | SHARED_DEVIATION | FAIL | ERROR | None, reason), by the exception's class.

    NOT_SUPPORTED comes from pjrt_cts.testing.requirements (FeatureNotSupported) or a missing slot (runtime
    MissingFunction); an UNIMPLEMENTED PjrtError that no `unsupported_if_unimplemented` block expected is a FAIL.
    BlockedByFailure is a FAIL in any phase (a fixture's failed prerequisite); SuiteError is an ERROR."""
    described = str(exc) or type(exc).__name__
    if isinstance(exc, outcomes.FeatureNotSupported):
        return Outcome.NOT_SUPPORTED, exc.reason or described
    if isinstance(exc, NullExtensionFunction):  # an advertised extension with a NULL function: the plugin's defect
        return Outcome.FAIL, described
    if isinstance(exc, MissingFunction):  # a missing slot: same wording as a declared `requires(slot)`
        if exc.function and exc.plugin_version:
            return Outcome.NOT_SUPPORTED, (f"requires {exc.function}: missing slot (API {exc.plugin_version}): "
                                           f"{exc.reason or exc}")
        return Outcome.NOT_SUPPORTED, described
    if isinstance(exc, outcomes.HardeningFinding):
        return Outcome.WARNING, described
    if isinstance(exc, outcomes.SharedDeviation):
        return Outcome.SHARED_DEVIATION, described
    if isinstance(exc, BlockedByFailure):
        return Outcome.FAIL, described
    if isinstance(exc, SuiteError):
        return Outcome.ERROR, described
    return None, ""


def tags_of(item: pytest.Item) -> list[str]:
    """`@pytest.mark.feature("donation")` -> 'donation'; any other non-machinery marker -> its name."""
    tags: list[str] = []
    for mark in item.iter_markers():
        if mark.name == "feature":
            tags.extend(str(arg) for arg in mark.args)
        elif mark.name not in _MACHINERY_MARKERS:
            tags.append(mark.name)
    return list(dict.fromkeys(tags))


class OutcomeMapping:
    """Maps each phase's exception onto its report (classify_exception) and adds the test's record fields."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        excinfo = call.excinfo
        kind, reason = classify_exception(excinfo.value) if excinfo is not None else (None, "")
        # These kinds' reports carry no traceback: NOT_SUPPORTED becomes a skip (below), and WARNING and
        # SHARED_DEVIATION of the call phase a pass (of setup they stay failed: a passed setup would let pytest run the
        # call phase). pytest formats the traceback of every failed phase (~1.5 ms): hide the exception from it while
        # it makes the report, which is then a pass with none; outer wrappers see the exception again.
        hidden = kind is Outcome.NOT_SUPPORTED or (kind in (Outcome.WARNING, Outcome.SHARED_DEVIATION)
                                                   and call.when == "call")
        if hidden:
            call.excinfo = None
        try:
            report = yield
        finally:
            call.excinfo = excinfo
        if excinfo is not None and kind is Outcome.NOT_SUPPORTED:
            report.outcome = "skipped"
            lineno = (item.location[1] or 0) + 1
            report.longrepr = (str(item.path), lineno, f"NOT_SUPPORTED: {reason}")
            # what it rests on: only a run-time UNIMPLEMENTED is confirmed and checked for consistency
            stash = item.stash.setdefault(DETAILS_KEY, {})
            stash["unsupported_by"] = unsupported_kind(excinfo.value)
            subject = getattr(excinfo.value, "subject", None)
            if subject:
                stash["unsupported_subject"] = str(subject)
        if excinfo is not None and isinstance(excinfo.value, BlockedByFailure) and excinfo.value.finding:
            item.stash.setdefault(DETAILS_KEY, {})["blocked_by"] = excinfo.value.finding  # the root cause's own test
        # FAIL, ERROR: the report stays failed; setup or call alike
        if excinfo is not None:
            api_calls.note_missing(item, excinfo.value)
        details, compatibility = item.stash.get(DETAILS_KEY, None), item.stash.get(COMPATIBILITY_KEY, None)
        # The test's PJRT calls ride on its last report, the teardown's (counted only in a run's processes)
        counted = api_calls.test_calls(item) if call.when == "teardown" and api_calls.counting() else {}
        tags = tuple(tags_of(item)) if call.when == "setup" else ()
        if kind is None and not details and not compatibility and not tags and not counted:
            return report  # nothing to add (most setup and teardown phases): no PhaseInfo to encode
        info = PhaseInfo(outcome=kind, message=reason if kind is not None else "",
                         details=jsonable(details) if details else {},
                         compatibility=jsonable(compatibility) if compatibility else {}, tags=tags, api_calls=counted)
        data = info.to_json()
        if data:
            report.pjrt_cts = data  # type: ignore[attr-defined]  # the record rides on pytest's report (xdist serialises it)
        return report
