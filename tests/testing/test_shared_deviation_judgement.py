"""A golden result that is not the spec's: SHARED_DEVIATION only on XLA's own evidence, else FAIL."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from pjrt_cts.judgment.outcomes import SharedDeviation
from pjrt_cts.testing import deviations
from pjrt_cts.testing.deviations import drawn_from, judge_mismatch

XLA = [np.array([1.0, 1.0000001, 1.0, 1.0000001], dtype=np.float32)]  # XLA's draws on [1, nextafter(1))


def _judge(op: str, actual: list[np.ndarray], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deviations, "diagnose_values", lambda *_: [])
    case = SimpleNamespace(spec={"op": op}, spec_vs_xla={"kind": "wrong_result", "explanation": "values at the bound"})
    details: dict[str, Any] = {}
    judge_mismatch(case, actual, "differs", inputs=lambda: [], xla_expected=lambda: XLA,
                   record_details=lambda **kw: details.update(kw),
                   mismatch=lambda got, theirs: None if np.array_equal(got[0], theirs[0]) else "differs")


def test_random_draws_share_xla_deviation_when_every_value_is_one_xla_returned(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SharedDeviation, match="draws are random"):
        _judge("rng", [np.array([1.0000001, 1.0, 1.0, 1.0], dtype=np.float32)], monkeypatch)


@pytest.mark.parametrize(("op", "values"), [
    ("rng", [1.0, 2.0, 1.0, 1.0]),  # a value XLA never returned: a defect of the plugin's own
    ("add", [1.0000001, 1.0, 1.0, 1.0]),  # a deterministic op must give XLA's exact values
])
def test_other_values_fail(op: str, values: list[float], monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(AssertionError):
        _judge(op, [np.array(values, dtype=np.float32)], monkeypatch)


def test_drawn_from_compares_bits_per_output() -> None:
    assert drawn_from([np.array([1.0, 1.0, 1.0, 1.0], np.float32)], XLA)
    assert not drawn_from([np.array([1.0], np.float32)], XLA)  # another shape
    assert not drawn_from([np.array([-0.0], np.float32)], [np.array([0.0], np.float32)])  # bits, not ==
    assert not drawn_from([np.array([1.0], np.float64)], [np.array([1.0], np.float32)])
    assert not drawn_from([], XLA)
