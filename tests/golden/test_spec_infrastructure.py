"""The spec reference's shared parts: correct rounding into narrow floats, integer wrap-around, the XLA
child's crash handling, and the per-op source table (issue 18). numpy only: no JAX needed."""
from __future__ import annotations

from pjrt_cts.golden.corpus import read_manifest_json, write_manifest_json

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.golden.generator.xla_child import XlaOracle
from pjrt_cts.golden.listing import source_of_op
from pjrt_cts.golden.spec.numeric import UndefinedResult, round_to, wrap
from pjrt_cts.report.coverage import expected_sources


def bits(array: np.ndarray) -> list[int]:
    return [int(b) for b in np.asarray(array).view(np.uint8 if array.dtype.itemsize == 1 else np.uint16).ravel()]


def test_round_to_rounds_float64_once():
    # 1 + 2^-8 + 2^-30 lies above the bf16 midpoint 1 + 2^-8: round to nearest gives 1 + 2^-7. Rounded through
    # float32 first (what ml_dtypes before 0.7 did), the 2^-30 is lost and the tie goes to the even 1.0; round_to
    # must not depend on which ml_dtypes is installed, so only its own answer is asserted.
    assert float(round_to(1 + 2 ** -8 + 2 ** -30, "bf16")) == 1 + 2 ** -7
    assert float(round_to(1 + 2 ** -4 + 2 ** -30, "f8e4m3fn")) == 1.125
    assert float(round_to(1 + 2 ** -4 - 2 ** -30, "f8e4m3fn")) == 1.0  # just below the midpoint: down


def test_round_to_breaks_ties_to_even():
    assert float(round_to(1 + 2 ** -8, "bf16")) == 1.0  # tie: 1.0 has the even significand
    assert float(round_to(1 + 3 * 2 ** -8, "bf16")) == 1 + 2 ** -6
    assert [float(v) for v in round_to([1.25, 1.75, 5.0], "f4e2m1fn")] == [1.0, 2.0, 4.0]


def test_round_to_overflow_follows_each_format():
    assert np.isposinf(round_to(57344 + 4096, "f8e5m2"))  # the midpoint past the largest finite: infinity
    assert float(round_to(57344 + 4095, "f8e5m2")) == 57344
    # f8E4M3FN's largest finite 448 has an even significand (1.110b): the midpoint 464 rounds down to it
    assert float(round_to(464, "f8e4m3fn")) == 448
    with pytest.raises(UndefinedResult):  # past it: no infinity, and saturating vs NaN is the implementation's
        round_to(465, "f8e4m3fn")
    with pytest.raises(UndefinedResult):
        round_to(7.0, "f4e2m1fn")  # f4E2M1FN's largest is 6 (odd significand): the midpoint 7 overflows


def test_round_to_signed_zero_and_nan_per_format():
    assert np.signbit(round_to(-0.0, "bf16"))
    assert not np.signbit(round_to(-1e-30, "f8e4m3fnuz").astype(np.float32))  # fnuz has no -0
    assert np.isnan(round_to(float("nan"), "f8e4m3fn"))
    with pytest.raises(UndefinedResult):
        round_to(float("nan"), "f4e2m1fn")  # no NaN in the format


def test_round_to_f16_agrees_with_numpy_correct_rounding():
    values = np.random.default_rng(7).standard_normal(2000) * 1e3
    assert bits(round_to(values, "f16")) == bits(values.astype(np.float16))


def test_wrap_is_twos_complement_modulo_the_width():
    assert wrap(np.array([8, -9, 7], dtype=object), "s4").tolist() == [-8, 7, 7]
    assert wrap(np.array([2 ** 64, 2 ** 64 + 5, -1], dtype=object), "u64").tolist() == [0, 5, 2 ** 64 - 1]
    assert wrap(np.array([4, 5], dtype=object), "u2").tolist() == [0, 1]


def _oracle_with_child(source: str) -> XlaOracle:
    return XlaOracle(command=[sys.executable, "-c", source], answer_timeout_s=3.0)


def test_xla_child_that_aborts_is_reported_as_abort_and_replaced():
    with _oracle_with_child("import os, sys; sys.stdin.readline(); os.abort()") as oracle:
        first = oracle.run("module {}", [np.zeros(2, np.float32)])
        second = oracle.run("module {}", [np.zeros(2, np.float32)])
    assert first.status == "abort" and "SIGABRT" in first.message
    assert second.status == "abort"  # a fresh child answered (and aborted) again


def test_xla_child_that_does_not_answer_is_reported_as_hang():
    with _oracle_with_child("import sys, time; sys.stdin.readline(); time.sleep(60)") as oracle:
        outcome = oracle.run("module {}", [np.zeros(2, np.float32)])
    assert outcome.status == "hang"


def test_xla_child_errors_are_passed_on():
    script = "import sys; sys.stdin.readline(); print('{\"status\": \"compile_error\", \"message\": \"UNIMPLEMENTED: x\"}', flush=True); sys.stdin.readline()"
    with _oracle_with_child(script) as oracle:
        outcome = oracle.run("module {}", [np.zeros(2, np.float32)])
    assert (outcome.status, outcome.message) == ("compile_error", "UNIMPLEMENTED: x")


def test_source_of_op_names_every_source_used():
    assert source_of_op(3, 0, 0) == "spec+xla"  # spec cases XLA agrees with: both sources give the values
    assert source_of_op(0, 2, 0) == "spec"
    assert source_of_op(0, 0, 5) == "xla"
    assert source_of_op(0, 1, 4) == "spec+xla"


def test_report_expected_sources_per_op():
    manifest = {
        "spec.add.s32": {"op": "stablehlo.add", "attributes": {}, "ops": ["stablehlo.add"], "dtypes": ["s32"],
                         "expected_source": "spec+xla"},
        "spec.shift_left.s8": {"op": "stablehlo.shift_left", "attributes": {}, "ops": ["stablehlo.shift_left"],
                               "dtypes": ["s8"], "expected_source": "spec"},
        "elementwise.sine.f32.r2": {"ops": ["stablehlo.sine"], "dtypes": ["f32"]},
        "elementwise.add.f32.r2": {"ops": ["stablehlo.add"], "dtypes": ["f32"]},
    }
    assert expected_sources(manifest) == {"add": "spec+xla", "shift_left": "spec", "sine": "xla"}


def test_golden_check_recomputes_spec_cases_and_catches_a_changed_value():
    import dataclasses

    from pjrt_cts.golden import load_manifest
    from pjrt_cts.golden.check import check_spec_reference

    manifest = load_manifest()
    case = manifest.by_id()["spec.add.s32"]
    assert case.spec is not None and case.spec["exact"] and case.expected_source == "spec+xla"
    assert check_spec_reference(case) == []  # the stored outputs are the reference's, bit for bit
    stored = case.expected_rows()[0][0].copy()
    stored.flat[0] += 1

    class Tampered(type(case)):  # the same case whose stored output differs in one element
        def expected_rows(self):
            return [[stored]]

    tampered = Tampered(**{f.name: getattr(case, f.name) for f in dataclasses.fields(case)})
    assert check_spec_reference(tampered) == ["spec.add.s32: output 0 differs from the spec reference bit for bit"]


def test_spec_family_covers_the_spec_op_list_and_records_xla_deviations():
    from pjrt_cts.golden import load_manifest

    cases = [case for case in load_manifest().cases if case.spec is not None]
    ops = {case.spec["op"] for case in cases}
    # every op of the spec's op list but those with no spec-defined value on one process (golden/README.md)
    no_case = {"custom_call", "infeed", "outfeed", "send", "recv", "rng_bit_generator"}
    assert {"add", "dot_general", "convolution", "scatter", "while", "uniform_quantize", "dynamic_conv"} <= ops
    assert not ops & no_case
    for case in cases:
        assert case.expected_source in ("spec", "spec+xla")
        assert (case.expected_source == "spec") == (case.spec_vs_xla is not None), case.id
        if case.spec_vs_xla:
            assert case.spec_vs_xla["kind"] in ("wrong_result", "compile_error", "runtime_error", "abort", "hang")
            assert case.spec_vs_xla["explanation"] and case.spec_vs_xla["section"].startswith("https://")


def test_xla_outputs_are_stored_for_every_wrong_result_and_only_there() -> None:
    """A plugin returning XLA's value where XLA deviates from the spec shares the deviation: the corpus keeps
    XLA's outputs beside the spec's, as XLA returned them (issue 27)."""
    from pjrt_cts.golden import load_manifest
    from pjrt_cts.golden.compare import compare
    from pjrt_cts.testing.corpus import case_xla_expected

    cases = [case for case in load_manifest().cases if case.spec is not None]
    wrong = [case for case in cases if (case.spec_vs_xla or {}).get("kind") == "wrong_result"]
    assert wrong
    for case in wrong:
        xla = case_xla_expected(case)
        assert xla is not None and len(xla) == case.spec_vs_xla["xla_outputs"], case.id
        index = case.spec_vs_xla.get("output", 0)
        assert compare(xla[index], case.expected()[index], case.tolerance) is not None, case.id
    assert all(case.xla_expected() is None for case in cases if case not in wrong)
    # XLA's result type is kept where it differs from the declared one (an all_reduce whose body is wider)
    narrowed = load_manifest().case("spec.all_reduce.cross_replica_to_f32.bf16")
    (xla,), (spec,) = narrowed.xla_expected(), narrowed.expected()
    assert xla.dtype == ml_dtypes.bfloat16 and spec.dtype == np.float32 and xla.shape == spec.shape
    with pytest.raises(ValueError):
        xla[...] = 0  # shared between callers: read-only


def _corpus_of(case_id: str) -> tuple[dict, dict[str, bytes]]:
    """The shipped manifest's `case_id` alone (its own program) and its files."""

    from pjrt_cts.golden import load_manifest
    from pjrt_cts.golden.archive import read_all

    shipped = load_manifest()
    data = read_manifest_json(shipped.root)
    entry = next(entry for entry in data["cases"] if entry["id"] == case_id)
    entry.pop("program", None)
    data["cases"], data["programs"] = [entry], []
    return data, read_all(shipped.root, [file["path"] for file in entry["files"].values()])


def _write_corpus(root: Path, data: dict, files: dict[str, bytes]) -> Path:
    """A corpus in a folder of its own: cached reads of an earlier corpus's data files do not apply to it."""
    import json

    from pjrt_cts.golden.archive import write_archives

    root.mkdir()
    write_manifest_json(root, json.dumps(data))
    write_archives(root, files)
    return root


def test_golden_check_reports_xla_outputs_that_are_the_spec_values_or_missing(tmp_path: Path) -> None:
    import hashlib

    from pjrt_cts.golden.check import check_corpus
    from pjrt_cts.golden.npzio import load_npz_bytes, npz_bytes

    data, files = _corpus_of("spec.maximum.f32")
    entry = data["cases"][0]
    assert entry["spec_vs_xla"]["kind"] == "wrong_result"
    assert check_corpus(_write_corpus(tmp_path / "shipped", data, files))[1] == []
    path = entry["files"]["data"]["path"]
    arrays = load_npz_bytes(files[path])
    for name in list(arrays):
        if name.startswith("xla."):
            arrays[name] = arrays[name.replace("xla.", "out.", 1)]  # XLA's "deviation" is the spec's value
    files[path] = npz_bytes(arrays)
    entry["files"]["data"]["sha256"] = hashlib.sha256(files[path]).hexdigest()
    assert check_corpus(_write_corpus(tmp_path / "same", data, files))[1] == [
        "spec.maximum.f32: XLA's stored output 0 equals the spec's within exact: not a wrong_result"]
    del entry["spec_vs_xla"]["xla_outputs"], entry["spec_vs_xla"]["xla_dtypes"]
    files[path] = npz_bytes({name: array for name, array in arrays.items() if not name.startswith("xla.")})
    entry["files"]["data"]["sha256"] = hashlib.sha256(files[path]).hexdigest()
    assert check_corpus(_write_corpus(tmp_path / "missing", data, files))[1] == [
        "spec.maximum.f32: XLA computes another value (wrong_result) but its outputs are not stored"]
