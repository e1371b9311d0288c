"""The mid-size programs (pjrt_cts.testing.mid_sizes): ids, sizes, exact data, and their place in the Core contract
and the selftest (no plugin is loaded)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from pjrt_cts.judgment.levels import CORE, CORE_MID_SIZES
from pjrt_cts.proxy.catalogue import DEFECTS_BY_NAME
from pjrt_cts.testing.mid_sizes import MID_SIZE_NAMES, MID_SIZE_PROGRAMS

TEST = "execute.mid_sizes.test_mid_size_matches_numpy"
# What the proxy's mid_size_dot_reduce_off edits: a program whose largest argument has 1 Ki <= n < 16 Mi elements.
MUTANT_RANGE = (1024, 16 * 1024 * 1024)
FAMILIES = ("dot_general", "reduce", "convolution", "gather", "scatter", "transpose", "sort", "reduce_window")


def test_ids_name_op_form_shape_and_dtype() -> None:
    assert len(set(MID_SIZE_NAMES)) == len(MID_SIZE_NAMES)
    for name in MID_SIZE_NAMES:
        assert re.fullmatch(r"[a-z_]+\.[a-z0-9_]+\.[0-9x_]+\.f32", name), name
    assert {name.split(".")[0] for name in MID_SIZE_NAMES} == set(FAMILIES)


@pytest.mark.parametrize("program", MID_SIZE_PROGRAMS, ids=MID_SIZE_NAMES)
def test_program_uses_its_op_past_one_tile(program) -> None:
    op = program.name.split(".")[0]
    assert re.search(rf"stablehlo\.{op}\b(?![_.])", program.text), program.name
    largest = max(array.size for array in program.inputs())
    assert 1024 <= largest <= 1024 * 1024, (program.name, largest)


@pytest.mark.parametrize("program", [p for p in MID_SIZE_PROGRAMS if p.op_class in ("matmul", "reduction")],
                         ids=lambda p: p.name)
def test_arithmetic_data_makes_every_result_exact(program) -> None:
    """Small integers: every result (and so every partial sum of any order, all bounded by S) is an integer below
    2**24, exact in f32; the float64 reference is the exact answer."""
    inputs = program.inputs()
    for array in inputs:
        if array.dtype == np.float32:
            assert np.array_equal(array, np.round(array)) and np.abs(array).max() <= 8
    scale = program.atol_scale(*inputs)
    assert scale < 2**24, (program.name, scale)
    for out in program.expected(inputs):
        assert np.array_equal(out, np.round(out)), program.name


def test_core_requires_mid_size_dot_general_reduce_and_convolution() -> None:
    assert set(CORE_MID_SIZES) <= set(MID_SIZE_NAMES)
    families = {name.split(".")[0] for name in CORE_MID_SIZES}
    assert {"dot_general", "reduce", "convolution"} <= families
    mandatory = set(CORE.mandatory_ids())
    assert {f"{TEST}[{name}]" for name in CORE_MID_SIZES} <= mandatory  # frozen in pjrt_cts/judgment/mustpass/core.txt
    assert {f"{TEST}[{name}]" for name in MID_SIZE_NAMES if name not in CORE_MID_SIZES}.isdisjoint(mandatory)


def test_the_mid_size_mutant_is_caught_by_mandatory_tests_it_edits() -> None:
    defect = DEFECTS_BY_NAME["mid_size_dot_reduce_off"]
    assert defect.breaks == "Core" and defect.layers == ("execute",)
    by_name = {program.name: program for program in MID_SIZE_PROGRAMS}
    mandatory = set(CORE.mandatory_ids())
    names = [catcher[len(TEST) + 1:-1] for catcher in defect.catchers]
    assert {name.split(".")[0] for name in names} == {"dot_general", "reduce"}
    for catcher, name in zip(defect.catchers, names):
        assert catcher in mandatory
        largest = max(array.size for array in by_name[name].inputs())
        assert MUTANT_RANGE[0] <= largest < MUTANT_RANGE[1], (name, largest)
