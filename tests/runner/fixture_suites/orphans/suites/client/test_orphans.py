"""A worker's findings outlive it (tests/runner/test_confirmation_run.py): the next worker reruns them."""
import os
from pathlib import Path


def _count(name: str) -> int:
    path = Path(os.environ["RUNNER_TEST_TRACE"]).with_name(f"{name}.count")
    count = int(path.read_text()) + 1 if path.is_file() else 1
    path.write_text(str(count))
    return count


def test_a_finding_of_the_first_worker():
    _count("first")
    assert 1 + 1 == 3, "the plugin returned 3 for 1 + 1"


def test_kills_its_worker():
    if _count("killer") == 1:
        os.abort()


def test_runs_in_the_next_worker():
    _count("next")
