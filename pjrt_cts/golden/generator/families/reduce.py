"""reduce (incl. variadic), reduce_window, select_and_scatter and sort (multi-operand, stable)."""
from __future__ import annotations

from typing import Iterator

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.inputs import random_array, special_values, wide

import jax.numpy as jnp  # noqa: E402 - imported after env has configured JAX
from jax import lax  # noqa: E402 - imported after env has configured JAX

REDUCE_DTYPES = ("s8", "s32", "s64", "u8", "u32", "u64", "f16", "bf16", "f32", "f64", "c64", "c128")


def _reduce_ref(np_fn, axes, out_dtype):
    def ref(xs):
        x = wide(xs[0])
        with np.errstate(all="ignore"):
            return [np.asarray(np_fn(x, axis=axes)).astype(out_dtype)]
    return ref


def _reduce_cases() -> Iterator[CaseSpec]:
    for dtype in REDUCE_DTYPES:
        np_dtype = dtypes.dtype_of(dtype)
        integer = dtype[0] in "su"
        ops = {
            "sum": (lambda x, axes: lax.reduce_sum_p.bind(x, axes=axes, out_sharding=None), np.sum),
            "max": (lambda x, axes: lax.reduce_max_p.bind(x, axes=axes, out_sharding=None), np.max),
            "min": (lambda x, axes: lax.reduce_min_p.bind(x, axes=axes, out_sharding=None), np.min),
            "prod": (lambda x, axes: lax.reduce_prod_p.bind(x, axes=axes, out_sharding=None), np.prod),
        }
        if dtype[0] == "c":
            ops = {k: v for k, v in ops.items() if k in ("sum", "prod")}
        if integer:
            ones = np.array(-1).astype(np_dtype) if dtype[0] == "s" else np.array(np.iinfo(np_dtype).max, np_dtype)
            zero = np.array(0, np_dtype)
            ops["and"] = (lambda x, axes, i=ones: lax.reduce(x, i, lax.bitwise_and, axes), np.bitwise_and.reduce)
            ops["or"] = (lambda x, axes, i=zero: lax.reduce(x, i, lax.bitwise_or, axes), np.bitwise_or.reduce)
            ops["xor"] = (lambda x, axes, i=zero: lax.reduce(x, i, lax.bitwise_xor, axes), np.bitwise_xor.reduce)
        for name, (fn, np_fn) in ops.items():
            for axes in ((1,), (0, 2)):
                if len(axes) == 2 and name not in ("sum", "max"):
                    continue
                case_id = f"reduce.{name}_axes{''.join(map(str, axes))}.{dtype}"
                rng = rng_for(case_id)
                kind = "small" if name == "prod" or integer else "normal"
                x = random_array(rng, (3, 4, 5), dtype, "full" if name in ("and", "or", "xor") else kind)
                if name == "prod" and not integer:
                    x = (wide(x) * 0.5 + (1 if dtype[0] != "c" else 1 + 0j)).astype(np_dtype)
                np_reducer = np_fn if name not in ("and", "or", "xor") else (lambda v, axis, f=np_fn: f(v, axis=axis[0]))
                yield CaseSpec(case_id, lambda v, a=axes, f=fn: f(v, a), [x],
                               op_class="reduction" if name in ("sum", "prod") else "exact",
                               numpy_ref=_reduce_ref(np_reducer, axes, np_dtype), numpy_ref_name=f"numpy.{name}",
                               expect_ops=("stablehlo.reduce",))
    for name, fn, np_fn in (("all", lambda v: jnp.all(v, axis=1), np.all), ("any", lambda v: jnp.any(v, axis=1), np.any)):
        case_id = f"reduce.{name}.pred"
        x = random_array(rng_for(case_id), (4, 6), "pred")
        yield CaseSpec(case_id, fn, [x], numpy_ref=lambda xs, f=np_fn: [f(xs[0], axis=1)], numpy_ref_name=f"numpy.{name}",
                       expect_ops=("stablehlo.reduce",))
    # Variadic reduce: argmax/argmin (value + index operands in one reduce).
    for dtype in ("f32", "s32", "f64", "bf16"):
        for name, fn, np_fn in (("argmax", lambda v: jnp.argmax(v, axis=1), np.argmax),
                                ("argmin", lambda v: jnp.argmin(v, axis=1), np.argmin)):
            case_id = f"reduce.{name}_variadic.{dtype}"
            x = random_array(rng_for(case_id), (4, 9), dtype)
            yield CaseSpec(case_id, fn, [x], numpy_ref=lambda xs, f=np_fn: [f(wide(xs[0]), axis=1)],
                           numpy_ref_name=f"numpy.{name}", expect_ops=("stablehlo.reduce",))
    for dtype in ("f32", "f64"):
        case_id = f"reduce.max_with_nan.{dtype}"
        values = special_values(dtype).astype(dtypes.dtype_of(dtype)).reshape(2, 7)
        yield CaseSpec(case_id, lambda v: jnp.max(v, axis=1), [values],
                       numpy_ref=lambda xs: [np.max(xs[0], axis=1)], numpy_ref_name="numpy.max",
                       expect_ops=("stablehlo.reduce",), features=["special_values", "nan_propagation"])
    case_id = "reduce.sum_zero_size.f32"
    x = np.zeros((3, 0), np.float32)
    yield CaseSpec(case_id, lambda v: jnp.sum(v, axis=1), [x], numpy_ref=lambda xs: [np.sum(xs[0], axis=1)],
                   numpy_ref_name="numpy.sum", expect_ops=("stablehlo.reduce",))


def _window_ref(x, reducer, init, window, strides, padding):
    x = wide(x)
    padded = np.pad(x, padding, constant_values=init)
    out_shape = [(padded.shape[a] - window[a]) // strides[a] + 1 for a in range(x.ndim)]
    out = np.empty(out_shape, dtype=padded.dtype)
    for pos in np.ndindex(*out_shape):
        region = tuple(slice(p * s, p * s + w) for p, s, w in zip(pos, strides, window))
        out[pos] = reducer(padded[region])
    return out


WINDOW_VARIANTS = {
    "2x2_stride2": ((2, 2), (2, 2), ((0, 0), (0, 0))),
    "3x3_stride1_pad1": ((3, 3), (1, 1), ((1, 1), (1, 1))),
    "3x2_stride_2x1": ((3, 2), (2, 1), ((0, 1), (1, 0))),
}


def _reduce_window_cases() -> Iterator[CaseSpec]:
    for dtype in ("f32", "f64", "bf16", "f16", "s32", "s8", "u16"):
        np_dtype = dtypes.dtype_of(dtype)
        for variant, (window, strides, padding) in WINDOW_VARIANTS.items():
            x = None
            for name, computation, np_reducer in (("max", lax.max, np.max), ("sum", lax.add, np.sum)):
                case_id = f"reduce_window.{name}_{variant}.{dtype}"
                x = random_array(rng_for(case_id), (6, 7), dtype, "small")
                if name == "max":
                    init = np.array(-np.inf if dtype[0] in "fb" else np.iinfo(np_dtype).min, np_dtype)
                else:
                    init = np.array(0, np_dtype)
                fn = (lambda v, c=computation, i=init, w=window, s=strides, p=padding:
                      lax.reduce_window(v, i, c, w, s, p))
                yield CaseSpec(case_id, fn, [x], op_class="reduction" if name == "sum" else "exact",
                               numpy_ref=lambda xs, r=np_reducer, i=init, w=window, s=strides, p=padding, o=np_dtype: [
                                   _window_ref(xs[0], r, i.astype(np.float64) if o.kind == "f" or o == dtypes.dtype_of("bf16") else i, w, s, p).astype(o)],
                               numpy_ref_name=f"numpy.window_{name}", expect_ops=("stablehlo.reduce_window",))
    # Window dilation and base dilation.
    case_id = "reduce_window.sum_dilated.f32"
    x = random_array(rng_for(case_id), (8, 8), "f32")
    yield CaseSpec(case_id, lambda v: lax.reduce_window(v, np.float32(0), lax.add, (2, 2), (1, 1), ((0, 0), (0, 0)),
                                                        window_dilation=(2, 3)), [x], op_class="reduction",
                   # A 2x2 window dilated by (2, 3) touches (i, j), (i, j+3), (i+2, j), (i+2, j+3).
                   numpy_ref=lambda xs: [np.stack([np.array([xs[0][i, j] + xs[0][i, j + 3] + xs[0][i + 2, j] + xs[0][i + 2, j + 3]
                                                             for j in range(5)]) for i in range(6)]).astype(np.float32)],
                   numpy_ref_name="numpy.window_sum_dilated", expect_ops=("stablehlo.reduce_window",))
    case_id = "reduce_window.max_base_dilated.f32"
    x = random_array(rng_for(case_id), (4, 4), "f32")
    yield CaseSpec(case_id, lambda v: lax.reduce_window(v, np.float32(-np.inf), lax.max, (2, 2), (1, 1), ((0, 0), (0, 0)),
                                                        base_dilation=(2, 1)), [x],
                   expect_ops=("stablehlo.reduce_window",))
    # cumulative sum/max lower to reduce_window on CPU.
    for dtype in ("f32", "s32"):
        case_id = f"reduce_window.cumsum.{dtype}"
        x = random_array(rng_for(case_id), (4, 6), dtype, "small")
        yield CaseSpec(case_id, lambda v: lax.cumsum(v, axis=1), [x],
                       op_class="reduction", numpy_ref=lambda xs: [np.cumsum(xs[0], axis=1).astype(xs[0].dtype)],
                       numpy_ref_name="numpy.cumsum")


def _select_and_scatter_ref(x, source, window, strides, padding, init):
    """Gradient of max pooling: each window's source value goes to the first maximal element."""
    padded = np.pad(x.astype(np.float64), padding, constant_values=-np.inf)
    out = np.zeros(padded.shape, dtype=wide(source).dtype) + init
    for pos in np.ndindex(*source.shape):
        region = tuple(slice(p * s, p * s + w) for p, s, w in zip(pos, strides, window))
        block = padded[region]
        flat = int(np.argmax(block))
        local = np.unravel_index(flat, block.shape)
        target = tuple(r.start + l for r, l in zip(region, local))
        out[target] += wide(source)[pos]
    crop = tuple(slice(lo, out.shape[a] - hi) for a, (lo, hi) in enumerate(padding))
    return out[crop]


def _select_and_scatter_cases() -> Iterator[CaseSpec]:
    from jax._src.lax.windowed_reductions import _select_and_scatter_add

    for dtype in ("f32", "f64", "bf16", "s32"):
        np_dtype = dtypes.dtype_of(dtype)
        for variant, (window, strides, padding) in WINDOW_VARIANTS.items():
            case_id = f"select_and_scatter.{variant}.{dtype}"
            rng = rng_for(case_id)
            # Distinct values so the selected maximum is unique.
            x = (rng.permutation(42).reshape(6, 7) - 20).astype(np_dtype)
            out_shape = [(x.shape[a] + sum(padding[a]) - window[a]) // strides[a] + 1 for a in range(2)]
            source = random_array(rng, out_shape, dtype, "small")
            fn = (lambda s, v, w=window, st=strides, p=padding:
                  _select_and_scatter_add(s, v, lax.ge_p, w, st, p))
            yield CaseSpec(case_id, fn, [source, x], op_class="reduction",
                           numpy_ref=lambda xs, w=window, st=strides, p=padding, o=np_dtype: [
                               _select_and_scatter_ref(xs[1], xs[0], w, st, p, 0).astype(o)],
                           numpy_ref_name="numpy.max_pool_gradient", expect_ops=("stablehlo.select_and_scatter",),
                           selector_inputs=(1,))  # the operand picks where each source value goes


def _total_order_key(x: np.ndarray) -> np.ndarray:
    """JAX's sort order: -0.0 equals 0.0, NaN after +inf."""
    x = np.where(x == 0, 0.0, x.astype(np.float64))
    bits = x.view(np.int64)
    return np.where(bits < 0, bits ^ np.int64(0x7FFFFFFFFFFFFFFF), bits)


def _sort_key(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iub":
        return x
    return _total_order_key(x)


def _sort_cases() -> Iterator[CaseSpec]:
    for dtype in ("s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64", "pred"):
        case_id = f"sort.ascending.{dtype}"
        x = random_array(rng_for(case_id), (3, 8), dtype, "small")
        yield CaseSpec(case_id, lambda v: lax.sort(v, dimension=1), [x],
                       numpy_ref=lambda xs: [np.take_along_axis(xs[0], np.argsort(_sort_key(xs[0]), axis=1, kind="stable"), 1)],
                       numpy_ref_name="numpy.sort", expect_ops=("stablehlo.sort",))
    for dtype in ("f32", "s32", "f64"):
        case_id = f"sort.descending_stable.{dtype}"
        x = random_array(rng_for(case_id), (12,), dtype, "small")
        x[3:6] = x[0]  # ties: stability decides their order
        yield CaseSpec(case_id, lambda v: jnp.argsort(v, stable=True, descending=True).astype(np.int32), [x],
                       numpy_ref=lambda xs: [np.argsort(-_sort_key(xs[0]).astype(np.float64) if xs[0].dtype.kind == "f" else -xs[0].astype(np.int64), kind="stable").astype(np.int32)],
                       numpy_ref_name="numpy.argsort(stable)", expect_ops=("stablehlo.sort",))
        case_id = f"sort.multi_operand.{dtype}"
        rng = rng_for(case_id)
        keys = random_array(rng, (10,), dtype, "small")
        keys[2:5] = keys[0]
        values = random_array(rng, (10,), "f32")
        labels = np.arange(10, dtype=np.int32) + 1
        yield CaseSpec(case_id, lambda k, v, l: lax.sort((k, v, l), num_keys=1, is_stable=True), [keys, values, labels],
                       numpy_ref=lambda xs: [x[np.argsort(_sort_key(xs[0]), kind="stable")] for x in xs],
                       numpy_ref_name="numpy.argsort(stable)", expect_ops=("stablehlo.sort",))
        case_id = f"sort.two_keys.{dtype}"
        rng = rng_for(case_id)
        first = random_array(rng, (12,), dtype, "small")
        first[:6] = first[6:]
        second = random_array(rng, (12,), "s32", "small")
        yield CaseSpec(case_id, lambda a, b: lax.sort((a, b), num_keys=2), [first, second],
                       numpy_ref=lambda xs: [x[np.lexsort((xs[1], _sort_key(xs[0])))] for x in xs],
                       numpy_ref_name="numpy.lexsort", expect_ops=("stablehlo.sort",))
    for dtype in ("f32", "f64", "bf16"):
        case_id = f"sort.special_values.{dtype}"
        x = special_values(dtype).astype(dtypes.dtype_of(dtype))
        yield CaseSpec(case_id, lambda v: lax.sort(v), [x],
                       numpy_ref=lambda xs: [xs[0][np.argsort(_total_order_key(xs[0]), kind="stable")]],
                       numpy_ref_name="numpy.sort(total order)", expect_ops=("stablehlo.sort",), features=["special_values"])
    case_id = "sort.top_k_via_sort.f32"
    x = random_array(rng_for(case_id), (3, 10), "f32")
    yield CaseSpec(case_id, lambda v: lax.sort(-v, dimension=1)[:, :4] * -1, [x],
                   numpy_ref=lambda xs: [-np.sort(-xs[0], axis=1)[:, :4]], numpy_ref_name="numpy.sort",
                   expect_ops=("stablehlo.sort",))


def cases() -> Iterator[CaseSpec]:
    yield from _reduce_cases()
    yield from _reduce_window_cases()
    yield from _select_and_scatter_cases()
    yield from _sort_cases()
