"""Ops no jax.numpy/lax function emits (legacy/dynamic/batch-norm/tuple-level ops, built with the
MLIR builders inside a JAX program), zero-size and rank-0 tensors, large tensors, non-default
layouts and donation."""
from __future__ import annotations

from typing import Iterator

import numpy as np

from pjrt_cts.golden import dtypes, synth
from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.inputs import random_array, wide
from pjrt_cts.golden.generator.prims import emit, i64_tensor, scalar_type, tensor_type

import jax.numpy as jnp  # noqa: E402 - imported after env has configured JAX
from jax import lax  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir import ir  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir.dialects import hlo  # noqa: E402 - imported after env has configured JAX
from jax.experimental.layout import Format, Layout  # noqa: E402 - imported after env has configured JAX
from jax.sharding import SingleDeviceSharding  # noqa: E402 - imported after env has configured JAX


def _const(value: np.ndarray) -> ir.Value:
    from jax._src.interpreters import mlir

    return mlir.ir_constant(np.asarray(value))


def _one(fn_lower, out_shape, out_dtype):
    """A function of the program's arguments emitting one result built by `fn_lower(*ir_values)`."""
    return lambda *args: emit(fn_lower, [(out_shape, out_dtype)], *args)[0]


def _legacy_cases() -> Iterator[CaseSpec]:
    for dtype in ("f32", "f64", "s32", "bf16"):
        np_dtype = dtypes.dtype_of(dtype)
        rng = rng_for(f"misc.{dtype}")
        x = random_array(rng, (2, 3), dtype, "small")
        y = random_array(rng, (3, 4), dtype, "small")
        op_class = "matmul" if dtype[0] in "fb" else "exact"
        yield CaseSpec(f"misc.dot.{dtype}",
                       _one(lambda a, b: hlo.DotOp(tensor_type((2, 4), np_dtype), a, b).result, (2, 4), np_dtype), [x, y],
                       op_class=op_class, numpy_ref=lambda xs: [(wide(xs[0]) @ wide(xs[1])).astype(xs[0].dtype)],
                       numpy_ref_name="numpy.matmul", expect_ops=("stablehlo.dot",))
        yield CaseSpec(f"misc.einsum.{dtype}",
                       _one(lambda a, b: hlo.EinsumOp(tensor_type((4, 2), np_dtype), a, b, "ij,jk->ki").result, (4, 2), np_dtype),
                       [x, y], op_class=op_class,
                       numpy_ref=lambda xs: [np.einsum("ij,jk->ki", wide(xs[0]), wide(xs[1])).astype(xs[0].dtype)],
                       numpy_ref_name="numpy.einsum", expect_ops=("stablehlo.einsum",))
        yield CaseSpec(f"misc.broadcast.{dtype}", _one(lambda a: hlo.broadcast(a, [2, 1]), (2, 1, 2, 3), np_dtype), [x],
                       numpy_ref=lambda xs: [np.broadcast_to(xs[0], (2, 1, 2, 3))], numpy_ref_name="numpy.broadcast_to",
                       expect_ops=("stablehlo.broadcast",))
        yield CaseSpec(f"misc.get_dimension_size.{dtype}",
                       lambda a: emit(lambda v: hlo.get_dimension_size(v, 1), [((), np.int32)], a)[0], [x],
                       numpy_ref=lambda xs: [np.int32(xs[0].shape[1])], numpy_ref_name="numpy.shape",
                       expect_ops=("stablehlo.get_dimension_size",))
        yield CaseSpec(f"misc.dynamic_reshape.{dtype}",
                       _one(lambda a: hlo.DynamicReshapeOp(tensor_type((3, 2), np_dtype), a, i64_tensor([3, 2])).result,
                            (3, 2), np_dtype), [x],
                       numpy_ref=lambda xs: [xs[0].reshape(3, 2)], numpy_ref_name="numpy.reshape",
                       expect_ops=("stablehlo.dynamic_reshape",))
        yield CaseSpec(f"misc.real_dynamic_slice.{dtype}",
                       _one(lambda a: hlo.RealDynamicSliceOp(tensor_type((2, 2), np_dtype), a, i64_tensor([0, 0]),
                                                             i64_tensor([2, 3]), i64_tensor([1, 2])).result, (2, 2), np_dtype),
                       [x], numpy_ref=lambda xs: [xs[0][0:2, 0:3:2]], numpy_ref_name="numpy.slice",
                       expect_ops=("stablehlo.real_dynamic_slice",))
        yield CaseSpec(f"misc.dynamic_pad.{dtype}",
                       _one(lambda a: hlo.DynamicPadOp(tensor_type((3, 7), np_dtype), a, _const(np.array(1, np_dtype)),
                                                       i64_tensor([1, 0]), i64_tensor([0, 2]), i64_tensor([0, 1])).result,
                            (3, 7), np_dtype), [x],
                       numpy_ref=lambda xs, d=np_dtype: [_pad_interior(xs[0], d)], numpy_ref_name="numpy.pad",
                       expect_ops=("stablehlo.dynamic_pad",))
        yield CaseSpec(f"misc.dynamic_broadcast_in_dim.{dtype}",
                       _one(lambda a: hlo.DynamicBroadcastInDimOp(tensor_type((4, 2, 3), np_dtype), a,
                                                                  i64_tensor([4, 2, 3]), [1, 2]).result, (4, 2, 3), np_dtype),
                       [x], numpy_ref=lambda xs: [np.broadcast_to(xs[0], (4, 2, 3))], numpy_ref_name="numpy.broadcast_to",
                       expect_ops=("stablehlo.dynamic_broadcast_in_dim",))
        yield CaseSpec(f"misc.dynamic_iota.{dtype}",
                       _one(lambda a: hlo.add(a, hlo.DynamicIotaOp(tensor_type((2, 3), np_dtype), i64_tensor([2, 3]), 1).result),
                            (2, 3), np_dtype), [x], op_class="arith",
                       numpy_ref=lambda xs: [(wide(xs[0]) + np.arange(3)).astype(xs[0].dtype)], numpy_ref_name="numpy.arange",
                       expect_ops=("stablehlo.dynamic_iota",))
        index = np.array([2, 0, 2], dtype=np.int32)
        yield CaseSpec(f"misc.torch_index_select.{dtype}",
                       _one(lambda a, i: hlo.TorchIndexSelectOp(tensor_type((2, 3), np_dtype), a, i, 1, 0).result, (2, 3), np_dtype),
                       [x, index], numpy_ref=lambda xs: [np.take(xs[0], xs[1], axis=1)], numpy_ref_name="numpy.take",
                       expect_ops=("stablehlo.torch_index_select",))
        starts = np.array([[1, 0], [0, 1]], dtype=np.int32)

        def dyn_gather(a, s):
            def lower(av, sv):
                dnums = hlo.GatherDimensionNumbers.get(offset_dims=[1], collapsed_slice_dims=[0], operand_batching_dims=[],
                                                       start_indices_batching_dims=[], start_index_map=[0, 1], index_vector_dim=1)
                return hlo.DynamicGatherOp(av, sv, i64_tensor([1, 2]), dnums).result
            return emit(lower, [((2, 2), np_dtype)], a, s)[0]
        yield CaseSpec(f"misc.dynamic_gather.{dtype}", dyn_gather, [x, starts],
                       numpy_ref=lambda xs: [np.stack([xs[0][r, c:c + 2] for r, c in xs[1]])], numpy_ref_name="numpy.slices",
                       expect_ops=("stablehlo.dynamic_gather",))
        yield CaseSpec(f"misc.optimization_barrier.{dtype}",
                       lambda a, b: emit(lambda av, bv: hlo.optimization_barrier([av, bv]), [(a.shape, a.dtype), (b.shape, b.dtype)], a, b),
                       [x, y], numpy_ref=lambda xs: [xs[0], xs[1]], numpy_ref_name="numpy.identity",
                       expect_ops=("stablehlo.optimization_barrier",))
        yield CaseSpec(f"misc.after_all_create_token.{dtype}",
                       _one(lambda a: (hlo.after_all([hlo.create_token(), hlo.create_token()]), hlo.negate(a))[1], (2, 3), np_dtype),
                       [x], numpy_ref=lambda xs: [-xs[0]], numpy_ref_name="numpy.negative",
                       expect_ops=("stablehlo.after_all", "stablehlo.create_token"))

        def mapped(a, b):
            def lower(av, bv):
                op = hlo.MapOp(tensor_type((2, 3), np_dtype), [av, bv], [0, 1])
                block = op.computation.blocks.append(scalar_type(np_dtype), scalar_type(np_dtype))
                with ir.InsertionPoint(block):
                    hlo.return_([hlo.add(hlo.multiply(block.arguments[0], block.arguments[1]), block.arguments[0])])
                return op.result
            return emit(lower, [((2, 3), np_dtype)], a, b)[0]
        z = random_array(rng, (2, 3), dtype, "small")
        # XLA may fuse the multiply-add (one rounding): a relative bound, not ulps.
        yield CaseSpec(f"misc.map.{dtype}", mapped, [x, z], op_class="matmul",
                       numpy_ref=lambda xs: [(wide(xs[0]) * wide(xs[1]) + wide(xs[0])).astype(xs[0].dtype)],
                       numpy_ref_name="numpy.multiply_add", expect_ops=("stablehlo.map",))
        yield CaseSpec(f"misc.composite.{dtype}", lax.composite(lambda v: v * 2 + 1, name="pjrt_cts.double_plus_one"), [x],
                       op_class="arith", numpy_ref=lambda xs: [(wide(xs[0]) * 2 + 1).astype(xs[0].dtype)],
                       numpy_ref_name="numpy.affine", expect_ops=("stablehlo.composite",))
    for dtype, (exponent, mantissa) in (("f32", (5, 10)), ("f32", (8, 7)), ("f64", (8, 23)), ("f64", (5, 10))):
        case_id = f"misc.reduce_precision_e{exponent}m{mantissa}.{dtype}"
        x = random_array(rng_for(case_id), (12,), dtype)
        target = {(5, 10): np.float16, (8, 7): dtypes.dtype_of("bf16"), (8, 23): np.float32}[(exponent, mantissa)]
        yield CaseSpec(case_id, lambda v, e=exponent, m=mantissa: lax.reduce_precision(v, e, m), [x],
                       numpy_ref=lambda xs, t=target: [xs[0].astype(t).astype(xs[0].dtype)], numpy_ref_name="numpy.round_trip",
                       expect_ops=("stablehlo.reduce_precision",))
    yield from _batch_norm_cases()


def _pad_interior(x: np.ndarray, dtype) -> np.ndarray:
    out = np.full((3, 7), 1, dtype=dtype)
    out[1:3, 0:5:2] = x
    return out


def _batch_norm_cases() -> Iterator[CaseSpec]:
    eps = 1e-3
    for dtype in ("f32", "f64"):
        np_dtype = dtypes.dtype_of(dtype)
        # XLA's batch-norm expansion computes rsqrt at about f32 accuracy even for f64.
        check = {"op_class": "normalization", "tolerance_precision": "f32" if dtype == "f64" else None}
        rng = rng_for(f"batch_norm.{dtype}")
        x = random_array(rng, (4, 3, 2), dtype)
        scale, offset = random_array(rng, (3,), dtype), random_array(rng, (3,), dtype)
        mean, var = random_array(rng, (3,), dtype), random_array(rng, (3,), dtype, "positive")
        grad = random_array(rng, (4, 3, 2), dtype)

        def bn_ref_inference(xs):
            v, s, o, m, va = (wide(a) for a in xs)
            shape = (1, 3, 1)
            return [((v - m.reshape(shape)) / np.sqrt(va.reshape(shape) + eps) * s.reshape(shape) + o.reshape(shape))]
        yield CaseSpec(f"batch_norm.inference.{dtype}",
                       _one(lambda *a: hlo.BatchNormInferenceOp(*a, eps, 1).result, (4, 3, 2), np_dtype),
                       [x, scale, offset, mean, var], **check, numpy_ref=bn_ref_inference,
                       numpy_ref_name="numpy.batch_norm_inference", expect_ops=("stablehlo.batch_norm_inference",))

        def bn_ref_training(xs):
            v, s, o = (wide(a) for a in xs)
            m = v.mean(axis=(0, 2))
            va = v.var(axis=(0, 2))
            shape = (1, 3, 1)
            return [(v - m.reshape(shape)) / np.sqrt(va.reshape(shape) + eps) * s.reshape(shape) + o.reshape(shape), m, va]
        yield CaseSpec(f"batch_norm.training.{dtype}",
                       lambda a, s, o: emit(lambda *v: hlo.BatchNormTrainingOp(*v, eps, 1).results,
                                            [((4, 3, 2), np_dtype), ((3,), np_dtype), ((3,), np_dtype)], a, s, o),
                       [x, scale, offset], **check, numpy_ref=bn_ref_training,
                       numpy_ref_name="numpy.batch_norm_training", expect_ops=("stablehlo.batch_norm_training",))

        def bn_ref_grad(xs):
            v, s, m, va, g = (wide(a) for a in xs)
            shape = (1, 3, 1)
            n = v.shape[0] * v.shape[2]
            inv = 1.0 / np.sqrt(va + eps)
            xhat = (v - m.reshape(shape)) * inv.reshape(shape)
            grad_offset = g.sum(axis=(0, 2))
            grad_scale = (g * xhat).sum(axis=(0, 2))
            grad_operand = (s * inv).reshape(shape) * (g - grad_offset.reshape(shape) / n
                                                         - xhat * grad_scale.reshape(shape) / n)
            return [grad_operand, grad_scale, grad_offset]
        # batch_norm_grad is checked with the batch's own statistics, as its definition assumes.
        batch_mean = x.astype(np.float64).mean(axis=(0, 2)).astype(np_dtype)
        batch_var = x.astype(np.float64).var(axis=(0, 2)).astype(np_dtype)
        yield CaseSpec(f"batch_norm.grad.{dtype}",
                       lambda a, s, m, va, g: emit(lambda *v: hlo.BatchNormGradOp(*v, eps, 1).results,
                                                   [((4, 3, 2), np_dtype), ((3,), np_dtype), ((3,), np_dtype)], a, s, m, va, g),
                       [x, scale, batch_mean, batch_var, grad], **check, numpy_ref=bn_ref_grad,
                       numpy_ref_name="numpy.batch_norm_grad", expect_ops=("stablehlo.batch_norm_grad",))


SHAPE_DTYPES = ("f32", "f64", "s32", "u8", "pred", "bf16", "c64", "s64")


def _shape_edge_cases() -> Iterator[CaseSpec]:
    for dtype in SHAPE_DTYPES:
        for shape_name, shape in (("zero_1d", (0,)), ("zero_3d", (2, 0, 3)), ("rank0", ())):
            rng = rng_for(f"shapes.{shape_name}.{dtype}")
            if shape == ():
                a = np.asarray(random_array(rng, (1,), dtype, "nonzero")[0])
                b = np.asarray(random_array(rng, (1,), dtype, "nonzero")[0])
            else:
                a = random_array(rng, shape, dtype)
                b = random_array(rng, shape, dtype)
            if dtype == "pred":
                combine, ref, op = lax.bitwise_xor, np.logical_xor, "stablehlo.xor"
            else:
                combine, ref, op = lax.add, np.add, "stablehlo.add"
            yield CaseSpec(f"shapes.{op.split('.')[1]}_{shape_name}.{dtype}", combine, [a, b], op_class="arith",
                           numpy_ref=lambda xs, r=ref: [np.asarray(r(xs[0], xs[1])).astype(xs[0].dtype)],
                           numpy_ref_name=f"numpy.{op.split('.')[1]}", expect_ops=(op,))
            yield CaseSpec(f"shapes.compare_{shape_name}.{dtype}", lax.eq, [a, b],
                           numpy_ref=lambda xs: [np.asarray(xs[0] == xs[1])], numpy_ref_name="numpy.equal",
                           expect_ops=("stablehlo.compare",))
            if dtype != "pred":
                yield CaseSpec(f"shapes.reduce_sum_{shape_name}.{dtype}", lambda v: jnp.sum(v, dtype=v.dtype), [a],
                               op_class="reduction",
                               numpy_ref=lambda xs: [np.asarray(np.sum(wide(xs[0]))).astype(xs[0].dtype)],
                               numpy_ref_name="numpy.sum", expect_ops=() if shape == () else ("stablehlo.reduce",))
    case_id = "shapes.select_rank0_predicate.f32"
    rng = rng_for(case_id)
    yield CaseSpec(case_id, lambda p, a, b: lax.select(p, a, b), [np.array(True), random_array(rng, (3,), "f32"),
                                                                   random_array(rng, (3,), "f32")],
                   numpy_ref=lambda xs: [xs[1] if xs[0] else xs[2]], numpy_ref_name="numpy.where",
                   expect_ops=("stablehlo.select",))


# ---- large tensors (>= 64 MiB), synthesized at run time --------------------------------------------

LARGE_CASES = {
    # id suffix -> (function, input specs, numpy reference, tolerance override or None)
    "add.f32": (lambda a, b: a + b, [{"shape": [4096, 4096], "dtype": "f32"}] * 2, "add"),
    "row_sum.f32": (lambda a: jnp.sum(a, axis=1), [{"shape": [4096, 4096], "dtype": "f32"}], "row_sum_f64"),
    "transpose.f32": (lambda a: a.T, [{"shape": [4096, 4096], "dtype": "f32"}], "transpose"),
    "xor.u8": (lambda a, b: a ^ b, [{"shape": [8192, 8192], "dtype": "u8"}] * 2, "bitwise_xor"),
    "reverse_rows.s32": (lambda a: a[::-1], [{"shape": [4096, 4096], "dtype": "s32"}], "reverse_rows"),
}


def _large_cases() -> Iterator[CaseSpec]:
    from pjrt_cts.golden.tolerance import Tolerance

    for suffix, (fn, specs, reference) in LARGE_CASES.items():
        case_id = f"large.{suffix}"
        seed = rng_for(case_id).integers(1, 2**31)
        inputs = (lambda s=int(seed), sp=specs: synth.synthesize_inputs(s, sp))  # 64+ MiB: built only when needed
        # A 4096-term f32 sum accumulates rounding: a bound for that length, not a per-op one.
        tolerance = Tolerance("rel", rtol=1e-4, atol=1e-3, op_class="reduction") if reference == "row_sum_f64" else None
        yield CaseSpec(case_id, fn, inputs, op_class="arith" if reference == "add" else "exact",
                       numpy_ref=lambda xs, r=reference: synth.reference_outputs(r, xs), numpy_ref_name=reference,
                       large_seed=int(seed), large_reference=reference, tolerance=tolerance, features=["large"])


# ---- non-default layouts ----------------------------------------------------------------------------


def _layout_cases() -> Iterator[CaseSpec]:
    device = SingleDeviceSharding(jax.devices()[0])
    column_major = Format(Layout(major_to_minor=(1, 0)), device)
    for dtype in ("f32", "s32", "f64"):
        case_id = f"layout.column_major_in_out.{dtype}"
        x = random_array(rng_for(case_id), (3, 5), dtype)
        # Not elementwise: reading a buffer in the wrong layout cannot cancel out.
        yield CaseSpec(case_id, lambda v: lax.rev(v, (0,)) * 2, [x], op_class="arith",
                       numpy_ref=lambda xs: [xs[0][::-1] * 2], numpy_ref_name="numpy.flip", features=["custom_layout"],
                       jit_kwargs={"in_shardings": column_major, "out_shardings": column_major})
    case_id = "layout.column_major_input_only.f32"
    x = random_array(rng_for(case_id), (4, 6), "f32")
    yield CaseSpec(case_id, lambda v: v.sum(axis=1), [x], op_class="reduction",
                   numpy_ref=lambda xs: [xs[0].sum(axis=1)], numpy_ref_name="numpy.sum", features=["custom_layout"],
                   jit_kwargs={"in_shardings": column_major})
    rank3 = Format(Layout(major_to_minor=(2, 0, 1)), device)
    case_id = "layout.rank3_permuted.f32"
    x = random_array(rng_for(case_id), (2, 3, 4), "f32")
    yield CaseSpec(case_id, lambda v: jnp.cumsum(v, axis=2), [x], op_class="reduction",
                   numpy_ref=lambda xs: [np.cumsum(xs[0], axis=2)], numpy_ref_name="numpy.cumsum", features=["custom_layout"],
                   jit_kwargs={"in_shardings": rank3, "out_shardings": rank3})


# ---- donation -------------------------------------------------------------------------------------


def _donation_cases() -> Iterator[CaseSpec]:
    for dtype in ("f32", "s32", "f64", "bf16"):
        case_id = f"donation.alias_same_shape.{dtype}"
        x = random_array(rng_for(case_id), (4, 3), dtype)
        yield CaseSpec(case_id, lambda v: v * 2, [x], op_class="arith", numpy_ref=lambda xs: [(wide(xs[0]) * 2).astype(xs[0].dtype)],
                       numpy_ref_name="numpy.multiply", donate_argnums=(0,))
    case_id = "donation.two_of_three_args.f32"
    rng = rng_for(case_id)
    a, b, c = (random_array(rng, (3,), "f32") for _ in range(3))
    yield CaseSpec(case_id, lambda u, v, w: (u + w, v * w), [a, b, c], op_class="arith",
                   numpy_ref=lambda xs: [xs[0] + xs[2], xs[1] * xs[2]], numpy_ref_name="numpy.ops", donate_argnums=(0, 1))
    case_id = "donation.passthrough.s32"
    x = random_array(rng_for(case_id), (6,), "s32")
    yield CaseSpec(case_id, lambda v: (v, v + 1), [x], numpy_ref=lambda xs: [xs[0], xs[0] + 1],
                   numpy_ref_name="numpy.add", donate_argnums=(0,))
    case_id = "donation.dynamic_update_in_place.f32"
    rng = rng_for(case_id)
    big, small = random_array(rng, (8, 4), "f32"), random_array(rng, (2, 4), "f32")
    yield CaseSpec(case_id, lambda v, u: lax.dynamic_update_slice(v, u, (3, 0)), [big, small],
                   numpy_ref=lambda xs: [np.concatenate([xs[0][:3], xs[1], xs[0][5:]])], numpy_ref_name="numpy.setitem",
                   donate_argnums=(0,))


def cases() -> Iterator[CaseSpec]:
    yield from _legacy_cases()
    yield from _shape_edge_cases()
    yield from _large_cases()
    yield from _layout_cases()
    yield from _donation_cases()
