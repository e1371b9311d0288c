"""Throwaway suites for the runner's own tests: no plugin is loaded, anything may crash."""
import pytest


@pytest.fixture
def broken_fixture():
    raise RuntimeError("fixture exploded")
