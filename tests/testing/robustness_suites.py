"""The robustness layer's suite modules, imported by the project's tests without pytest collecting them: their
tables of risky calls and their conftest (RiskyCall, which writes the reproduction scripts)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from pjrt_cts.testing import robustness_cases as rc

SUITES = Path(__file__).resolve().parents[2] / "suites" / "robustness"


def suite_module(name: str) -> Any:
    """suites/robustness/<name>.py as a module (the tests that import it filter the `isolated` mark's warning:
    the conftest that registers it is not loaded)."""
    spec = importlib.util.spec_from_file_location(f"_robustness_{name}", SUITES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def named_cases() -> list[tuple[str, dict[str, Any]]]:
    """(case name, kwargs) of every risky call the suites make (the fixed tables; the bytecode one is built at
    run time from a stored artifact)."""
    lifetimes, invalid = suite_module("test_handle_lifetimes"), suite_module("test_invalid_arguments")
    options, null = suite_module("test_malformed_compile_options"), suite_module("test_null_inputs")
    cases: list[tuple[str, dict[str, Any]]] = []
    for table in (lifetimes.DESTROYED_CASES, lifetimes.DELETED_CASES, invalid.ENUM_CASES, invalid.SHAPE_CASES,
                  invalid.STRUCT_SIZE_CASES, invalid.OVERREAD_CASES, null.NULL_HANDLES):
        cases += [(row.case, dict(row.kwargs)) for row in table.values()]
    cases += [("compile_program", kwargs) for kwargs in invalid.FORMAT_CASES.values()]
    cases += [("compile_with_options", {"options": value}) for value in options.OPTION_CASES.values()]
    cases += [("null_args_struct", {"function": function}) for function in null.NULL_ARGS]
    cases += [(name, {}) for name in rc.CONTROLS.values()]
    return cases
