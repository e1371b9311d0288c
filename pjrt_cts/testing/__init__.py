"""The suites' one test-support package: the plugin under test, declared requirements, checks, arrays, programs,
corpus.

Suites import from here (`from pjrt_cts.testing import requires, expect_rejection, ADD`); nothing here loads a
plugin at import time (the runner's controller imports the suites' conftest files too).

Names resolve on first use (PEP 562 `__getattr__`): a child process that runs one submodule (e.g.
`python -m pjrt_cts.testing.robustness_cases`) does not import pytest and the corpus code it never uses.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pjrt_cts.testing.arrays import (assert_bit_exact, assert_same, sample_array)
    from pjrt_cts.testing.checks import (expect_rejection, optional_input, refuse_or_succeed)
    from pjrt_cts.testing.corpus import (attempt, case_expected, case_inputs, case_xla_expected,
        compiled_for_framework, compiled_golden, declared_unreadable_reason, framework_artifact_version,
        golden_case_outputs, golden_param, golden_program_param, golden_version_param, multi_device_cases,
        one_case_per_family, one_program_per_family, program_of, read_case, representative_cases, run_golden)
    from pjrt_cts.testing.outcomes import (BlockedByFailure, CorpusUnreadable, SuiteError)
    from pjrt_cts.testing.plugin_under_test import (create_options_under_test, no_device_codes, output_dir,
        plugin_path_under_test, profile_name)
    from pjrt_cts.testing.programs import (ADD, PROGRAMS, PROGRAMS_BY_NAME, PROGRAM_NAMES, Program,
        assert_matches_program, compile_cached, compiled_program, mismatch_message, programs_param, run)
    from pjrt_cts.testing.readiness import (assert_buffer_error, assert_pending, buffer_error, settled_error)
    from pjrt_cts.testing.resource_growth import (assert_growth_below, measure_growth)
    from pjrt_cts.testing.requirements import (FeatureProbe, create_client_under_test, create_session_client,
        device_index_params, environment_lacks, first_line, not_applicable, requires, unsupported_if_unimplemented)

# submodule -> the names it exports here (the same names as the TYPE_CHECKING imports above)
_EXPORTS: dict[str, tuple[str, ...]] = {
    "pjrt_cts.testing.arrays": ("assert_bit_exact", "assert_same", "sample_array"),
    "pjrt_cts.testing.checks": ("expect_rejection", "optional_input", "refuse_or_succeed"),
    "pjrt_cts.testing.corpus": (
        "attempt", "case_expected", "case_inputs", "case_xla_expected", "compiled_for_framework",
        "compiled_golden", "declared_unreadable_reason", "framework_artifact_version", "golden_case_outputs",
        "golden_param", "golden_program_param", "golden_version_param", "multi_device_cases", "one_case_per_family",
        "one_program_per_family", "program_of", "read_case", "representative_cases", "run_golden"),
    "pjrt_cts.testing.outcomes": ("BlockedByFailure", "CorpusUnreadable", "SuiteError"),
    "pjrt_cts.testing.plugin_under_test": (
        "create_options_under_test", "no_device_codes", "output_dir", "plugin_path_under_test", "profile_name"),
    "pjrt_cts.testing.programs": (
        "ADD", "PROGRAMS", "PROGRAMS_BY_NAME", "PROGRAM_NAMES", "Program", "assert_matches_program",
        "compile_cached", "compiled_program", "mismatch_message", "programs_param", "run"),
    "pjrt_cts.testing.readiness": ("assert_buffer_error", "assert_pending", "buffer_error", "settled_error"),
    "pjrt_cts.testing.resource_growth": ("assert_growth_below", "measure_growth"),
    "pjrt_cts.testing.requirements": (
        "FeatureProbe", "create_client_under_test", "create_session_client", "device_index_params",
        "environment_lacks", "first_line", "not_applicable", "requires", "unsupported_if_unimplemented"),
}
# exported name -> the submodule that defines it
_SOURCES: dict[str, str] = {name: module for module, names in _EXPORTS.items() for name in names}

# A literal list (linters read it to know the TYPE_CHECKING imports are re-exports); tests check it against _SOURCES.
__all__ = [
    "ADD", "BlockedByFailure", "CorpusUnreadable", "FeatureProbe", "PROGRAMS", "PROGRAMS_BY_NAME", "PROGRAM_NAMES",
    "Program", "SuiteError", "assert_bit_exact", "assert_buffer_error", "assert_growth_below", "assert_matches_program",
    "assert_pending", "assert_same", "attempt", "buffer_error", "case_expected",
    "case_inputs", "case_xla_expected", "compile_cached", "compiled_for_framework", "compiled_golden",
    "compiled_program", "create_client_under_test", "create_options_under_test", "create_session_client",
    "declared_unreadable_reason", "device_index_params",
    "environment_lacks", "expect_rejection", "first_line", "framework_artifact_version", "golden_case_outputs",
    "golden_param", "golden_program_param", "golden_version_param", "measure_growth", "mismatch_message",
    "multi_device_cases",
    "no_device_codes", "not_applicable", "one_case_per_family", "one_program_per_family", "optional_input",
    "output_dir", "plugin_path_under_test", "profile_name", "program_of", "programs_param", "read_case",
    "refuse_or_succeed", "representative_cases", "requires",
    "run", "run_golden", "sample_array", "settled_error", "unsupported_if_unimplemented",
]


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(source), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SOURCES))
