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


def test_random_draws_share_xla_deviation_when_drawn_as_xla_draws(monkeypatch: pytest.MonkeyPatch) -> None:
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


BOUND = np.nextafter(np.float32(1), np.float32(2))  # the excluded upper bound of rng UNIFORM on [1, BOUND)


def _xla_draws(count: int, seed: int = 7) -> np.ndarray:
    return np.where(np.random.default_rng(seed).random(count) < 0.5, np.float32(1), BOUND).astype(np.float32)


def test_a_constant_output_of_one_of_xlas_values_is_not_xlas_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    xla = [_xla_draws(64)]
    monkeypatch.setattr(deviations, "diagnose_values", lambda *_: [])
    case = SimpleNamespace(spec={"op": "rng"}, spec_vs_xla={"kind": "wrong_result", "explanation": "values at the bound"})
    constant = [np.full(64, BOUND, np.float32)]  # every element one XLA returns: the old rule called it shared
    assert drawn_from(constant, xla) and not deviations.drawn_alike(constant, xla)
    with pytest.raises(AssertionError):
        judge_mismatch(case, constant, "differs", inputs=lambda: [], xla_expected=lambda: xla,
                       record_details=lambda **kw: None, mismatch=lambda got, theirs: "differs")


def test_another_draw_of_xlas_distribution_is_drawn_alike() -> None:
    xla = [_xla_draws(64)]
    assert all(deviations.drawn_alike([_xla_draws(64, seed)], xla) for seed in range(40))
    assert not deviations.drawn_alike([np.array([1.0, 2.0] * 32, np.float32)], xla)  # a value XLA never returned


class _Error(Exception):
    def __init__(self, function: str) -> None:
        super().__init__(f"{function}: INVALID_ARGUMENT: no")
        self.function = function


def test_only_a_compile_error_is_rejected_as_xla_does() -> None:
    case = SimpleNamespace(spec_vs_xla={"kind": "compile_error", "explanation": "XLA's compile rejects it"})
    with pytest.raises(SharedDeviation, match="XLA rejects it too"):
        deviations.raise_if_rejected_as_by_xla(case, _Error("PJRT_Client_Compile"))
    deviations.raise_if_rejected_as_by_xla(case, _Error("PJRT_LoadedExecutable_Execute"))  # no deviation: a FAIL
