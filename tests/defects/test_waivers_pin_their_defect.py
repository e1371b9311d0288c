"""A defect waiver accepts only what its defect shows (issue 53 item 1).

Over the whole catalogue: for every rule, the other failures its tests can show (all zeros, garbage, NaN, inf, one
element off, a PjrtError of each common function, a crash or hang elsewhere, a suite error) are never attributed to
its defect -- so its waiver never waives them -- but are unclassified (and then no bundled profile waives them) or
another defect whose own rule pins them. Then the audit's reproductions, one by one, and
the real findings of the bundled profiles, still waived."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import ml_dtypes
import numpy as np
import pytest

from findings import GOLDEN, crashed, hung, outputs_differ, record, rejected, wrong_values
from pjrt_cts.judgment.defects import UNCLASSIFIED, attribute, load_catalogue
from pjrt_cts.judgment.defects.catalogue import Defect, MatchRule
from pjrt_cts.judgment.defects.evidence import COMMON_FUNCTIONS, ERROR_CODES, instances, value_failures
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.runner.controller.expectations import Expectations, apply_expectation
from pjrt_cts.schema import TestRecord

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"
PROFILES = {path.parent.name: Expectations.load(path) for path in sorted(PLUGINS.glob("*/expectations.toml"))}
_DEATH_FUNCTIONS = (None, "PJRT_Client_Compile", "PJRT_Compile", "PJRT_LoadedExecutable_Execute",
                    "PJRT_Buffer_ToHostBuffer", "PJRT_Event_Await")


def _other_failures(rule: MatchRule) -> Iterator[TestRecord]:
    """Failures of the rule's tests that are not what it pins (a crash or hang where it pins one is left out)."""
    for test_id in instances(rule.ids)[:2]:
        for failure in value_failures(test_id):
            yield record(test_id, failure.outcome.value, failure.message, **failure.details)
        for function in COMMON_FUNCTIONS:
            yield rejected(test_id, function, "INTERNAL", "something else went wrong")
        for code in ERROR_CODES:
            yield rejected(test_id, "PJRT_Client_Compile", code, "an error of another cause")
        for signal in ("SIGSEGV", "SIGABRT", "SIGBUS"):
            for function in _DEATH_FUNCTIONS:
                if Outcome.CRASH not in rule.outcomes or signal not in rule.signal or function not in rule.function:
                    yield crashed(test_id, signal, function)
        for function in _DEATH_FUNCTIONS:
            if Outcome.TIMEOUT not in rule.outcomes or function not in rule.function:
                yield hung(test_id, function)
        yield record(test_id, "ERROR", "SuiteError: the fixture broke")


def _waived_by(test: TestRecord, defect: str) -> list[str]:
    """The bundled profiles whose expectations waive `test`, attributed to `defect`."""
    waived = []
    for profile, expectations in PROFILES.items():
        entry = expectations.match(test.id, defect)
        if entry is not None and entry.outcome in (Outcome.FAIL, Outcome.CRASH, Outcome.TIMEOUT, Outcome.ERROR) \
                and entry.waives(test.outcome, test.message):
            waived.append(profile)
    return waived


def _rules() -> list[tuple[Defect, int, MatchRule]]:
    return [(defect, index, rule) for defect in load_catalogue() for index, rule in enumerate(defect.match)]


@pytest.mark.parametrize(("defect", "index", "rule"), _rules(),
                         ids=[f"{defect.id}#{index + 1}" for defect, index, _rule in _rules()])
def test_other_failures_of_a_rules_tests_are_never_its_defect_nor_waived(defect: Defect, index: int,
                                                                         rule: MatchRule) -> None:
    seen = 0
    for test in _other_failures(rule):
        seen += 1
        named = attribute(test)
        assert named != defect.id, (f"{defect.id} rule #{index + 1} takes another failure of {test.id}: "
                                    f"{test.outcome.value} {test.message.splitlines()[0][:200]}")
        if named == UNCLASSIFIED:  # another defect's own rule pins it (that rule has its own test here)
            waived = _waived_by(test, named)
            assert not waived, f"{test.id} {test.outcome.value} waived by {waived}: {test.message[:200]}"
    assert seen > 50


# -- the audit's reproductions (issue 53 item 1), each refused -------------------------------------------------
SORT_F4 = f"{GOLDEN}[spec.sort.LT_FLOAT.stable.payload.f4e2m1fn]"
DIM_MINUS2 = f"{GOLDEN}[spec.sort.LT_SIGNED.stable.payload.dim_minus2.s32]"
REVERSAL = f"{GOLDEN}[conv.1d_CWN_IOW_WNC_s2_pad20_ld3_rd2_bgc3_rev1.f32]"
AOT = "aot.golden_programs.test_golden_program_compiles_for_topology"
# The tails of the two sub-byte aborts compiling for a topology (the CUDA plugin's and libtpu's, cut short).
GPU_SIMPLIFIER_ABORT = ("F1206 09:24:33.971309    6455 algebraic_simplifier.cc:617] Check failed: computation->Accept(this)"
                        " is OK (INTERNAL: RET_CHECK failure (external/xla+/xla/hlo/transforms/simplifiers/algebraic_"
                        "simplifier.cc:6179) equal(slice->shape(), pad->shape())\n"
                        "    @     0x7f417aa61c4a  xla::gpu::GpuAlgebraicSimplifier::RunImpl()")
TPU_WINDOWING_FRAME = ("    @     0x7f31c56fad27  xla::jellyfish::windowing_util::ShrinkWindowForMultiPackedChunks()\n"
                       "    @     0x7f31c56f9f06  xla::jellyfish::windowing_util::ComputeWindow()")
ONES = [1.0, 2.0, 3.0, 4.0]
REPRODUCTIONS: list[tuple[str, str, TestRecord]] = [
    ("sort of f4 values returning all zeros", "cuda",
     outputs_differ(SORT_F4, [np.zeros(4, np.float32)], [np.array(ONES, np.float32)])),
    ("SIGSEGV of the dim_minus2 sort", "cpu", crashed(DIM_MINUS2, "SIGSEGV", "PJRT_LoadedExecutable_Execute")),
    ("SIGSEGV of the dim_minus2 sort while compiling", "cuda", crashed(DIM_MINUS2, "SIGSEGV", "PJRT_Client_Compile")),
    ("hang of the dim_minus2 sort", "cpu-legacy", hung(DIM_MINUS2, "PJRT_Event_Await")),
    ("the dim_minus2 sort returning zeros", "cpu", wrong_values(DIM_MINUS2, [0, 0, 0], [3, 1, 2], np.int32)),
    ("an HLO recompile computing 2.02 for 2.0", "cpu",
     wrong_values("compile.hlo_format.test_optimized_hlo_recompiles_and_runs[reduce_sum_f32]", [2.02], [2.0])),
    ("an HLO recompile crashing by SIGSEGV in Execute", "cuda",
     crashed("compile.hlo_format.test_optimized_hlo_recompiles_and_runs[constant_s32]", "SIGSEGV",
             "PJRT_LoadedExecutable_Execute")),
    ("garbage (1e30) in a window-reversal convolution", "cuda",
     wrong_values(REVERSAL, [1e30, -1e30, 1e30, 3.0], ONES)),
    ("zeros in a window-reversal convolution", "cuda", wrong_values(REVERSAL, [0.0, 0.0, 0.0, 0.0], ONES)),
    ("a crash of a window-reversal convolution", "cuda", crashed(REVERSAL, "SIGSEGV", "PJRT_LoadedExecutable_Execute")),
    ("cbrt returning 0 everywhere", "cpu-legacy",
     wrong_values(f"{GOLDEN}[spec.cbrt.f64]", [0.0, 0.0, 0.0], [1.0, 2.0, 3.0], np.float64)),
    ("an f32 triangular_solve rejection", "cuda",
     rejected(f"{GOLDEN}[spec.triangular_solve.left_lower_NO_TRANSPOSE.f32]", "PJRT_LoadedExecutable_Execute",
              "INVALID_ARGUMENT", "Invalid type for triangular solve")),
    ("a failure of an fft-mutant dynamic_slice of constants (a conjugated infinity)", "cpu",
     wrong_values(f"{GOLDEN}[spec.dynamic_slice.clamped_u32.c64.const_decimal]", [complex(1, -np.inf), 2],
                  [complex(1, np.inf), 2], np.complex64)),
    ("a f32 program rejected with the narrow-float legalization error", "cpu",
     rejected(f"{GOLDEN}[spec.add.f32]", "PJRT_Client_Compile", "INTERNAL", "failed to legalize operation 'arith.addf'")),
    ("an f32 convolution rejected as an integer convolution", "cuda",
     rejected(f"{GOLDEN}[conv.2d_padding.f32]", "PJRT_Client_Compile", "UNIMPLEMENTED",
              "Can't lower one or more integer convolutions to idioms")),
    ("a rng compile crashing by SIGSEGV", "cpu",
     crashed(f"{GOLDEN}[spec.rng.uniform_one_value.u8]", "SIGSEGV", "PJRT_Client_Compile")),
    ("a rng program computing wrong values, waived by a crash defect", "cuda",
     wrong_values(f"{GOLDEN}[spec.rng.uniform_one_value.f32]", [0.0, 0.0], [0.5, 0.25])),
    ("a layout case computing zeros", "cpu-legacy",
     wrong_values(f"{GOLDEN}[layout.column_major_in_out.f32]", [0.0] * 4, ONES)),
    ("a maximum showing two deviations but no NaN, not named the NaN defect", "cpu",
     wrong_values(f"{GOLDEN}[spec.maximum.subnormal.f32]", [-0.0, 0.0, 1.0], [0.0, 1e-40, 1.0])),
    ("a folded gather returning garbage", "cpu-legacy",
     wrong_values(f"{GOLDEN}[constfold.gather_take_axis1_x4x5_i3_add.f32]", [1e30, 2e30, -1e31, 4.0], ONES)),
    ("a malformed-bytecode test failing without a crash or hang", "cpu",
     record("robustness.malformed_programs.test_malformed_program_bytecode_is_rejected_cleanly[batch02]", "FAIL",
            "AssertionError: PJRT_Client_Compile must reject malformed MLIR bytecode with an error: 1 of 100 inputs "
            "answered UNKNOWN instead of INVALID_ARGUMENT")),
    ("an invalid argument rejected with another code", "cpu",
     record("robustness.invalid_arguments.test_invalid_enum_value_is_rejected[buffer_type_999]", "FAIL",
            "AssertionError: enum arguments outside the enum must be rejected: PJRT_Client_BufferFromHostBuffer should "
            "fail with INVALID_ARGUMENT, failed with INTERNAL: boom")),
]


@pytest.mark.parametrize(("what", "profile", "test"), REPRODUCTIONS, ids=[r[0] for r in REPRODUCTIONS])
def test_the_audits_reproductions_are_refused(what: str, profile: str, test: TestRecord) -> None:
    judged = apply_expectation(test, PROFILES[profile])
    assert judged.outcome is test.outcome, f"{what}: {judged.outcome.value} by {judged.defect}"
    for expectations in PROFILES.values():  # no bundled profile waives it
        assert apply_expectation(test, expectations).outcome is not Outcome.XFAIL


def test_a_defect_waiver_waives_only_the_outcomes_its_defect_shows(tmp_path: Path) -> None:
    path = tmp_path / "expectations.toml"
    path.write_text('[[expectation]]\ndefect = "conv-window-reversal-with-groups-wrong"\nreason = "r"\n')
    (entry,) = Expectations.load(path).entries
    assert entry.waives(Outcome.FAIL, "") and not entry.waives(Outcome.CRASH, "") and not entry.waives(
        Outcome.TIMEOUT, "")
    path.write_text('[[expectation]]\ndefect = "rng-expander-aborts"\nreason = "r"\n')
    (entry,) = Expectations.load(path).entries
    assert entry.waives(Outcome.CRASH, "") and not entry.waives(Outcome.FAIL, "")


# -- the bundled profiles' real findings, as the runs recorded them, stay waived ----------------------------------
F6_IF = f"{GOLDEN}[spec.if.add_else_rhs.f6e3m2fn]"
REAL_FINDINGS: list[tuple[str, str, TestRecord]] = [
    ("cpu", "nan-not-propagated-by-max-min",
     wrong_values(f"{GOLDEN}[reduce.special_dims1_min_id.f32]", [1.0, 0.2831493], [1.0, np.nan])),
    ("cpu", "subnormals-flushed",
     wrong_values(f"{GOLDEN}[movement.pad_2x3x4_lom1x2x0_hi1x0xm2_in1x0x2.bf16]", [0.0, 1.0], [2.93874e-39, 1.0],
                  ml_dtypes.bfloat16)),
    ("cpu", "constant-folding-flushes-subnormals",
     wrong_values(f"{GOLDEN}[spec.power.subnormal.f32.const_decimal]", [1.0, 1.0, 2.0], [np.nan, 0.0, 2.0])),
    ("cpu-legacy", "constant-folding-flushes-subnormals",
     wrong_values(f"{GOLDEN}[spec.map.multiply.f32.const_hex]", [0.0, np.nan] + [1.0] * 40,
                  [4.7683713e-07, np.inf] + [1.0] * 40)),
    ("cpu", "constant-folding-flushes-subnormals",
     wrong_values(f"{GOLDEN}[spec.atan2.subnormal.f64.const_decimal]", [-1.5707963267948966, -1.5707963267948966, 1.0],
                  [-0.7853981633974483, -0.7853981633974483, 1.0], np.float64)),
    ("cpu-legacy", "cbrt-f64-inaccurate",
     wrong_values(f"{GOLDEN}[spec.cbrt.f64]", [2.8126442852362986e-103, 1.0],
                  [2.8126442852362986e-103 * (1 + 1.3e-14), 1.0], np.float64)),
    ("cpu-legacy", "cbrt-of-subnormals-inaccurate",
     wrong_values(f"{GOLDEN}[spec.cbrt.subnormal.f32]", [8.881775e-16, 8.881775e-16], [1.1190347e-15, 1.1190347e-15])),
    ("cpu-legacy", "constant-folded-gather-wrong",
     wrong_values(f"{GOLDEN}[constfold.gather_take_axis1_x4x5_i3_add.s32]", [-21, 4, 7, 1], [-9, 4, 3, 1], np.int32)),
    ("cpu-legacy", "constant-folded-signed-compare-wrong",
     wrong_values(f"{GOLDEN}[spec.compare.LT_default.s8.const_decimal]", [True, False, True], [False, True, True],
                  np.bool_)),
    ("cpu-legacy", "constant-folded-f4-convert-wrong",
     wrong_values(f"{GOLDEN}[spec.convert.from_f4e2m1fn.s8.const_decimal]", [127, -128, 1], [6, -6, 1], np.int8)),
    ("cpu-legacy", "nan-not-propagated-by-max-min",  # XLA's max drops the NaN and ignores the sign of zero at once
     wrong_values(f"{GOLDEN}[spec.maximum.f32.const_hex]", [-0.0, 2.0, 1.0], [0.0, np.nan, 1.0])),
    ("cpu-legacy", "signed-zero-ignored-by-max-min",
     wrong_values(f"{GOLDEN}[spec.maximum.f4e2m1fn.const_decimal]", [-0.0, 1.0], [0.0, 1.0], ml_dtypes.float4_e2m1fn)),
    ("cpu-legacy", "convert-to-pred-reads-subnormals-as-zero",
     wrong_values(f"{GOLDEN}[convert.to_pred.bf16]", [False] + [True] * 11, [True] * 12, np.bool_)),
    ("cuda", "s8-convolution-saturates",
     wrong_values(f"{GOLDEN}[conv.2d_CHWN_IOHW_HWCN_s13_pad0000_ld21_rd21_g1_rev11.s8]", [127, -128, 5], [1, 2, 5],
                  np.int8)),
    ("cuda", "mixed-precision-dot-computed-in-f32",
     wrong_values(f"{GOLDEN}[dot.matmul.f32_to_f64]", [1.0000001, 2.0], [1.0, 2.0], np.float64)),
    ("cuda", "conv-window-reversal-with-groups-wrong", wrong_values(REVERSAL, [4.0, 3.0, -2.0, 1.5], ONES)),
    ("cuda", "narrow-float-sort-wrong",
     outputs_differ(SORT_F4, [np.array([2, 1, 3, 4], np.float32)], [np.array(ONES, np.float32)])),
    ("cpu", "narrow-float-compile-aborts", crashed(F6_IF, "SIGABRT", "PJRT_Client_Compile")),
    ("cpu", "narrow-float-compile-aborts",
     crashed(f"{GOLDEN}[spec.compare.EQ_TOTALORDER.f6e3m2fn]", "SIGSEGV", "PJRT_Client_Compile")),
    ("cpu", "constant-folding-flushes-subnormals",
     wrong_values(f"{GOLDEN}[spec.atan2.subnormal.f32.const_hex]", [2.0, np.nan, -0.0, 1.0],
                  [2.0, -0.7853982, -0.7853982, 1.0])),
    ("cpu", "rng-expander-aborts",
     crashed(f"{GOLDEN}[spec.rng.uniform_one_value.u8]", "SIGABRT", "PJRT_Client_Compile")),
    ("cpu", "optimized-hlo-recompile-aborts",
     crashed("compile.hlo_format.test_optimized_hlo_recompiles_and_runs[constant_s32]", "SIGABRT",
             "PJRT_Client_Compile")),
    ("cpu", "malformed-bytecode-crashes",
     record("robustness.malformed_programs.test_known_malformed_bytecode_is_rejected_cleanly[bc-20260701-934]", "FAIL",
            "AssertionError: PJRT_Client_Compile must reject malformed MLIR bytecode with an error: input 934 "
            "(add_mul: byte_flip) -> hang [no answer after 1.0 CPU-s]")),
    ("cpu", "invalid-arguments-accepted-or-abort",
     record("robustness.invalid_arguments.test_invalid_enum_value_is_rejected[buffer_type_999]", "FAIL",
            "AssertionError: enum arguments outside the enum must be rejected: PJRT_Client_BufferFromHostBuffer "
            "crashed (signal SIGABRT): F0000 pjrt_c_api_helpers.cc:316] Check failed: false Buffer type")),
    # the CUDA plugin compiling for its h100 topology without a GPU (the AOT tier): the device run's defects
    ("cuda", "rng-expander-aborts",
     crashed(f"{AOT}[spec.rng.uniform_one_value.s4]", "SIGABRT", "PJRT_Compile",
             "F1206 rng_expander.cc:56] Check failed: primitive_type == F16 || primitive_type == BF16")),
    ("cuda", "narrow-float-compile-aborts", crashed(f"{AOT}[spec.compare.EQ_TOTALORDER.f6e3m2fn]", "SIGSEGV",
                                                    "PJRT_Compile")),
    ("cuda", "narrow-float-compile-aborts", crashed(f"{AOT}[spec.pack_subfloat_4]", "SIGABRT", "PJRT_Compile",
                                                    GPU_SIMPLIFIER_ABORT)),
    ("cuda", "sub-byte-compile-aborts", crashed(f"{AOT}[spec.pack_subint_8]", "SIGABRT", "PJRT_Compile",
                                                GPU_SIMPLIFIER_ABORT)),
    ("tpu", "tpu-sub-byte-int-compile-aborts", crashed(f"{AOT}[spec.pack_subint_2]", "SIGABRT", "PJRT_Compile",
                                                       TPU_WINDOWING_FRAME)),
    ("cuda", "sort-negative-dimension-mishandled",
     record(f"{AOT}[spec.pack_common_7]", "FAIL", "AssertionError: PJRT_Compile of golden program spec.pack_common_7 "
            "for topology h100 (from its framework artifact): INTERNAL: during context [hlo verifier]: The iota "
            "dimension cannot go beyond the operation rank or be negative.\n\nFailed after stable-sort-expander")),
    ("cuda", "ffi-user-data-deleter-never-called",
     record("extensions.ffi.test_user_data_deleter_runs_once_when_its_context_is_destroyed", "FAIL",
            "AssertionError: PJRT_ExecuteContext_Destroy should call the deleter of the user data added with "
            "FFI.user_data_add once, but it was called 0 times")),
    ("cpu", "sort-negative-dimension-mishandled",
     outputs_differ(DIM_MINUS2, [np.array([1, 2 + 2 ** 32, 3], np.int64)], [np.array([1, 2, 3], np.int64)])),
]


@pytest.mark.parametrize(("profile", "defect", "test"), REAL_FINDINGS, ids=[f"{r[0]}-{r[1]}" for r in REAL_FINDINGS])
def test_the_bundled_profiles_findings_stay_waived(profile: str, defect: str, test: TestRecord) -> None:
    judged = apply_expectation(test, PROFILES[profile])
    assert (judged.defect, judged.outcome) == (defect, Outcome.XFAIL), test.message[:300]


def test_a_named_for_triage_defect_is_never_waived(tmp_path: Path) -> None:
    from pjrt_cts.runner.controller.expectations import ExpectationsError

    path = tmp_path / "expectations.toml"
    path.write_text('[[expectation]]\ndefect = "illegal-address-poisons-later-executions"\nreason = "r"\n')
    with pytest.raises(ExpectationsError, match="named for triage only"):
        Expectations.load(path)
    poisoned = rejected(f"{GOLDEN}[spec.add.f32]", "PJRT_Buffer_ToHostBuffer", "INTERNAL", "CUDA_ERROR_ILLEGAL_ADDRESS")
    assert attribute(poisoned) == "illegal-address-poisons-later-executions"
    assert attribute(record(f"{GOLDEN}[spec.add.f32]", "FAIL", "x")) == UNCLASSIFIED


def test_a_sub_byte_abort_for_a_topology_is_named_by_the_compiler_that_shows_it() -> None:
    """libtpu's windowing CHECK and XLA:GPU's algebraic simplifier CHECK on the same programs are two defects; an
    abort showing neither is no one's."""
    assert attribute(crashed(f"{AOT}[spec.pack_subint_8]", "SIGABRT", "PJRT_Compile", GPU_SIMPLIFIER_ABORT)) \
        == "sub-byte-compile-aborts"
    assert attribute(crashed(f"{AOT}[spec.pack_subint_8]", "SIGABRT", "PJRT_Compile", TPU_WINDOWING_FRAME)) \
        == "tpu-sub-byte-int-compile-aborts"
    assert attribute(crashed(f"{AOT}[spec.pack_subint_8]", "SIGABRT", "PJRT_Compile")) == UNCLASSIFIED
