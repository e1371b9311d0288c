"""gather and scatter in several dimension_numbers, index modes and update computations."""
from __future__ import annotations

from typing import Iterator

import numpy as np

from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.inputs import random_array, wide

import jax.numpy as jnp  # noqa: E402 - imported after env has configured JAX
from jax import lax  # noqa: E402 - imported after env has configured JAX

GATHER_DTYPES = ("f32", "f64", "bf16", "f16", "s8", "s32", "s64", "u8", "u32", "c64", "pred")
FILL = lax.GatherScatterMode.FILL_OR_DROP
CLIP = lax.GatherScatterMode.CLIP
PROMISE = lax.GatherScatterMode.PROMISE_IN_BOUNDS


def _gather_cases() -> Iterator[CaseSpec]:
    for dtype in GATHER_DTYPES:
        rng = rng_for(f"gather.{dtype}")
        x = random_array(rng, (5, 6), dtype)
        rows = np.array([4, 0, 2, 2], dtype=np.int32)
        cols = np.array([[1], [5], [0]], dtype=np.int32)
        yield CaseSpec(f"gather.take_rows.{dtype}", lambda v, i: v.at[i].get(mode=PROMISE), [x, rows],
                       numpy_ref=lambda xs: [np.take(xs[0], xs[1], axis=0)], numpy_ref_name="numpy.take",
                       expect_ops=("stablehlo.gather",))
        yield CaseSpec(f"gather.take_cols_2d_index.{dtype}", lambda v, i: v.at[:, i].get(mode=PROMISE),
                       [x, cols], numpy_ref=lambda xs: [np.take(xs[0], xs[1], axis=1)], numpy_ref_name="numpy.take",
                       expect_ops=("stablehlo.gather",))
        points = np.array([[0, 1], [4, 5], [2, 3]], dtype=np.int32)
        yield CaseSpec(f"gather.points.{dtype}", lambda v, p: v.at[p[:, 0], p[:, 1]].get(mode=PROMISE), [x, points],
                       numpy_ref=lambda xs: [xs[0][xs[1][:, 0], xs[1][:, 1]]], numpy_ref_name="numpy.fancy_index",
                       expect_ops=("stablehlo.gather",))
        starts = np.array([[0, 1], [3, 2]], dtype=np.int32)
        dnums = lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1))
        yield CaseSpec(f"gather.windows.{dtype}",
                       lambda v, s: lax.gather(v, s, dnums, slice_sizes=(2, 3), mode=PROMISE), [x, starts],
                       numpy_ref=lambda xs: [np.stack([xs[0][a:a + 2, b:b + 3] for a, b in xs[1]])],
                       numpy_ref_name="numpy.slices", expect_ops=("stablehlo.gather",))
        z = random_array(rng, (3, 5), dtype)
        along = np.array([[4, 0], [1, 1], [2, 3]], dtype=np.int32)
        yield CaseSpec(f"gather.take_along_axis_batched.{dtype}",
                       lambda v, i: jnp.take_along_axis(v, i, axis=1, mode="promise_in_bounds"), [z, along],
                       numpy_ref=lambda xs: [np.take_along_axis(xs[0], xs[1], axis=1)],
                       numpy_ref_name="numpy.take_along_axis", expect_ops=("stablehlo.gather",))
    for dtype in ("f32", "s32"):
        rng = rng_for(f"gather.modes.{dtype}")
        x = random_array(rng, (5, 3), dtype)
        out_of_bounds = np.array([1, 7, 4, 5], dtype=np.int32)
        fill_value = -1.0 if dtype == "f32" else -1
        yield CaseSpec(f"gather.clip_mode.{dtype}", lambda v, i: jnp.take(v, i, axis=0, mode="clip"), [x, out_of_bounds],
                       numpy_ref=lambda xs: [np.take(xs[0], np.clip(xs[1], 0, 4), axis=0)], numpy_ref_name="numpy.take(clip)",
                       expect_ops=("stablehlo.gather",))
        yield CaseSpec(f"gather.fill_mode.{dtype}",
                       lambda v, i, f=fill_value: jnp.take(v, i, axis=0, mode="fill", fill_value=f), [x, out_of_bounds],
                       numpy_ref=lambda xs, f=fill_value: [np.where((xs[1] < 5)[:, None], np.take(xs[0], np.clip(xs[1], 0, 4), axis=0), f)],
                       numpy_ref_name="numpy.take(fill)", expect_ops=("stablehlo.gather",))


def _scatter_ref(kind: str):
    def ref(xs):
        x, idx, upd = wide(xs[0]).copy(), xs[1], wide(xs[2])
        if kind == "set":
            x[idx] = upd
        elif kind == "add":
            np.add.at(x, idx, upd)
        elif kind == "mul":
            np.multiply.at(x, idx, upd)
        elif kind == "min":
            np.minimum.at(x, idx, upd)
        elif kind == "max":
            np.maximum.at(x, idx, upd)
        with np.errstate(all="ignore"):
            return [x.astype(xs[0].dtype)]
    return ref


def _scatter_cases() -> Iterator[CaseSpec]:
    for dtype in ("f32", "f64", "bf16", "f16", "s8", "s32", "s64", "u8", "u32", "c64"):
        kinds = ("set", "add", "mul", "min", "max") if dtype != "c64" else ("set", "add", "mul")
        for kind in kinds:
            case_id = f"scatter.rows_{kind}.{dtype}"
            rng = rng_for(case_id)
            x = random_array(rng, (5, 3), dtype, "small")
            # Duplicate indices only where the combination is order-independent (set is not).
            idx = np.array([3, 0, 4] if kind == "set" else [3, 0, 3, 1], dtype=np.int32)
            upd = random_array(rng, (idx.size, 3), dtype, "small")
            fn = {"set": lambda v, i, u: v.at[i].set(u, mode=PROMISE), "add": lambda v, i, u: v.at[i].add(u, mode=PROMISE),
                  "mul": lambda v, i, u: v.at[i].multiply(u, mode=PROMISE), "min": lambda v, i, u: v.at[i].min(u, mode=PROMISE),
                  "max": lambda v, i, u: v.at[i].max(u, mode=PROMISE)}[kind]
            yield CaseSpec(case_id, fn, [x, idx, upd], op_class="reduction" if kind in ("add", "mul") else "exact",
                           numpy_ref=_scatter_ref(kind), numpy_ref_name=f"numpy.ufunc.at({kind})",
                           expect_ops=("stablehlo.scatter",))
    for dtype in ("f32", "s32", "f64"):
        rng = rng_for(f"scatter.more.{dtype}")
        x = random_array(rng, (4, 5), dtype, "small")
        points = np.array([[0, 1], [3, 4], [0, 1], [2, 2]], dtype=np.int32)
        upd = random_array(rng, (4,), dtype, "small")
        yield CaseSpec(f"scatter.points_add.{dtype}", lambda v, p, u: v.at[p[:, 0], p[:, 1]].add(u, mode=PROMISE),
                       [x, points, upd], op_class="reduction",
                       numpy_ref=lambda xs: [_scatter_ref("add")([xs[0], (xs[1][:, 0], xs[1][:, 1]), xs[2]])[0]],
                       numpy_ref_name="numpy.add.at", expect_ops=("stablehlo.scatter",))
        dropped = np.array([1, 9, 2], dtype=np.int32)
        rows = random_array(rng, (3, 5), dtype, "small")
        yield CaseSpec(f"scatter.drop_out_of_bounds.{dtype}", lambda v, i, u: v.at[i].set(u, mode=FILL),
                       [x, dropped, rows],
                       numpy_ref=lambda xs: [_scatter_ref("set")([xs[0], xs[1][xs[1] < 4], xs[2][xs[1] < 4]])[0]],
                       numpy_ref_name="numpy.setitem(in bounds)", expect_ops=("stablehlo.scatter",))
        starts = np.array([[0, 0], [2, 3]], dtype=np.int32)
        windows = random_array(rng, (2, 2, 2), dtype, "small")
        dnums = lax.ScatterDimensionNumbers(update_window_dims=(1, 2), inserted_window_dims=(),
                                            scatter_dims_to_operand_dims=(0, 1))

        def window_ref(xs):
            out = wide(xs[0]).copy()
            for (a, b), w in zip(xs[1], wide(xs[2])):
                out[a:a + 2, b:b + 2] += w
            return [out.astype(xs[0].dtype)]
        yield CaseSpec(f"scatter.windows_add.{dtype}",
                       lambda v, s, u: lax.scatter_add(v, s, u, dnums, mode=PROMISE), [x, starts, windows],
                       op_class="reduction", numpy_ref=window_ref, numpy_ref_name="numpy.window_add",
                       expect_ops=("stablehlo.scatter",))
        batched = random_array(rng, (3, 4), dtype, "small")
        along = np.array([[1], [3], [0]], dtype=np.int32)
        vals = random_array(rng, (3, 1), dtype, "small")

        def along_ref(xs):
            out = xs[0].copy()
            np.put_along_axis(out, xs[1], xs[2], axis=1)
            return [out]
        yield CaseSpec(f"scatter.put_along_axis_batched.{dtype}",
                       lambda v, i, u: v.at[jnp.arange(3)[:, None], i].set(u, mode=PROMISE), [batched, along, vals],
                       numpy_ref=along_ref, numpy_ref_name="numpy.put_along_axis", expect_ops=("stablehlo.scatter",))


def cases() -> Iterator[CaseSpec]:
    yield from _gather_cases()
    yield from _scatter_cases()
