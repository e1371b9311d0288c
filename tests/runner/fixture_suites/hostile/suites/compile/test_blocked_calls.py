"""Compile aborts in the shim: every test that reaches PJRT_Client_Compile must FAIL as blocked, never call it."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

PROGRAM = """\
func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
"""


def test_compile_is_refused(client: Any) -> None:
    client.compile(PROGRAM)


def test_refusal_swallowed_by_the_test(client: Any) -> None:
    try:
        client.compile(PROGRAM)
    except Exception:  # noqa: BLE001 - a careless test: it must not PASS without having compiled anything
        pass


@pytest.mark.isolated
def test_isolated_compile_is_refused(client: Any) -> None:
    client.compile(PROGRAM)


def test_transfer_does_not_compile(client: Any) -> None:
    values = np.arange(4, dtype=np.float32)
    with client.buffer_from_numpy(values) as buffer:
        assert np.array_equal(buffer.to_numpy(), values)
