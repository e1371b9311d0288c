"""Exceptions that give a test a definite outcome other than NOT_SUPPORTED (see requirements.py for that one).

The worker plugin (pjrt_cts.runner.worker.outcomes.classify_exception) maps them by class:
`BlockedByFailure` -> FAIL in any phase (also from a fixture), `SuiteError` -> ERROR.
"""
from __future__ import annotations


class BlockedByFailure(AssertionError):
    """A prerequisite the plugin claims to support failed: the dependent test FAILs, naming the cause. `finding`: the
    test id that reports the cause itself (its record's `details.blocked_by`): the root cause is named once, by that
    test, and the dependent tests are counted under it, never rerun or attributed on their own."""

    def __init__(self, message: str, finding: str | None = None) -> None:
        super().__init__(message)
        self.finding = finding


class SuiteError(Exception):
    """The suite could not do its own part (e.g. read the golden corpus): an ERROR, never a silent skip."""


class CorpusUnreadable(SuiteError):
    """The golden corpus (manifest or a case file) could not be read."""
