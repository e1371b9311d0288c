"""Compare the plugin's outputs with the reference backend's: every numeric check goes through
`pjrt_cts.golden.compare` so a mismatch names the max abs/rel error and the first differing index.

Tolerances: integers, booleans and random bits are exact; floats use a relative tolerance because
the plugin and jaxlib are different XLA builds (fusion and vectorized transcendental code differ).

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from pjrt_cts.golden.compare import compare as golden_compare_fn
from pjrt_cts.golden import dtypes as golden_dtypes
from pjrt_cts.golden.tolerance import EXACT, Tolerance

# rtol/atol per float width for one "class" of computation: elementwise and small reductions.
_BASE = {2: (1e-2, 1e-2), 4: (1e-5, 1e-6), 8: (1e-12, 1e-13)}
# Multipliers for computations that amplify rounding differences.
LOOSENESS = {"elementwise": 1.0, "reduction": 10.0, "autodiff": 10.0, "linalg": 100.0}


def float_tolerance(dtype: Any, kind: str = "elementwise") -> Tolerance:
    """The tolerance for floats of `dtype` (complex: per component) in a `kind` of computation."""
    if kind not in LOOSENESS:
        raise ValueError(f"unknown kind {kind!r}; known: {sorted(LOOSENESS)}")
    dtype = np.dtype(dtype)
    width = dtype.itemsize // 2 if dtype.kind == "c" else dtype.itemsize
    rtol, atol = _BASE.get(width, _BASE[4])
    scale = LOOSENESS[kind]
    return Tolerance("rel", rtol=rtol * scale, atol=atol * scale, op_class=kind)


def tolerance_for(array: np.ndarray, kind: str = "elementwise") -> Tolerance:
    dtype = np.asarray(array).dtype
    name = golden_dtypes.name_of(dtype) if _known(dtype) else str(dtype)
    if _known(dtype) and (golden_dtypes.is_floating(name) or golden_dtypes.is_complex(name)):
        return float_tolerance(dtype, kind)
    return EXACT


def _known(dtype: np.dtype) -> bool:
    try:
        golden_dtypes.name_of(dtype)
    except ValueError:
        return False
    return True


def _leaves(tree: Any, prefix: str = "output") -> list[tuple[str, Any]]:
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in _leaves(tree[key], f"{prefix}[{key!r}]")]
    if isinstance(tree, (list, tuple)):
        return [leaf for i, item in enumerate(tree) for leaf in _leaves(item, f"{prefix}[{i}]")]
    return [(prefix, tree)]


def mismatches(actual: Any, expected: Any, kind: str = "elementwise", exact: bool = False) -> list[str]:
    """One line per differing leaf of two pytrees (dicts/lists/tuples of arrays) of host values."""
    got, want = _leaves(actual), _leaves(expected)
    if [p for p, _ in got] != [p for p, _ in want]:
        return [f"structure differs: actual leaves {[p for p, _ in got]}, expected {[p for p, _ in want]}"]
    problems: list[str] = []
    for (path, a), (_, e) in zip(got, want):
        a, e = np.asarray(a), np.asarray(e)
        tolerance = EXACT if exact else tolerance_for(e, kind)
        found = golden_compare_fn(a, e, tolerance)
        if found is not None:
            problems.append(f"{path}: {found}")
    return problems


def assert_matches_reference(actual: Any, expected: Any, what: str, kind: str = "elementwise",
                             exact: bool = False) -> None:
    """Fail naming `what` and each differing output when the plugin's result is off the reference's."""
    problems = mismatches(actual, expected, kind=kind, exact=exact)
    assert not problems, f"{what}: the plugin's result differs from JAX's built-in CPU backend: " + "; ".join(problems)
