"""An isolated test's rerun runs alone in its forked process, as its first run did (tests/runner/
test_confirmation_run.py). Selected apart from test_confirm.py."""
import os
from pathlib import Path

import pytest


def _note_pid(name: str) -> None:
    path = Path(os.environ["RUNNER_TEST_TRACE"]).with_name(f"{name}.pids")
    with open(path, "a") as handle:
        handle.write(f"{os.getpid()}\n")


def test_fails_first(count):
    _note_pid("plain_first")
    raise AssertionError("the plugin returned 3 for 1 + 1")


@pytest.mark.isolated
def test_isolated_and_fails(count):
    _note_pid("isolated")
    raise AssertionError("the plugin returned 3 for 1 + 1")


def test_fails_last(count):
    _note_pid("plain_last")
    raise AssertionError("the plugin returned 3 for 1 + 1")
