"""Every test aborts its worker: after a few in a row the rest of the module must be cut short."""
from __future__ import annotations

import os

import pytest


@pytest.mark.parametrize("index", range(16))
def test_aborts(index: int) -> None:
    os.abort()
