"""Findings the confirmation pass must tell apart (tests/runner/test_confirmation_run.py)."""
import os

import pytest

from pjrt_cts.judgment.outcomes import FeatureNotSupported


def test_passes(count):
    count("passes")


def test_fails_the_same_way_every_time(count):
    count("same")
    assert 1 + 1 == 3, "the plugin returned 3 for 1 + 1"


def test_fails_every_other_time(count):
    assert count("every_other") % 2 == 0, "wrong on odd runs"


def test_unimplemented_the_first_time_only(count):
    if count("unimplemented_once") == 1:
        raise FeatureNotSupported("PJRT_Client_Compile: UNIMPLEMENTED: not this time", "unimplemented")


def test_missing_slot_is_not_rerun(count):
    count("slot")
    raise FeatureNotSupported("requires PJRT_Foo: missing slot", "slot")


@pytest.mark.nondeterministic("a race the suite provokes on purpose")
def test_race_keeps_its_own_rule(count):
    count("race")
    raise AssertionError("lost the race")


def test_fails_then_aborts_its_reruns(count):
    """Its worker's rerun (a process forked from the worker) dies: the worker runs it again first in a new process,
    and that death is the second observation."""
    if count("aborts_rerun") >= 2:
        os.abort()
    raise AssertionError("the plugin returned 3 for 1 + 1")


@pytest.mark.isolated
def test_isolated_and_aborts_every_time(count):
    """Its child dies, and it has no twin: its worker reruns it, and that rerun's death is the second observation."""
    count("isolated_aborts")
    os.abort()
