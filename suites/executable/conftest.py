"""Layer-local setup: make the shared suites/_programs.py importable whatever pytest's import mode, and drop
golden-driven tests that have no case to run (the corpus is absent or has no single-device case) instead of
reporting pytest's empty-parameter-set skip."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

_LAYER_DIR = Path(__file__).resolve().parent
_SUITES_DIR = str(_LAYER_DIR.parent)
if _SUITES_DIR not in sys.path:
    sys.path.insert(0, _SUITES_DIR)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from _programs import drop_empty_parametrizations

    drop_empty_parametrizations(config, items, _LAYER_DIR)
