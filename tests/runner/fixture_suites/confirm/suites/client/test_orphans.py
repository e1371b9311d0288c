"""A worker's findings outlive it (tests/runner/test_confirmation_run.py): the next worker reruns them. Selected
apart from test_confirm.py (its test kills a worker)."""
import os


def test_a_finding_of_the_first_worker(count):
    count("first")
    assert 1 + 1 == 3, "the plugin returned 3 for 1 + 1"


def test_kills_its_worker(count):
    if count("killer") == 1:
        os.abort()


def test_runs_in_the_next_worker(count):
    count("next")
