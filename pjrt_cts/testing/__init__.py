"""The suites' one test-support package: the plugin under test, declared requirements, checks, programs, corpus.

Suites import from here (`from pjrt_cts.testing import requires, expect_rejection, ADD`); nothing here loads a
plugin at import time (the runner's controller imports the suites' conftest files too).
"""
from pjrt_cts.testing.checks import assert_same, expect_rejection, optional_input
from pjrt_cts.testing.corpus import (attempt, case_expected, case_inputs, compiled_for_framework, compiled_golden,
                                     declared_unreadable_reason, framework_artifact_version, golden_case_outputs,
                                     golden_param, golden_program_param, golden_version_param, multi_device_cases,
                                     one_case_per_family, one_program_per_family, program_of, read_case,
                                     run_golden)
from pjrt_cts.testing.outcomes import BlockedByFailure, CorpusUnreadable, SuiteError
from pjrt_cts.testing.plugin_under_test import (create_options_under_test, no_device_codes, output_dir,
                                                plugin_path_under_test, profile_name)
from pjrt_cts.testing.programs import (ADD, PROGRAM_NAMES, PROGRAMS, PROGRAMS_BY_NAME, Program,
                                       assert_matches_program, compile_cached, compiled_program, mismatch_message,
                                       programs_param, run)
from pjrt_cts.testing.requirements import (FeatureProbe, create_client_under_test, create_session_client, device_index_params,
                                           environment_lacks, first_line, not_applicable, requires,
                                           unsupported_if_unimplemented)

__all__ = [
    "ADD", "PROGRAMS", "PROGRAMS_BY_NAME", "PROGRAM_NAMES", "BlockedByFailure", "CorpusUnreadable", "FeatureProbe",
    "Program", "SuiteError", "assert_matches_program", "attempt", "assert_same", "case_expected", "case_inputs",
    "compile_cached", "compiled_for_framework", "compiled_golden", "golden_case_outputs", "golden_program_param",
    "one_program_per_family", "program_of", "compiled_program", "create_client_under_test", "create_options_under_test",
    "create_session_client", "declared_unreadable_reason", "device_index_params", "environment_lacks", "expect_rejection", "first_line",
    "framework_artifact_version", "golden_param", "golden_version_param", "mismatch_message", "multi_device_cases",
    "no_device_codes", "not_applicable", "one_case_per_family", "optional_input", "output_dir",
    "plugin_path_under_test", "profile_name", "programs_param", "read_case", "requires", "run", "run_golden",
    "unsupported_if_unimplemented",
]
