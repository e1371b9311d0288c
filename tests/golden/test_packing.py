"""Packing the corpus into programs (packing.plan_packs) and constant-operand programs (spec.constants)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.golden import load_manifest
from pjrt_cts.golden.generator.packing import MAX_CASES, packable, plan_packs, type_class
from pjrt_cts.golden.spec import constants
from pjrt_cts.golden.spec.mlir import single_op_module
from pjrt_cts.golden.spec.registry import TensorType


def _entry(case_id: str, dtypes: list[str], **extra: object) -> dict:
    entry = {"id": case_id, "family": case_id.split(".")[0], "dtypes": dtypes, "num_replicas": 1,
             "num_partitions": 1, "donation": None, "layouts": None, "large": None, "features": []}
    entry.update(extra)
    return entry


def test_type_classes_follow_how_rarely_plugins_support_a_type() -> None:
    assert type_class(["f32", "s32"]) == "common"
    assert type_class(["f32", "f64"]) == "wide"
    assert type_class(["c64", "f64"]) == "complex"
    assert type_class(["f8e4m3fn", "f32"]) == "fp8"
    assert type_class(["f4e2m1fn", "f8e5m2"]) == "subfloat"
    assert type_class(["s4", "f6e3m2fn"]) == "subint"


def test_plan_packs_by_family_and_class_in_id_order_within_bounds() -> None:
    entries = [_entry(f"dot.case{i:03d}.f32", ["f32"]) for i in range(MAX_CASES + 3)]
    entries += [_entry("dot.wide.f64", ["f64"]), _entry("dot.wide2.s64", ["s64"]), _entry("dot.lonely.c64", ["c64"])]
    entries += [_entry("conv.c{}.f32".format(i), ["f32"]) for i in range(40)]
    plan = dict(plan_packs(list(reversed(entries))))
    assert plan["dot.pack_common_0"] == [f"dot.case{i:03d}.f32" for i in range(MAX_CASES)]
    assert plan["dot.pack_common_1"] == [f"dot.case{i:03d}.f32" for i in range(MAX_CASES, MAX_CASES + 3)]
    assert plan["dot.pack_wide_0"] == ["dot.wide.f64", "dot.wide2.s64"]
    assert not any(pack.startswith("dot.pack_complex") for pack in plan)  # a pack of one is no pack
    assert [len(plan[p]) for p in plan if p.startswith("conv.")] == [32, 8]  # a convolution weighs 4


def test_mandatory_cases_come_first_in_their_packs() -> None:
    """Core's golden selection (core op families in f32) first, then the rest, each in id order: the mandatory cases
    fill as few packs as they can."""
    entries = [_entry(f"dot.a{i:03d}.s32", ["s32"]) for i in range(MAX_CASES)]
    entries += [_entry("dot.z.f32", ["f32"]), _entry("dot.y.f32", ["f32"]), _entry("spec.add.f32", ["f32"]),
                _entry("spec.mul.s32", ["s32"])]
    plan = dict(plan_packs(entries))
    assert plan["dot.pack_common_0"][:3] == ["dot.y.f32", "dot.z.f32", "dot.a000.s32"]
    assert plan["dot.pack_common_1"] == ["dot.a126.s32", "dot.a127.s32"]
    assert plan["spec.pack_common_0"] == ["spec.add.f32", "spec.mul.s32"]  # spec is no core op family: id order


def test_what_is_never_packed() -> None:
    assert not packable(_entry("spmd.x.f32", ["f32"], num_partitions=2))
    assert not packable(_entry("dot.d.f32", ["f32"], donation={"kinds": ["tf.aliasing_output"]}))
    assert not packable(_entry("layout.l.f32", ["f32"]))
    assert not packable(_entry("spec.x.f32", ["f32"], spec_vs_xla={"kind": "compile_error"}))
    assert packable(_entry("spec.x.f32", ["f32"], spec_vs_xla={"kind": "wrong_result"}))
    excluded = plan_packs([_entry("dot.a.f32", ["f32"]), _entry("dot.b.f32", ["f32"]), _entry("dot.c.f32", ["f32"])],
                          excluded=["dot.b.f32"])
    assert excluded == [("dot.pack_common_0", ["dot.a.f32", "dot.c.f32"])]


def test_constant_variants_pack_apart() -> None:
    plan = plan_packs([_entry("spec.add.f32", ["f32"]), _entry("spec.mul.f32", ["f32"]),
                       _entry("spec.add.f32.const_hex", ["f32"], features=["constant_operands"]),
                       _entry("spec.mul.f32.const_decimal", ["f32"], features=["constant_operands"])])
    assert dict(plan) == {"spec.pack_common_0": ["spec.add.f32", "spec.mul.f32"],
                          "spec.pack_const_common_0": ["spec.add.f32.const_hex", "spec.mul.f32.const_decimal"]}


def test_shipped_corpus_is_packed_as_planned() -> None:
    manifest = load_manifest()
    packs = {program.id: [case.id for case in program.cases] for program in manifest.programs if program.grouped}
    entries = [case.raw for case in manifest.cases]
    left = {case.id for case in manifest.cases if packable(case.raw) and case.program_id is None}
    assert dict(plan_packs(entries, excluded=left)) == packs
    single_device = [p for p in manifest.programs if not p.is_multi_device]
    assert sum(p.grouped for p in single_device) <= 250


@pytest.mark.parametrize("dtype,values", [
    ("pred", [True, False, True]), ("s8", [-128, 0, 127]), ("u64", [0, 2**64 - 1, 5]),
    ("f32", [0.0, -0.0, 1e-45, 3.4028234663852886e38, float("inf"), float("nan"), 0.1]),
    ("bf16", [1.5, -2.0, float("-inf")]), ("f8e4m3fn", [448.0, -0.015625, float("nan")]),
    ("c64", [complex(1.5, -0.0), complex(float("inf"), 2.0)]),
])
def test_dense_literals_spell_every_value(dtype: str, values: list) -> None:
    from pjrt_cts.golden.spec.types import np_dtype

    array = np.array(values, dtype=object).astype(np_dtype(dtype)) if dtype in ("s8", "u64") else \
        np.array(values).astype(np_dtype(dtype))
    decimal = constants.dense_literal(array, dtype, "decimal")
    assert decimal.startswith("dense<[") and decimal.endswith("]>")
    if dtype in ("f32", "bf16", "f8e4m3fn"):
        assert "0x" in decimal  # infinities and NaN as bit patterns
    if dtype in ("f32", "bf16", "f8e4m3fn"):  # an MLIR float literal needs a point; specials are bit patterns
        assert all("." in part or part.startswith("0x") for part in decimal[7:-2].split(", "))
    if constants.hex_allowed(dtype):
        hex_text = constants.dense_literal(array, dtype, "hex")
        assert bytes.fromhex(hex_text[len('dense<"0x'):-2]) == array.tobytes()


def test_hex_form_only_for_whole_byte_types() -> None:
    assert constants.hex_allowed("s8") and constants.hex_allowed("f64") and constants.hex_allowed("c128")
    assert not constants.hex_allowed("pred") and not constants.hex_allowed("s4")
    assert not constants.hex_allowed("f4e2m1fn")
    with pytest.raises(ValueError):
        constants.dense_literal(np.zeros(2, ml_dtypes.int4), "s4", "hex")


def test_program_with_constant_operands() -> None:
    x = np.array([True, False, True, True])
    y = np.array([True, True, False, True])
    text = single_op_module("add", [TensorType((4,), "pred")] * 2, [TensorType((4,), "pred")])
    folded = constants.with_constant_operands(text, [x, y], ["pred", "pred"], "decimal")
    assert "func.func public @main() -> (tensor<4xi1>) {" in folded
    assert "%arg0 = stablehlo.constant dense<[true, false, true, true]> : tensor<4xi1>" in folded
    assert "%arg1 = stablehlo.constant dense<[true, true, false, true]> : tensor<4xi1>" in folded
    assert folded.endswith(text[text.index('    %0 = "stablehlo.add"'):])
    with pytest.raises(ValueError):
        constants.with_constant_operands(text, [x], ["pred"], "decimal")


def test_shipped_constant_variants_hold_their_argument_forms_operands() -> None:
    from pjrt_cts.golden.check import constant_operands_missing

    manifest = load_manifest()
    variants = [case for case in manifest.cases if (case.spec or {}).get("operands_of")]
    assert len(variants) >= 2500
    assert {case.spec["constant_operands"] for case in variants} == {"decimal", "hex"}
    for case in variants[::97]:
        original = manifest.case(case.spec["operands_of"])
        assert case.inputs() == []
        assert [a.tobytes() for a in case.expected()] == [a.tobytes() for a in original.expected()]
        assert constant_operands_missing(case, original.inputs()) == []
    add = manifest.case("spec.add.pred.const_decimal")
    assert (add.spec_vs_xla or {}).get("kind") == "wrong_result"  # XLA's constant folder: the i1 add is wrong
