"""The counter the confirmation fixtures share (tests/runner/test_confirmation_run.py)."""
import os
from pathlib import Path
from typing import Callable

import pytest


@pytest.fixture
def count() -> Callable[[str], int]:
    """`count(name)`: how many times `name` has run in this run (a counter file each; runs are in different
    processes)."""

    def bump(name: str) -> int:
        path = Path(os.environ["RUNNER_TEST_TRACE"]).with_name(f"{name}.count")
        number = int(path.read_text()) + 1 if path.is_file() else 1
        path.write_text(str(number))
        return number

    return bump
