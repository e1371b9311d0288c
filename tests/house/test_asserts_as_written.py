"""pjrt-cts registers a pytest11 entry point (pjrt_cts.cli.pytest_plugin), and pytest marks every module of a
distribution that has one for assertion rewriting: every `pjrt_cts` module imported under pytest — in the tests,
in a bare `pytest suites/`, in each worker of `pjrt-cts run`. A rewritten assert appends pytest's introspection
("assert ... is None") to the message, so the failure messages of the suite's helpers (what records, catalogue
rules and reports read) would depend on how the process was started. Each module with an assert statement opts out
with PYTEST_DONT_REWRITE in its docstring, pytest's public switch."""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import pjrt_cts
from pjrt_cts.testing import assert_bit_exact

PACKAGE = Path(pjrt_cts.__file__).parent


def _has_assert(tree: ast.AST) -> bool:
    return any(isinstance(node, ast.Assert) for node in ast.walk(tree))


def test_every_module_with_an_assert_opts_out_of_rewriting() -> None:
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        if _has_assert(tree) and "PYTEST_DONT_REWRITE" not in (ast.get_docstring(tree) or ""):
            missing.append(str(path.relative_to(PACKAGE.parent)))
    assert not missing, f"modules with asserts that pytest would rewrite (add PYTEST_DONT_REWRITE to the docstring): {missing}"


def test_a_helpers_failure_message_is_the_helpers_own() -> None:
    expected = np.zeros(3, np.float32)
    with pytest.raises(AssertionError) as failure:
        assert_bit_exact(expected + 1, expected, "PJRT_Buffer_ToHostBuffer")
    assert "\nassert " not in str(failure.value), str(failure.value)
