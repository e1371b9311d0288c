"""Large-tensor cases: inputs regenerated from a recorded seed, expected outputs from numpy.

Their data would not fit the corpus size budget, so the manifest records the seed, the input
specs and the name of the numpy reference below; the generator checked JAX against the same
reference when it built the case.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from pjrt_cts.golden import dtypes

NumpyReference = Callable[[Sequence[np.ndarray]], list[np.ndarray]]


def _add(xs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [xs[0] + xs[1]]


def _row_sum_f64(xs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.sum(xs[0].astype(np.float64), axis=1).astype(xs[0].dtype)]


def _transpose(xs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.ascontiguousarray(xs[0].T)]


def _xor(xs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.bitwise_xor(xs[0], xs[1])]


def _reverse_rows(xs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.ascontiguousarray(xs[0][::-1])]


REFERENCES: dict[str, NumpyReference] = {
    "add": _add,
    "row_sum_f64": _row_sum_f64,
    "transpose": _transpose,
    "bitwise_xor": _xor,
    "reverse_rows": _reverse_rows,
}


def synthesize_inputs(seed: int, specs: Sequence[dict]) -> list[np.ndarray]:
    """Inputs for `specs` ([{"shape": [...], "dtype": "f32"}]) from `seed`; never all zeros."""
    rng = np.random.default_rng(seed)
    arrays = []
    for spec in specs:
        dtype = dtypes.dtype_of(spec["dtype"])
        shape = tuple(spec["shape"])
        if np.issubdtype(dtype, np.floating):
            arrays.append(rng.standard_normal(shape, dtype=np.float32).astype(dtype))
        elif np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            arrays.append(rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True))
        else:
            raise ValueError(f"large cases support float and integer inputs, not {spec['dtype']}")
    return arrays


def reference_outputs(name: str, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    try:
        reference = REFERENCES[name]
    except KeyError:
        raise ValueError(f"unknown numpy reference {name!r}") from None
    return reference(inputs)
