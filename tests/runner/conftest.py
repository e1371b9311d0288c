"""Fixtures for the runner's own tests.

The throwaway suite trees under fixture_suites/ are run by the runner under test (in
subprocesses), never collected by this test session.
"""
from __future__ import annotations

from pathlib import Path

import pytest

collect_ignore = ["fixture_suites"]


@pytest.fixture(scope="session")
def fake_plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file that stands in for a plugin: the throwaway suites never load it."""
    path = tmp_path_factory.mktemp("plugin") / "libfake_pjrt_plugin.so"
    path.write_bytes(b"not an ELF file")
    return path
