from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.schema import TestRecord
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.report.coverage import build_matrix, case_id_of, op_dtype_of, parse_case_id


def records_of(data: Any) -> list[TestRecord]:
    """Typed records from a results.json object (its `tests`) or a list of record objects."""
    tests = data["tests"] if isinstance(data, dict) else data
    return [TestRecord.from_json(test) for test in tests]


@pytest.mark.parametrize(
    "case_id, expected",
    [
        ("elementwise.add.f32.r2", ("add", "f32")),
        ("reduce.reduce_sum.bf16.r3", ("reduce_sum", "bf16")),
        ("linalg.dot_general.s8.batch", ("dot_general", "s8")),
        ("convert.f32", ("convert", "f32")),
        ("no.dtype.here", (None, None)),
    ],
)
def test_parse_case_id(case_id: str, expected: tuple) -> None:
    assert parse_case_id(case_id) == expected


def test_case_id_from_details_or_test_parameter() -> None:
    assert case_id_of(TestRecord.from_json({"id": "x[a.b.f32.r1]", "details": {"case_id": "fam.mul.f64.r0"}})) == "fam.mul.f64.r0"
    assert case_id_of(TestRecord.from_json({"id": "execute.golden.test_case[elementwise.add.f32.r2]"})) == "elementwise.add.f32.r2"
    assert case_id_of(TestRecord.from_json({"id": "execute.misc.test_thing[3]"})) is None


def test_op_and_dtype_sources_in_order_of_preference() -> None:
    from_details = {"id": "t[elementwise.add.f32.r2]", "details": {"op": "stablehlo.multiply", "dtype": "f16"}}
    assert op_dtype_of(TestRecord.from_json(from_details), {}) == (["multiply"], "f16")
    several = {"id": "t[elementwise.add.f32.r2]", "details": {"op": "stablehlo.add,stablehlo.constant"}}
    assert op_dtype_of(TestRecord.from_json(several), {}) == (["add"], "f32")
    several_no_case = {"id": "execute.x.test_y", "details": {"op": "stablehlo.add,stablehlo.constant", "dtype": "f32"}}
    assert op_dtype_of(TestRecord.from_json(several_no_case), {}) == (["add", "constant"], "f32")
    from_tags = {"id": "execute.x.test_y", "tags": ["op:stablehlo.tanh", "dtype:bf16"]}
    assert op_dtype_of(TestRecord.from_json(from_tags), {}) == (["tanh"], "bf16")
    manifest = {"fam.case1.v": {"ops": ["stablehlo.add", "stablehlo.multiply"], "dtypes": ["s32", "s64"]}}
    from_manifest = {"id": "execute.golden.t[fam.case1.v]"}
    assert op_dtype_of(TestRecord.from_json(from_manifest), manifest) == (["add", "multiply"], "s32")
    # a case id that names its op and dtype wins over the manifest's program-wide lists
    manifest["elementwise.add.f32.r2"] = {"ops": ["stablehlo.add", "stablehlo.constant"], "dtypes": ["f32", "pred"]}
    assert op_dtype_of(TestRecord.from_json({"id": "execute.golden.t[elementwise.add.f32.r2]"}), manifest) == (["add"], "f32")
    from_id = {"id": "execute.golden.t[elementwise.subtract.u8.r1]"}
    assert op_dtype_of(TestRecord.from_json(from_id), {}) == (["subtract"], "u8")


def test_matrix_of_synthetic_run(synthetic) -> None:
    matrix = build_matrix(records_of(synthetic))
    execute_ids = [t["id"] for t in synthetic["tests"] if t["layer"] == "execute"]
    assert sum(len(cell.cases) for cell in matrix.cells.values()) == len(execute_ids)
    assert not matrix.unmapped
    tanh = matrix.cell("tanh", "bf16")
    assert tanh is not None and tanh.outcome is Outcome.FAIL
    assert tanh.counts == {Outcome.PASS: 1, Outcome.FAIL: 1}
    assert tanh.first_problem.case_id == "elementwise.tanh.bf16.r2"
    assert matrix.cell("case", "f64").outcome is Outcome.TIMEOUT
    assert matrix.cell("tanh", "s32") is None  # no such case
    assert matrix.dtypes.index("bf16") < matrix.dtypes.index("f32") < matrix.dtypes.index("f64")


def test_manifest_adds_cases_that_did_not_run(synthetic) -> None:
    manifest = {"elementwise.atan2.f32.r2": {"op": "stablehlo.atan2", "dtype": "f32"}}
    matrix = build_matrix(records_of(synthetic), manifest)
    assert ("atan2", "f32") in matrix.not_run
    assert "atan2" in matrix.ops


def test_tests_without_op_are_listed_as_unmapped() -> None:
    results = {"tests": [{"id": "execute.misc.test_scalar_output", "layer": "execute", "outcome": "PASS"}]}
    matrix = build_matrix(records_of(results))
    assert matrix.unmapped == ["execute.misc.test_scalar_output"] and not matrix.cells


def test_attribute_cases_count_under_their_op_and_feed_the_attribute_table() -> None:
    from pjrt_cts.report.coverage import build_attribute_coverage

    manifest = {
        "gather.ivd1_offset0.f32": {"op": "stablehlo.gather", "attributes": {"index_vector_dim": 1, "mode": "clip"},
                                    "ops": ["stablehlo.gather", "stablehlo.constant"], "dtypes": ["f32"]},
        "gather.ivd0_offset1.f32": {"op": "stablehlo.gather", "attributes": {"index_vector_dim": 0, "mode": "clip"},
                                    "ops": ["stablehlo.gather"], "dtypes": ["f32"]},
        "gather.ivd2_offset1.f32": {"op": "stablehlo.gather", "attributes": {"index_vector_dim": 2},
                                    "ops": ["stablehlo.gather"], "dtypes": ["f32"]},
    }
    test = {"id": "execute.golden_cases.test_case_matches_reference[gather.ivd1_offset0.f32]", "outcome": "PASS",
            "layer": "execute", "details": {"op": "stablehlo.gather,stablehlo.constant"}}
    failing = {"id": "execute.golden_cases.test_case_matches_reference[gather.ivd0_offset1.f32]", "outcome": "FAIL",
               "layer": "execute"}
    assert op_dtype_of(TestRecord.from_json(test), manifest) == (["gather"], "f32")  # not "ivd1_offset0" from the id
    rows = {(row.op, row.attribute): row for row in build_attribute_coverage(records_of({"tests": [test, failing]}), manifest)}
    ivd = rows[("gather", "index_vector_dim")]
    assert (len(ivd.values), len(ivd.passed_values), ivd.outcome) == (3, 1, Outcome.FAIL)
    assert len(rows[("gather", "mode")].values) == 1 and len(rows[("gather", "mode")].cases) == 2
