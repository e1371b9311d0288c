"""Comparison helpers of the framework layer (no JAX needed)."""
from __future__ import annotations

import numpy as np
import pytest

from pjrt_cts.framework import compare
from pjrt_cts.framework.lazy import LazyModule


def test_float_tolerance_scales_with_width_and_kind() -> None:
    f32 = compare.float_tolerance(np.float32)
    assert (f32.kind, f32.rtol) == ("rel", pytest.approx(1e-5))
    assert compare.float_tolerance(np.float32, "linalg").rtol == pytest.approx(1e-3)
    assert compare.float_tolerance(np.float16).rtol > f32.rtol > compare.float_tolerance(np.float64).rtol
    assert compare.float_tolerance(np.complex64).rtol == f32.rtol
    with pytest.raises(ValueError, match="unknown kind"):
        compare.float_tolerance(np.float32, "vague")


def test_integers_compare_exactly() -> None:
    expected = np.arange(6, dtype=np.int32)
    assert compare.mismatches(expected.copy(), expected) == []
    off_by_one = expected.copy()
    off_by_one[4] += 1
    [problem] = compare.mismatches(off_by_one, expected)
    assert "first mismatch at index [4]" in problem and "max abs err 1" in problem


def test_floats_within_tolerance_pass_and_outside_fail_with_details() -> None:
    expected = np.linspace(1, 2, 8, dtype=np.float32)
    assert compare.mismatches(expected * np.float32(1 + 2e-6), expected) == []
    assert compare.mismatches(expected * np.float32(1 + 2e-6), expected, exact=True) != []
    far = expected.copy()
    far[3] *= 1.01
    with pytest.raises(AssertionError) as failure:
        compare.assert_matches_reference(far, expected, "scaled")
    message = str(failure.value)
    assert "scaled" in message and "max rel err" in message and "index [3]" in message


def test_pytrees_compare_leaf_by_leaf_and_structure() -> None:
    tree = {"a": np.ones(2, np.float32), "b": [np.zeros(3, np.int32)]}
    assert compare.mismatches(tree, tree) == []
    other = {"a": np.ones(2, np.float32), "b": [np.ones(3, np.int32)]}
    [problem] = compare.mismatches(other, tree)
    assert problem.startswith("output['b'][0]")
    assert "structure differs" in compare.mismatches([tree["a"]], tree)[0]


def test_dtype_and_shape_mismatch_are_reported() -> None:
    assert "dtype mismatch" in compare.mismatches(np.ones(2, np.float64), np.ones(2, np.float32))[0]
    assert "shape mismatch" in compare.mismatches(np.ones(3, np.float32), np.ones(2, np.float32))[0]


def test_lazy_module_imports_on_public_attribute_only() -> None:
    lazy = LazyModule("json")
    with pytest.raises(AttributeError):
        lazy._pytestfixturefunction  # noqa: B018 - pytest probes this while collecting
    assert "not imported" in repr(lazy)
    assert lazy.dumps([1]) == "[1]"
    assert "imported" in repr(lazy) and "not imported" not in repr(lazy)
