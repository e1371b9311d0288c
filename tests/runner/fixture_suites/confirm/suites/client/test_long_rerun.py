"""A finding of a long test is rerun right after it (tests/runner/test_confirmation_run.py). Selected apart from
test_confirm.py."""
import os
from pathlib import Path

import pytest


@pytest.mark.timeout(60)
def test_long_and_fails(count):
    count("long")
    raise AssertionError("the plugin returned 3 for 1 + 1")


def test_runs_after_the_long_one(count):
    count("after_long")
    trace = Path(os.environ["RUNNER_TEST_TRACE"])
    seen = trace.with_name("long.count")
    trace.with_name("long_runs_seen_by_the_next_test.txt").write_text(seen.read_text() if seen.is_file() else "0")
