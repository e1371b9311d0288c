"""Programs whose operands are constants of the module (family `constfold`), as real StableHLO producers emit
them (exported models, the StableHLO test data): a compiler folds such ops at compile time, through code
that parameter inputs never reach. Each case computes an op over constants and then an elementwise op on the
result, so the folded value is consumed the way real programs consume it.

Found by differential testing of the cpu-legacy plugin (XLA from PJRT API 0.81) against the default plugin:
with constant operands it returns wrong values for gather with an offset dimension before the batch
dimension and for convolutions whose output dimensions are not `[b, 0, ..., f]` (when an elementwise op
follows; the gather one is openxla/xla#34260), for count_leading_zeros of negative integers and for integer
power(-1, n < 0). The same programs
with parameter inputs are right, which is why the rest of the corpus (inputs as parameters) passes there.

The programs take one parameter (a scale or offset) so that every case has an input, and fold everything else.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.tolerance import tolerance_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.inputs import random_array, wide

import jax.numpy as jnp  # noqa: E402 - imported after env has configured JAX
from jax import lax  # noqa: E402 - imported after env has configured JAX

FAMILY = "constfold"


def _gather_cases() -> Iterator[CaseSpec]:
    """x[:, idx] (offset dim 0 before the batch dims) on constants, then an elementwise op."""
    for dtype in ("f32", "s32", "f64", "bf16"):
        for axis, shape, idx_shape in ((1, (4, 5), (3,)), (1, (3, 6), (2, 2)), (2, (2, 3, 5), (4,)), (0, (5, 4), (3,))):
            case_id = f"{FAMILY}.gather_take_axis{axis}_x{'x'.join(map(str, shape))}_i{'x'.join(map(str, idx_shape))}_add.{dtype}"
            rng = rng_for(case_id)
            x = random_array(rng, shape, dtype, "small")
            idx = rng.integers(0, shape[axis], size=idx_shape).astype(np.int32)
            offset = random_array(rng, (), dtype, "small")
            if not np.any(offset != 0):
                offset = np.ones((), offset.dtype)

            def fn(b, x=x, idx=idx, axis=axis):
                taken = jnp.take(jnp.asarray(x), jnp.asarray(idx), axis=axis, mode="clip")
                return taken + taken + b  # taken + taken is folded too: the folded gather feeds an elementwise op

            def ref(xs, x=x, idx=idx, axis=axis):
                return [(2 * np.take(wide(x), idx, axis=axis) + wide(xs[0])).astype(x.dtype)]

            yield CaseSpec(case_id, fn, [offset], op_class="arith", numpy_ref=ref, numpy_ref_name="2 * numpy.take + add",
                           expect_ops=("stablehlo.gather",), group=f"{FAMILY}.gather.{dtype}",
                           attributes={"offset_dims_before_batch": axis > 0, "axis": axis, "operands": "constant",
                                       "consumer": "add"})


def _conv_cases() -> Iterator[CaseSpec]:
    """NCHW / NCW convolutions of constants (output dims [b, f, spatial...]), then an elementwise op."""
    layouts = {1: ("NCH", "OIH", "NCH"), 2: ("NCHW", "OIHW", "NCHW")}
    for dtype in ("f32", "f64"):
        for rank, lhs_shape, rhs_shape, stride, pad in ((1, (1, 1, 3), (2, 1, 1), (1,), ((0, 0),)),
                                                        (1, (2, 2, 7), (3, 2, 3), (2,), ((1, 0),)),
                                                        (2, (1, 2, 5, 4), (3, 2, 2, 2), (1, 1), ((0, 0), (1, 1))),
                                                        (2, (2, 1, 4, 6), (2, 1, 3, 2), (1, 2), ((1, 1), (0, 0)))):
            case_id = (f"{FAMILY}.conv_{''.join(layouts[rank][0])}_l{'x'.join(map(str, lhs_shape))}"
                       f"_r{'x'.join(map(str, rhs_shape))}_s{''.join(map(str, stride))}_add.{dtype}")
            rng = rng_for(case_id)
            lhs = random_array(rng, lhs_shape, dtype, "small")
            rhs = random_array(rng, rhs_shape, dtype, "small")
            bias = random_array(rng, (), dtype, "small")

            def fn(b, lhs=lhs, rhs=rhs, stride=stride, pad=pad, rank=rank):
                out = lax.conv_general_dilated(jnp.asarray(lhs), jnp.asarray(rhs), stride, pad,
                                               dimension_numbers=layouts[rank], precision=lax.Precision.HIGHEST)
                return out + out + b  # out + out is folded too: the folded convolution feeds an elementwise op

            def ref(xs, lhs=lhs, rhs=rhs, stride=stride, pad=pad):
                return [(2 * _conv_ref(wide(lhs), wide(rhs), stride, pad) + wide(xs[0])).astype(lhs.dtype)]

            # The terms are the constants': the atol scale is sum|terms| of the conv of |lhs| and |rhs|, plus |bias|.
            scale = float(2 * _conv_ref(np.abs(wide(lhs)), np.abs(wide(rhs)), stride, pad).max() + abs(float(wide(bias))))
            tolerance = tolerance_for(dtype, "matmul", scale=scale)
            yield CaseSpec(case_id, fn, [bias], op_class="matmul", tolerance=tolerance, numpy_ref=ref, numpy_ref_name="2 * numpy conv loop + add",
                           expect_ops=("stablehlo.convolution",), group=f"{FAMILY}.conv.{dtype}",
                           attributes={"dimension_numbers": "x".join(layouts[rank]), "window_strides": list(stride),
                                       "padding": [list(p) for p in pad], "operands": "constant", "consumer": "add"})


def _conv_ref(lhs: np.ndarray, rhs: np.ndarray, stride, pad) -> np.ndarray:
    """Cross-correlation in NC<spatial> x OI<spatial> -> NC<spatial> layout."""
    padded = np.pad(lhs, [(0, 0), (0, 0)] + [tuple(p) for p in pad])
    window = rhs.shape[2:]
    out_spatial = [(padded.shape[2 + d] - window[d]) // stride[d] + 1 for d in range(len(window))]
    out = np.zeros((lhs.shape[0], rhs.shape[0], *out_spatial), dtype=lhs.dtype)
    for position in np.ndindex(*out_spatial):
        starts = [position[d] * stride[d] for d in range(len(window))]
        patch = padded[(slice(None), slice(None), *[slice(s, s + w) for s, w in zip(starts, window)])]
        axes = list(range(1, patch.ndim))
        out[(slice(None), slice(None), *position)] = np.tensordot(patch, rhs, axes=(axes, axes))
    return out


def _integer_cases() -> Iterator[CaseSpec]:
    """count_leading_zeros of negative constants and power(-1, negative) on constants, then an add."""
    for dtype in ("s8", "s16", "s32", "s64"):
        bits = np.dtype(dtype.replace("s", "int")).itemsize * 8
        values = np.array([-1, -2, -(2 ** (bits - 1)), 1, 0, 5], dtype=f"int{bits}")
        case_id = f"{FAMILY}.clz_negative_add.{dtype}"
        one = np.ones((), values.dtype)

        def clz(b, values=values):
            return lax.clz(jnp.asarray(values)) + b

        def clz_ref(xs, values=values, bits=bits):
            unsigned = values.astype(f"uint{bits}").astype(object)
            counts = [bits - int(v).bit_length() for v in unsigned]
            return [(np.array(counts, dtype=values.dtype) + xs[0]).astype(values.dtype)]

        yield CaseSpec(case_id, clz, [one], numpy_ref=clz_ref, numpy_ref_name="bit_length + add",
                       expect_ops=("stablehlo.count_leading_zeros",), group=f"{FAMILY}.integer.{dtype}",
                       attributes={"operands": "constant", "sign": "negative", "consumer": "add"})
        base = np.array([-1, -1, -1, 1, 2, -2], dtype=values.dtype)
        exponent = np.array([-1, -2, -3, -5, -1, 3], dtype=values.dtype)
        case_id = f"{FAMILY}.power_negative_exponent_add.{dtype}"

        def power(b, base=base, exponent=exponent):
            return lax.pow(jnp.asarray(base), jnp.asarray(exponent)) + b

        def power_ref(xs, base=base, exponent=exponent):
            out = []
            for x, n in zip(base.tolist(), exponent.tolist()):
                out.append(x ** n if n >= 0 else (1 if x == 1 else (-1) ** (-n) if x == -1 else 0))
            return [(np.array(out, dtype=base.dtype) + xs[0]).astype(base.dtype)]

        yield CaseSpec(case_id, power, [one], numpy_ref=power_ref, numpy_ref_name="integer power (1/x^n -> 0) + add",
                       expect_ops=("stablehlo.power",), group=f"{FAMILY}.integer.{dtype}",
                       attributes={"operands": "constant", "exponent": "negative", "consumer": "add"})


def cases() -> Iterator[CaseSpec]:
    yield from _gather_cases()
    yield from _conv_cases()
    # Not the integer findings (count_leading_zeros of negative constants, power(-1, n < 0)): JAX's own CPU
    # backend (jax 0.10.2) folds clz of a negative constant to bitwidth - 64 too, so XLA cannot be the
    # reference there; they wait for a spec-derived oracle (issue 18).
