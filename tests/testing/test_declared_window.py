"""What a plugin declares about itself explains a rejection only where it can be true: the StableHLO window
(pjrt_cts.testing.corpus) and the platform name its profile says it reports (pjrt_cts.testing.plugin_under_test)."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pjrt_cts import profiles
from pjrt_cts.testing.corpus import declared_unreadable_reason, declared_window_problem, text_declared_unsupported
from pjrt_cts.testing.plugin_under_test import expected_platform

CASE = SimpleNamespace(id="elementwise.add.f32.r1",
                       stablehlo_version=lambda label: {"current": "1.17.0", "intermediate": "1.0.0",
                                                        "minimum": "0.9.0"}[label])


def _plugin(minimum: list[int], current: list[int]) -> Any:
    return SimpleNamespace(attributes={"stablehlo_minimum_version": minimum, "stablehlo_current_version": current})


def test_a_window_that_holds_an_artifact_explains_rejections_outside_it() -> None:
    legacy = _plugin([0, 9, 0], [1, 13, 3])  # the 0.81 XLA CPU plugin's window
    assert declared_window_problem(legacy) is None
    assert "newer than the plugin's declared stablehlo_current_version 1.13.3" in declared_unreadable_reason(
        legacy, CASE, "current")
    assert declared_unreadable_reason(legacy, CASE, "intermediate") is None
    assert "program text written by StableHLO 1.17.0" in str(text_declared_unsupported(legacy, CASE))


@pytest.mark.parametrize(("minimum", "current", "why"), [
    ([0, 1, 0], [0, 1, 0], "older than the first portable StableHLO version 0.9.0"),
    ([1, 5, 0], [1, 0, 0], "an empty window"),
])
def test_a_window_that_cannot_be_true_explains_nothing(minimum: list[int], current: list[int], why: str) -> None:
    plugin = _plugin(minimum, current)
    assert why in str(declared_window_problem(plugin))
    assert all(declared_unreadable_reason(plugin, CASE, label) is None for label in ("current", "intermediate", "minimum"))
    assert text_declared_unsupported(plugin, CASE) is None  # a compile error of text is then a FAIL, as without it


def test_profiles_name_the_platform_their_plugin_reports(use_run_context: Any) -> None:
    assert {name: profiles.get_profile(name).platform for name in ("cpu", "cpu-legacy", "cuda", "rocm", "tpu")} == {
        "cpu": "cpu", "cpu-legacy": "cpu", "cuda": "cuda", "rocm": "rocm", "tpu": "tpu"}
    use_run_context(profile="cuda")
    assert expected_platform() == "cuda"
    use_run_context(plugin_path="/opt/plugin.so")  # a bare plugin path: no profile says what it must report
    assert expected_platform() is None
    use_run_context()  # the bundled plugin without a profile: the default profile's
    assert expected_platform() == "cpu"
