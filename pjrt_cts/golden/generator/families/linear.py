"""dot_general (batch dims, mixed precision), convolution, fft, cholesky and triangular_solve."""
from __future__ import annotations

from typing import Iterator

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.inputs import random_array, wide
from pjrt_cts.golden.generator.prims import emit

from jax import lax  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir.dialects import hlo  # noqa: E402 - imported after env has configured JAX

# DEFAULT precision lets a backend use its fastest mode (TF32 tensor cores on NVIDIA GPUs, ~1e-3 relative
# error), so the reference comparison would judge a precision policy, not correctness: ask for HIGHEST.
HIGHEST = lax.Precision.HIGHEST

DOT_DTYPES = ("f16", "bf16", "f32", "f64", "c64", "c128", "s8", "s16", "s32", "s64", "u8", "u32")

# name -> (lhs shape, rhs shape, dimension_numbers, einsum for numpy)
DOT_VARIANTS = {
    "matvec": ((4, 5), (5,), (((1,), (0,)), ((), ())), "ij,j->i"),
    "matmul": ((3, 4), (4, 5), (((1,), (0,)), ((), ())), "ij,jk->ik"),
    "matmul_transposed_rhs": ((3, 4), (5, 4), (((1,), (1,)), ((), ())), "ij,kj->ik"),
    "batch_matmul": ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,))), "bij,bjk->bik"),
    "batch_middle": ((3, 2, 4), (4, 2, 5), (((2,), (0,)), ((1,), (1,))), "ibj,jbk->bik"),
    "two_contracting": ((2, 3, 4), (3, 4, 5), (((1, 2), (0, 1)), ((), ())), "ijk,jkl->il"),
    "outer": ((3,), (4,), (((), ()), ((), ())), "i,j->ij"),
}


def _dot_ref(spec: str, out_dtype: np.dtype):
    def ref(xs):
        a, b = wide(xs[0]), wide(xs[1])
        if a.dtype.kind in "iu":
            a, b = a.astype(np.int64), b.astype(np.int64)  # wraps like the narrow type after the cast
        with np.errstate(all="ignore"):
            return [np.einsum(spec, a, b).astype(out_dtype)]
    return ref


def _dot_cases() -> Iterator[CaseSpec]:
    for dtype in DOT_DTYPES:
        for name, (lhs, rhs, dims, spec) in DOT_VARIANTS.items():
            if dtype not in ("f32", "f64", "s32") and name in ("batch_middle", "two_contracting", "outer"):
                continue
            case_id = f"dot.{name}.{dtype}"
            rng = rng_for(case_id)
            kind = "small" if dtype[0] in "su" else "normal"
            a, b = random_array(rng, lhs, dtype, kind), random_array(rng, rhs, dtype, kind)
            out_dtype = dtypes.dtype_of(dtype)
            yield CaseSpec(case_id, lambda x, y, d=dims: lax.dot_general(x, y, d, precision=HIGHEST), [a, b], op_class="matmul",
                           numpy_ref=_dot_ref(spec, out_dtype), numpy_ref_name="numpy.einsum",
                           expect_ops=("stablehlo.dot_general",))
    # Mixed precision: narrow inputs, wide accumulation/result (preferred_element_type).
    for src, dst in (("bf16", "f32"), ("f16", "f32"), ("s8", "s32"), ("u8", "u32"), ("f32", "f64"), ("s16", "s64"),
                     ("f8e4m3fn", "f32"), ("f8e5m2", "f32")):
        for name in ("matmul", "batch_matmul"):
            lhs, rhs, dims, spec = DOT_VARIANTS[name]
            case_id = f"dot.{name}.{src}_to_{dst}"
            rng = rng_for(case_id)
            kind = "small" if src[0] in "su" else "normal"
            a, b = random_array(rng, lhs, src, kind), random_array(rng, rhs, src, kind)
            out_dtype = dtypes.dtype_of(dst)
            yield CaseSpec(case_id, lambda x, y, d=dims, o=out_dtype: lax.dot_general(x, y, d, precision=HIGHEST, preferred_element_type=o),
                           [a, b], op_class="matmul", numpy_ref=_dot_ref(spec, out_dtype), numpy_ref_name="numpy.einsum",
                           expect_ops=("stablehlo.dot_general",), features=["mixed_precision"])


def _np_conv(lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, feature_groups, batch_groups):
    """Direct NCHW/OIHW convolution (any spatial rank) in float64/complex128/int64."""
    lhs, rhs = wide(lhs), wide(rhs)
    if lhs.dtype.kind in "iu":
        lhs, rhs = lhs.astype(np.int64), rhs.astype(np.int64)
    spatial = lhs.ndim - 2
    # lhs dilation and padding
    for axis in range(spatial):
        d = lhs_dilation[axis]
        if d > 1:
            n = lhs.shape[2 + axis]
            shape = list(lhs.shape)
            shape[2 + axis] = (n - 1) * d + 1
            spread = np.zeros(shape, lhs.dtype)
            idx = [slice(None)] * lhs.ndim
            idx[2 + axis] = slice(None, None, d)
            spread[tuple(idx)] = lhs
            lhs = spread
    lhs = np.pad(lhs, [(0, 0), (0, 0)] + [tuple(p) for p in padding])
    # rhs dilation
    for axis in range(spatial):
        d = rhs_dilation[axis]
        if d > 1:
            n = rhs.shape[2 + axis]
            shape = list(rhs.shape)
            shape[2 + axis] = (n - 1) * d + 1
            spread = np.zeros(shape, rhs.dtype)
            idx = [slice(None)] * rhs.ndim
            idx[2 + axis] = slice(None, None, d)
            spread[tuple(idx)] = rhs
            rhs = spread
    batch, in_features = lhs.shape[:2]
    out_features = rhs.shape[0]
    window = rhs.shape[2:]
    out_spatial = [(lhs.shape[2 + a] - window[a]) // strides[a] + 1 for a in range(spatial)]
    if batch_groups > 1:
        out_batch = batch // batch_groups
    else:
        out_batch = batch
    out = np.zeros((out_batch, out_features) + tuple(out_spatial), dtype=np.result_type(lhs, rhs))
    in_per_group = in_features // feature_groups
    out_per_fgroup = out_features // feature_groups
    out_per_bgroup = out_features // batch_groups
    for o in range(out_features):
        fg = o // out_per_fgroup
        bg = o // out_per_bgroup
        kernel = rhs[o]  # (in_per_group, *window)
        for pos in np.ndindex(*out_spatial):
            region = tuple(slice(p * s, p * s + w) for p, s, w in zip(pos, strides, window))
            for n in range(out_batch):
                src_n = bg * out_batch + n if batch_groups > 1 else n
                patch = lhs[(src_n, slice(fg * in_per_group, (fg + 1) * in_per_group)) + region]
                out[(n, o) + pos] = np.sum(patch * kernel)
    return out


# name -> lhs shape (N,C,spatial), rhs shape (O,I,window), strides, padding, lhs_dil, rhs_dil, feature groups, batch groups
CONV_VARIANTS = {
    "1d": ((2, 3, 9), (4, 3, 3), (1,), ((0, 0),), (1,), (1,), 1, 1),
    "1d_stride_pad": ((2, 3, 9), (4, 3, 3), (2,), ((1, 2),), (1,), (1,), 1, 1),
    "2d": ((1, 2, 6, 5), (3, 2, 3, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1), 1, 1),
    "2d_strides": ((2, 2, 7, 7), (3, 2, 3, 3), (2, 3), ((0, 0), (0, 0)), (1, 1), (1, 1), 1, 1),
    "2d_padding": ((1, 2, 5, 5), (2, 2, 3, 3), (1, 1), ((1, 1), (2, 0)), (1, 1), (1, 1), 1, 1),
    "2d_rhs_dilation": ((1, 2, 8, 8), (2, 2, 3, 3), (1, 1), ((0, 0), (0, 0)), (1, 1), (2, 2), 1, 1),
    "2d_lhs_dilation": ((1, 2, 4, 4), (2, 2, 2, 2), (1, 1), ((1, 1), (1, 1)), (2, 2), (1, 1), 1, 1),
    "2d_feature_groups": ((1, 4, 5, 5), (6, 2, 3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1), 2, 1),
    "2d_depthwise": ((2, 3, 5, 5), (3, 1, 3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1), 3, 1),
    "2d_batch_groups": ((4, 2, 5, 5), (2, 2, 3, 3), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1), 1, 2),
    "3d": ((1, 2, 4, 4, 4), (2, 2, 2, 2, 2), (1, 2, 1), ((0, 0), (1, 0), (0, 1)), (1, 1, 1), (1, 1, 1), 1, 1),
}


def _conv_cases() -> Iterator[CaseSpec]:
    for name, (lhs_shape, rhs_shape, strides, padding, lhs_dil, rhs_dil, fgc, bgc) in CONV_VARIANTS.items():
        for dtype in ("f32", "f64", "f16", "bf16") if name in ("2d", "2d_padding", "2d_feature_groups") else ("f32",):
            case_id = f"conv.{name}.{dtype}"
            rng = rng_for(case_id)
            lhs, rhs = random_array(rng, lhs_shape, dtype), random_array(rng, rhs_shape, dtype)
            fn = (lambda x, w, s=strides, p=padding, ld=lhs_dil, rd=rhs_dil, f=fgc, b=bgc: lax.conv_general_dilated(
                x, w, s, p, lhs_dilation=ld, rhs_dilation=rd, feature_group_count=f, batch_group_count=b))
            out_dtype = dtypes.dtype_of(dtype)

            def ref(xs, s=strides, p=padding, ld=lhs_dil, rd=rhs_dil, f=fgc, b=bgc, o=out_dtype):
                return [_np_conv(xs[0], xs[1], s, p, ld, rd, f, b).astype(o)]
            yield CaseSpec(case_id, fn, [lhs, rhs], op_class="matmul", numpy_ref=ref, numpy_ref_name="numpy.direct_conv",
                           expect_ops=("stablehlo.convolution",))
    for dtype in ("s32", "c64"):
        name = "2d_padding"
        lhs_shape, rhs_shape, strides, padding, lhs_dil, rhs_dil, fgc, bgc = CONV_VARIANTS[name]
        case_id = f"conv.{name}.{dtype}"
        rng = rng_for(case_id)
        lhs, rhs = random_array(rng, lhs_shape, dtype, "small"), random_array(rng, rhs_shape, dtype, "small")
        out_dtype = dtypes.dtype_of(dtype)
        yield CaseSpec(case_id, lambda x, w, s=strides, p=padding: lax.conv_general_dilated(x, w, s, p), [lhs, rhs],
                       op_class="matmul",
                       numpy_ref=lambda xs, s=strides, p=padding, o=out_dtype: [_np_conv(xs[0], xs[1], s, p, (1, 1), (1, 1), 1, 1).astype(o)],
                       numpy_ref_name="numpy.direct_conv", expect_ops=("stablehlo.convolution",))
    # NHWC / HWIO layouts of the dimension numbers.
    case_id = "conv.2d_nhwc.f32"
    rng = rng_for(case_id)
    lhs, rhs = random_array(rng, (2, 6, 6, 3), "f32"), random_array(rng, (3, 3, 3, 4), "f32")
    yield CaseSpec(case_id, lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                                                  dimension_numbers=("NHWC", "HWIO", "NHWC")),
                   [lhs, rhs], op_class="matmul",
                   numpy_ref=lambda xs: [_np_conv(xs[0].transpose(0, 3, 1, 2), xs[1].transpose(3, 2, 0, 1), (1, 1),
                                                  ((1, 1), (1, 1)), (1, 1), (1, 1), 1, 1).transpose(0, 2, 3, 1).astype(np.float32)],
                   numpy_ref_name="numpy.direct_conv", expect_ops=("stablehlo.convolution",))


FFT_VARIANTS = {
    "fft_1d": (lambda x: jax.numpy.fft.fft(x), np.fft.fft, (8,), "c"),
    "ifft_1d": (lambda x: jax.numpy.fft.ifft(x), np.fft.ifft, (8,), "c"),
    "fft_2d": (lambda x: jax.numpy.fft.fft2(x), np.fft.fft2, (4, 6), "c"),
    "ifft_2d": (lambda x: jax.numpy.fft.ifft2(x), np.fft.ifft2, (4, 6), "c"),
    "fft_3d": (lambda x: jax.numpy.fft.fftn(x), np.fft.fftn, (2, 4, 4), "c"),
    "fft_batched": (lambda x: jax.numpy.fft.fft(x, axis=-1), lambda x: np.fft.fft(x, axis=-1), (3, 8), "c"),
    "rfft_1d": (lambda x: jax.numpy.fft.rfft(x), np.fft.rfft, (10,), "r"),
    "rfft_2d": (lambda x: jax.numpy.fft.rfft2(x), np.fft.rfft2, (4, 6), "r"),
    "irfft_1d": (lambda x: jax.numpy.fft.irfft(x, n=10), lambda x: np.fft.irfft(x, n=10), (6,), "c"),
    "irfft_2d": (lambda x: jax.numpy.fft.irfft2(x, s=(4, 6)), lambda x: np.fft.irfft2(x, s=(4, 6)), (4, 4), "c"),
}


def _fft_cases() -> Iterator[CaseSpec]:
    for name, (fn, ref, shape, kind) in FFT_VARIANTS.items():
        for real, complex_ in (("f32", "c64"), ("f64", "c128")):
            dtype = complex_ if kind == "c" else real
            case_id = f"fft.{name}.{dtype}"
            x = random_array(rng_for(case_id), shape, dtype)
            if name.startswith("irfft"):
                # Hermitian-consistent input: the spectrum of a real signal.
                signal_shape = (10,) if name == "irfft_1d" else (4, 6)
                signal = random_array(rng_for(case_id), signal_shape, real)
                x = (np.fft.rfft(signal) if name == "irfft_1d" else np.fft.rfft2(signal)).astype(dtypes.dtype_of(complex_))
            yield CaseSpec(case_id, fn, [x], op_class="fft",
                           numpy_ref=lambda xs, r=ref: [r(wide(xs[0]))], numpy_ref_name=f"numpy.fft.{name}",
                           expect_ops=("stablehlo.fft",))


def _spd(rng: np.random.Generator, n: int, dtype: str, batch: tuple[int, ...] = ()) -> np.ndarray:
    a = random_array(rng, batch + (n, n), dtype)
    product = wide(a) @ np.conj(np.swapaxes(wide(a), -1, -2))
    return (product + n * np.eye(n)).astype(dtypes.dtype_of(dtype))


def _cholesky(x, lower: bool):
    return emit(lambda v: hlo.cholesky(v, lower=lower), [(x.shape, x.dtype)], x)[0]


def _triangular_solve(a, b, left_side: bool, lower: bool, unit_diagonal: bool, transpose: str):
    return emit(lambda av, bv: hlo.triangular_solve(av, bv, left_side, lower, unit_diagonal,
                                                    hlo.TransposeAttr.get(transpose)),
                [(b.shape, b.dtype)], a, b)[0]


def _np_triangular_solve(a, b, left_side, lower, unit_diagonal, transpose):
    a, b = wide(a), wide(b)
    a = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        a = a - np.diag(np.diag(a)) + np.eye(a.shape[-1])
    if transpose == "TRANSPOSE":
        a = a.T
    elif transpose == "ADJOINT":
        a = np.conj(a.T)
    return np.linalg.solve(a, b) if left_side else np.linalg.solve(a.T, b.T).T


def _linalg_cases() -> Iterator[CaseSpec]:
    for dtype in ("f32", "f64", "c64", "c128"):
        for lower in (True, False):
            case_id = f"linalg.cholesky_{'lower' if lower else 'upper'}.{dtype}"
            x = _spd(rng_for(case_id), 4, dtype)

            def ref(xs, lower=lower):
                factor = np.linalg.cholesky(wide(xs[0]))
                return [factor if lower else np.conj(factor.T)]
            yield CaseSpec(case_id, lambda v, lower=lower: _cholesky(v, lower), [x], op_class="linalg", numpy_ref=ref,
                           numpy_ref_name="numpy.linalg.cholesky", expect_ops=("stablehlo.cholesky",))
        case_id = f"linalg.cholesky_batched.{dtype}"
        x = _spd(rng_for(case_id), 3, dtype, (2,))
        yield CaseSpec(case_id, lambda v: _cholesky(v, True), [x], op_class="linalg",
                       numpy_ref=lambda xs: [np.linalg.cholesky(wide(xs[0]))], numpy_ref_name="numpy.linalg.cholesky",
                       expect_ops=("stablehlo.cholesky",))
        for left_side in (True, False):
            for lower in (True, False):
                for unit in (False, True):
                    for transpose in ("NO_TRANSPOSE", "TRANSPOSE") + (("ADJOINT",) if dtype[0] == "c" else ()):
                        if unit and transpose != "NO_TRANSPOSE":
                            continue
                        name = f"{'left' if left_side else 'right'}_{'lower' if lower else 'upper'}" \
                               f"{'_unit' if unit else ''}_{transpose.lower()}"
                        case_id = f"linalg.triangular_solve_{name}.{dtype}"
                        rng = rng_for(case_id)
                        a = random_array(rng, (4, 4), dtype)
                        a = (wide(a) * 0.3 + 3 * np.eye(4)).astype(a.dtype)  # well conditioned
                        b = random_array(rng, (4, 3) if left_side else (3, 4), dtype)
                        yield CaseSpec(
                            case_id,
                            lambda av, bv, ls=left_side, lo=lower, u=unit, t=transpose: _triangular_solve(av, bv, ls, lo, u, t),
                            [a, b], op_class="linalg",
                            numpy_ref=lambda xs, ls=left_side, lo=lower, u=unit, t=transpose: [
                                _np_triangular_solve(xs[0], xs[1], ls, lo, u, t)],
                            numpy_ref_name="numpy.linalg.solve(triangular)", expect_ops=("stablehlo.triangular_solve",))


def cases() -> Iterator[CaseSpec]:
    yield from _dot_cases()
    yield from _conv_cases()
    yield from _fft_cases()
    yield from _linalg_cases()
