"""Attribute spaces (issue 15) of rng_bit_generator, fft, cholesky, triangular_solve, while/case/if with
several carried values, argmax/argmin (variadic reduce) and map.

Ops JAX does not emit as needed (cholesky and triangular_solve lower to LAPACK custom calls on CPU,
rng_bit_generator with signed/float outputs or a u64[3] state, stablehlo.case with an index out of range,
stablehlo.if, stablehlo.map) are built with `prims.emit`.
Spec notes that shape these cases:
- rng_bit_generator: the bits are only required to be a deterministic function of the state; THREE_FRY and
  PHILOX cases keep XLA's bits (like the existing rng cases), DEFAULT cases only check that two generators
  fed the same state agree (implementation-defined algorithm).
- cholesky: the opposite output triangle is implementation-defined, so the program zeroes it (select with
  an iota mask) before returning.
- triangular_solve: only the `lower` triangle of `a` is read, so the other one holds junk; with
  unit_diagonal the diagonal must be 1 (otherwise undefined), so it is.
- case: an index outside [0, N) runs the last branch (stablehlo.case); lax.switch clamps first instead.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.families.linear import _cholesky, _spd, _triangular_solve
from pjrt_cts.golden.generator.inputs import random_array, special_values, wide
from pjrt_cts.golden.generator.prims import emit, scalar_type, tensor_type

import jax.numpy as jnp  # noqa: E402 - imported after env has configured JAX
from jax import lax  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir import ir  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir.dialects import hlo  # noqa: E402 - imported after env has configured JAX


def _dims(shape) -> str:
    return "x".join(str(d) for d in shape) if len(shape) else "scalar"


# ---- rng_bit_generator --------------------------------------------------------------------------------

RNG_SHAPES = {"r0": (), "r1a": (1,), "r1b": (7,), "r2": (3, 4), "r3": (2, 3, 5), "r2z": (0, 3)}


def _rbg(state, shape, dtype, algorithm: str):
    """stablehlo.rng_bit_generator emitted directly (any output element type, any state shape)."""
    def lower(kv):
        op = hlo.RngBitGeneratorOp(kv.type, tensor_type(shape, dtype), hlo.RngAlgorithmAttr.get(algorithm), kv)
        return list(op.results)
    return emit(lower, [(state.shape, state.dtype), (tuple(shape), np.dtype(dtype))], state)


def _state(case_id: str, size: int) -> np.ndarray:
    return rng_for(case_id).integers(1, 2**64 - 1, size=(size,), dtype=np.uint64, endpoint=True)


def _as_bits(x):
    width = np.dtype(x.dtype).itemsize * 8
    unsigned = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
    return x if np.dtype(x.dtype) == np.dtype(unsigned) else lax.bitcast_convert_type(x, unsigned)


def _rng_case(case_id, algorithm, state_size, shape, dtype, group, via_lax, chained=False):
    np_dtype = dtypes.dtype_of(dtype)
    state = _state(case_id, state_size)
    if algorithm == "DEFAULT":
        # Implementation-defined algorithm: only determinism (same state -> same state and bits) is checked.
        def fn(k, s=shape, d=np_dtype):
            s1, b1 = _rbg(k, s, d, "DEFAULT")
            s2, b2 = _rbg(k, s, d, "DEFAULT")
            return s1 == s2, _as_bits(b1) == _as_bits(b2)
        ref = lambda xs, s=shape: [np.ones(xs[0].shape, bool), np.ones(s, bool)]  # noqa: E731 - a named one-line reference function
        return CaseSpec(case_id, fn, [state], numpy_ref=ref, numpy_ref_name="determinism(all true)",
                        expect_ops=("stablehlo.rng_bit_generator",), group=group,
                        attributes={"rng_algorithm": algorithm})
    alg = {"THREE_FRY": lax.RandomAlgorithm.RNG_THREE_FRY, "PHILOX": lax.RandomAlgorithm.RNG_PHILOX}[algorithm]
    if via_lax:
        def gen(k, s, d):
            return lax.rng_bit_generator(k, s, dtype=d, algorithm=alg)
    else:
        def gen(k, s, d):
            return tuple(_rbg(k, s, d, algorithm))
    if chained:
        # The new state of one generator seeds the next: both bit tensors and the final state are results.
        def fn(k, s=shape, d=np_dtype):
            k1, b1 = gen(k, s, d)
            k2, b2 = gen(k1, s, d)
            return k2, b1, b2
    else:
        def fn(k, s=shape, d=np_dtype):
            return gen(k, s, d)
    return CaseSpec(case_id, fn, [state], expect_ops=("stablehlo.rng_bit_generator",), group=group,
                    attributes={"rng_algorithm": algorithm})


def _rng_cases() -> Iterator[CaseSpec]:
    for algorithm in ("THREE_FRY", "PHILOX"):
        alg = algorithm.lower()
        for dtype in ("u8", "u16", "u32", "u64"):
            for tag, shape in RNG_SHAPES.items():
                if tag == "r2z" and dtype != "u32":
                    continue
                case_id = f"rng_bit_generator.{alg}_state2_out{_dims(shape)}.{dtype}"
                yield _rng_case(case_id, algorithm, 2, shape, dtype, f"rng_bit_generator.{alg}_state2.{dtype}", True)
            if dtype in ("u32", "u64"):
                case_id = f"rng_bit_generator.{alg}_state2_chained_out2x3.{dtype}"
                yield _rng_case(case_id, algorithm, 2, (2, 3), dtype, f"rng_bit_generator.{alg}_state2.{dtype}",
                                True, chained=True)
        # Output element types lax.rng_bit_generator refuses (signed and floating): emitted directly.
        for dtype in ("s8", "s16", "s32", "s64", "f16", "bf16", "f32", "f64"):
            for shape in ((3, 4), (5,)):
                case_id = f"rng_bit_generator.{alg}_state2_out{_dims(shape)}.{dtype}"
                yield _rng_case(case_id, algorithm, 2, shape, dtype, f"rng_bit_generator.{alg}_state2_emitted.mixed",
                                False)
    # PHILOX with the u64[3] state (key + counter), which JAX cannot lower.
    for dtype in ("u8", "u32", "u64", "s32", "f32"):
        for shape in ((7,), (2, 3, 5), ()):
            case_id = f"rng_bit_generator.philox_state3_out{_dims(shape)}.{dtype}"
            yield _rng_case(case_id, "PHILOX", 3, shape, dtype, "rng_bit_generator.philox_state3.mixed", False)
    case_id = "rng_bit_generator.philox_state3_chained_out2x3.u32"
    yield _rng_case(case_id, "PHILOX", 3, (2, 3), "u32", "rng_bit_generator.philox_state3.mixed", False, chained=True)
    for state_size in (2, 3):
        for dtype in ("u8", "u16", "u32", "u64", "s32", "f32", "f64"):
            for shape in ((3, 4),) + (((), (2, 3, 5)) if dtype == "u32" else ()):
                case_id = f"rng_bit_generator.default_state{state_size}_out{_dims(shape)}_determinism.{dtype}"
                yield _rng_case(case_id, "DEFAULT", state_size, shape, dtype, "rng_bit_generator.default.mixed", False)


# ---- fft ------------------------------------------------------------------------------------------

# (operand batch shape, fft_length): the transformed dims are the trailing len(fft_length) ones.
FFT_SHAPES = (
    ((3,), (1,)), ((), (2,)), ((), (5,)), ((2,), (7,)), ((), (8,)), ((2, 3), (6,)), ((0,), (3,)),
    ((), (3, 5)), ((2,), (4, 4)), ((), (1, 6)), ((), (5, 1)), ((3,), (2, 7)),
    ((), (2, 3, 5)), ((2,), (3, 3, 3)), ((), (1, 2, 4)), ((), (4, 1, 3)),
)


def _np_fft(fft_type: str, lengths):
    axes = tuple(range(-len(lengths), 0))

    def ref(xs):
        x = wide(xs[0])
        if x.size == 0:
            out_shape = list(x.shape)
            if fft_type == "RFFT":
                out_shape[-1] = lengths[-1] // 2 + 1
            elif fft_type == "IRFFT":
                out_shape[-1] = lengths[-1]
            return [np.zeros(out_shape, np.float64 if fft_type == "IRFFT" else np.complex128)]
        if fft_type == "FFT":
            return [np.fft.fftn(x, axes=axes)]
        if fft_type == "IFFT":
            return [np.fft.ifftn(x, axes=axes)]
        if fft_type == "RFFT":
            return [np.fft.rfftn(x, axes=axes)]
        return [np.fft.irfftn(x, s=lengths, axes=axes)]
    return ref


def _fft_operand(case_id: str, fft_type: str, batch, lengths, real: str, cplx: str) -> np.ndarray:
    rng = rng_for(case_id)
    shape = tuple(batch) + tuple(lengths)
    if fft_type == "RFFT":
        return random_array(rng, shape, real)
    if fft_type in ("FFT", "IFFT"):
        return random_array(rng, shape, cplx)
    # IRFFT: a Hermitian-consistent spectrum (that of a real signal), last dim n // 2 + 1.
    signal = wide(random_array(rng, shape, real))
    axes = tuple(range(-len(lengths), 0))
    spectrum = np.fft.rfftn(signal, axes=axes) if signal.size else np.zeros(
        tuple(batch) + tuple(lengths[:-1]) + (lengths[-1] // 2 + 1,), np.complex128)
    if signal.size == 0:
        spectrum = spectrum  # zero-size: nothing to check for all-zero
    return spectrum.astype(dtypes.dtype_of(cplx))


def _fft_cases() -> Iterator[CaseSpec]:
    for real, cplx in (("f32", "c64"), ("f64", "c128")):
        for fft_type in ("FFT", "IFFT", "RFFT", "IRFFT"):
            dtype = real if fft_type == "RFFT" else cplx
            for batch, lengths in FFT_SHAPES:
                operand = tuple(batch) + tuple(lengths)
                if fft_type == "IRFFT":
                    operand = tuple(batch) + tuple(lengths[:-1]) + (lengths[-1] // 2 + 1,)
                case_id = f"fft.{fft_type.lower()}_{len(lengths)}d_len{_dims(lengths)}_in{_dims(operand)}.{dtype}"
                x = _fft_operand(case_id, fft_type, batch, lengths, real, cplx)
                yield CaseSpec(case_id, lambda v, t=fft_type, n=lengths: lax.fft(v, t, n), [x], op_class="fft",
                               numpy_ref=_np_fft(fft_type, lengths), numpy_ref_name=f"numpy.fft.{fft_type.lower()}n",
                               expect_ops=("stablehlo.fft",), group=f"fft.{fft_type.lower()}.{dtype}",
                               attributes={"fft_type": fft_type, "fft_length": list(lengths)})
        # real / imag of complex fft results.
        for fft_type, part, lengths, batch in (("FFT", "real", (5,), (2,)), ("FFT", "imag", (3, 4), ()),
                                               ("IFFT", "real", (2, 3), ()), ("IFFT", "imag", (7,), (2,)),
                                               ("RFFT", "real", (6,), (2,)), ("RFFT", "imag", (3, 5), ())):
            dtype = real if fft_type == "RFFT" else cplx
            case_id = f"fft.{fft_type.lower()}_{part}_len{_dims(lengths)}_in{_dims(tuple(batch) + lengths)}.{dtype}"
            x = _fft_operand(case_id, fft_type, batch, lengths, real, cplx)
            take = lax.real if part == "real" else lax.imag
            np_take = np.real if part == "real" else np.imag
            base = _np_fft(fft_type, lengths)
            yield CaseSpec(case_id, lambda v, t=fft_type, n=lengths, f=take: f(lax.fft(v, t, n)), [x], op_class="fft",
                           numpy_ref=lambda xs, b=base, f=np_take: [f(b(xs)[0])],
                           numpy_ref_name=f"numpy.fft.{fft_type.lower()}n+{part}",
                           expect_ops=("stablehlo.fft", f"stablehlo.{part}"), group=f"fft.{part}_of_fft.{cplx}",
                           attributes={"fft_type": fft_type, "fft_length": list(lengths)})


# ---- cholesky --------------------------------------------------------------------------------------

CHOLESKY_SHAPES = ((), 1), ((), 2), ((), 3), ((), 5), ((2,), 3), ((2, 2), 2), ((0,), 3)


def _masked_cholesky(x, lower: bool):
    """stablehlo.cholesky with the implementation-defined opposite triangle zeroed."""
    factor = _cholesky(x, lower)
    n = x.shape[-1]
    rows = lax.broadcasted_iota(np.int32, x.shape, x.ndim - 2)
    cols = lax.broadcasted_iota(np.int32, x.shape, x.ndim - 1)
    keep = rows >= cols if lower else rows <= cols
    del n
    return lax.select(keep, factor, jnp.zeros_like(factor))


def _np_cholesky(lower: bool):
    def ref(xs):
        a = wide(xs[0])
        if a.size == 0:
            return [a]
        factor = np.linalg.cholesky(a)
        return [factor if lower else np.conj(np.swapaxes(factor, -1, -2))]
    return ref


def _cholesky_cases() -> Iterator[CaseSpec]:
    for dtype in ("f32", "f64", "c64", "c128"):
        for batch, n in CHOLESKY_SHAPES:
            if dtype != "f32" and (n in (2,) and not batch or batch == (0,)):
                continue
            for lower in (True, False):
                shape = tuple(batch) + (n, n)
                case_id = f"linalg.cholesky_{'lower' if lower else 'upper'}_in{_dims(shape)}.{dtype}"
                if batch == (0,):
                    x = np.zeros(shape, dtypes.dtype_of(dtype))
                else:
                    x = _spd(rng_for(case_id), n, dtype, tuple(batch))
                yield CaseSpec(case_id, lambda v, lo=lower: _masked_cholesky(v, lo), [x], op_class="linalg",
                               numpy_ref=_np_cholesky(lower), numpy_ref_name="numpy.linalg.cholesky",
                               expect_ops=("stablehlo.cholesky",), group=f"linalg.cholesky.{dtype}",
                               attributes={"lower": lower})


# ---- triangular_solve ------------------------------------------------------------------------------


def _np_trisolve(left_side: bool, lower: bool, unit: bool, transpose: str):
    def ref(xs):
        a, b = wide(xs[0]), wide(xs[1])
        m = a.shape[-1]
        a = np.tril(a) if lower else np.triu(a)
        if unit:
            a = a * (1 - np.eye(m)) + np.eye(m)
        if transpose == "TRANSPOSE":
            a = np.swapaxes(a, -1, -2)
        elif transpose == "ADJOINT":
            a = np.conj(np.swapaxes(a, -1, -2))
        if left_side:  # op(a) x = b
            return [np.linalg.solve(a, b)]
        # x op(a) = b  <=>  op(a)^T x^T = b^T
        return [np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)]
    return ref


def _trisolve_inputs(case_id: str, dtype: str, batch, m: int, k: int, left_side: bool, lower: bool, unit: bool):
    rng = rng_for(case_id)
    a = wide(random_array(rng, tuple(batch) + (m, m), dtype))
    eye = np.eye(m)
    # Used triangle: small off-diagonal values, diagonal ~3 (well conditioned) or exactly 1 (unit_diagonal:
    # the spec lets an implementation assume it). The other triangle is junk: it must not be read.
    tri = np.tril(np.ones((m, m)), -1) if lower else np.triu(np.ones((m, m)), 1)
    junk = 1 - tri - eye
    diag = eye * (1.0 if unit else 3.0 + 0.5 * np.abs(a.real))
    a = a * 0.3 * tri + a * 5.0 * junk + diag
    b = random_array(rng, tuple(batch) + ((m, k) if left_side else (k, m)), dtype)
    return [a.astype(dtypes.dtype_of(dtype)), b]


TRANSPOSE_TOKENS = {"NO_TRANSPOSE": "notrans", "TRANSPOSE": "trans", "ADJOINT": "adjoint"}


def _trisolve_case(dtype, batch, m, k, left_side, lower, unit, transpose, group):
    a_shape = tuple(batch) + (m, m)
    b_shape = tuple(batch) + ((m, k) if left_side else (k, m))
    name = (f"{'left' if left_side else 'right'}_{'lower' if lower else 'upper'}_"
            f"{'unitdiag' if unit else 'diag'}_{TRANSPOSE_TOKENS[transpose]}_a{_dims(a_shape)}_b{_dims(b_shape)}")
    case_id = f"linalg.trisolve_{name}.{dtype}"
    inputs = _trisolve_inputs(case_id, dtype, batch, m, k, left_side, lower, unit)
    return CaseSpec(case_id,
                    lambda av, bv, ls=left_side, lo=lower, u=unit, t=transpose: _triangular_solve(av, bv, ls, lo, u, t),
                    inputs, op_class="linalg", numpy_ref=_np_trisolve(left_side, lower, unit, transpose),
                    numpy_ref_name="numpy.linalg.solve(triangular)", expect_ops=("stablehlo.triangular_solve",),
                    group=group, attributes={"left_side": left_side, "lower": lower, "unit_diagonal": unit,
                                             "transpose_a": transpose})


def _trisolve_cases() -> Iterator[CaseSpec]:
    for dtype in ("f32", "f64", "c64", "c128"):
        for left_side in (True, False):
            for lower in (True, False):
                for unit in (False, True):
                    for transpose in ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"):
                        yield _trisolve_case(dtype, (), 4, 3, left_side, lower, unit, transpose,
                                             f"linalg.triangular_solve.{dtype}")
    # Batch dimensions and edge shapes (1x1 a, one right-hand side), f32 and c64.
    for dtype in ("f32", "c64"):
        for batch, m, k in (((2,), 3, 2), ((2, 2), 2, 3), ((), 1, 1), ((), 5, 1)):
            for left_side, lower, unit, transpose in ((True, True, False, "NO_TRANSPOSE"),
                                                      (False, False, False, "TRANSPOSE"),
                                                      (True, False, True, "ADJOINT")):
                yield _trisolve_case(dtype, batch, m, k, left_side, lower, unit, transpose,
                                     f"linalg.triangular_solve_shapes.{dtype}")


# ---- while / case / if with several values ---------------------------------------------------------

def _while_fn(carry_set: str, np_dtype):
    def fn(n, x, *rest):
        if carry_set == "c2":
            def body(c):
                i, v = c
                return i + 1, v * np_dtype.type(2) + np_dtype.type(1)
            return lax.while_loop(lambda c: c[0] < n, body, (jnp.int32(0), x))
        if carry_set == "c3":
            y = rest[0]

            def body(c):
                i, v, acc = c
                return i + 1, v + i.astype(np_dtype), acc + (2 * i).astype(np.int64)
            return lax.while_loop(lambda c: c[0] < n, body, (jnp.int32(0), x, y))
        y, z, w = rest

        def body(c):
            i, v, f, p, u = c
            return (i + 1, v - np_dtype.type(3), f * 0.5 + 1.0, jnp.logical_not(p), u + np.uint8(77))
        return lax.while_loop(lambda c: c[0] < n, body, (jnp.int32(0), x, y, z, w))
    return fn


def _np_while(carry_set: str):
    def ref(xs):
        n = int(xs[0])
        x = xs[1].copy()
        rest = [r.copy() for r in xs[2:]]
        with np.errstate(all="ignore"):
            i = 0
            while i < n:
                if carry_set == "c2":
                    x = (x * x.dtype.type(2) + x.dtype.type(1)).astype(x.dtype)
                elif carry_set == "c3":
                    x = (x + x.dtype.type(i)).astype(x.dtype)
                    rest[0] = rest[0] + np.int64(2 * i)
                else:
                    x = (x - x.dtype.type(3)).astype(x.dtype)
                    rest[0] = rest[0] * 0.5 + 1.0
                    rest[1] = np.logical_not(rest[1])
                    rest[2] = (rest[2] + np.uint8(77)).astype(np.uint8)
                i += 1
        return [np.int32(max(n, 0))] + [x] + rest
    return ref


def _while_cases() -> Iterator[CaseSpec]:
    for dtype in ("f32", "f64", "s32", "s8", "u32"):
        np_dtype = dtypes.dtype_of(dtype)
        for carry_set in ("c2", "c3", "c5"):
            for trips in ((0, 1, 4) if dtype == "f32" else (0, 3) if dtype == "s32" else (4,)):
                case_id = f"control.while_{carry_set}_trips{trips}.{dtype}"
                rng = rng_for(case_id)
                kind = "small" if dtype[0] in "su" else "normal"
                inputs = [np.int32(trips), random_array(rng, (3,) if carry_set != "c3" else (2, 3), dtype, kind)]
                if carry_set == "c3":
                    inputs.append(np.int64(rng.integers(-50, 50)) or np.int64(7))
                elif carry_set == "c5":
                    inputs += [random_array(rng, (2,), "f64"), random_array(rng, (2,), "pred"),
                               np.uint8(rng.integers(1, 255))]
                inputs = [np.asarray(v) for v in inputs]
                yield CaseSpec(case_id, _while_fn(carry_set, np_dtype), inputs, op_class="arith",
                               numpy_ref=_np_while(carry_set), numpy_ref_name="numpy.loop",
                               expect_ops=("stablehlo.while",), zero_inputs_ok=(0,),
                               group=f"control.while_multi_carry.{dtype}",
                               attributes={"num_carried": int(carry_set[1:]), "trip_count": trips})
    # A float-dependent exit condition: halve until every |x| < 1 (trip count differs per input).
    for dtype in ("f32", "f64"):
        case_id = f"control.while_c2_float_cond.{dtype}"
        x = (random_array(rng_for(case_id), (4,), dtype) * 37).astype(dtypes.dtype_of(dtype))

        def halve(v):
            def body(c):
                k, u = c
                return k + 1, u * 0.5
            return lax.while_loop(lambda c: jnp.max(jnp.abs(c[1])) >= 1.0, body, (jnp.int32(0), v))

        def halve_ref(xs):
            k, u = 0, xs[0].copy()
            while np.max(np.abs(u)) >= 1.0:
                k, u = k + 1, (u * 0.5).astype(u.dtype)
            return [np.int32(k), u]
        yield CaseSpec(case_id, halve, [x], numpy_ref=halve_ref, numpy_ref_name="numpy.loop",
                       expect_ops=("stablehlo.while",), group=f"control.while_multi_carry.{dtype}",
                       attributes={"num_carried": 2, "trip_count": "data_dependent"})


def _switch_branches(n: int, np_dtype):
    one = np_dtype.type(1)
    fns = [lambda v, s: (v + one, s + 1), lambda v, s: (v * v, s * 2), lambda v, s: (-v, s - 3),
           lambda v, s: (v - one, s * s), lambda v, s: (v * np_dtype.type(3), -s)]
    return fns[:n]


def _np_branch(i: int, v: np.ndarray, s: np.ndarray):
    one = v.dtype.type(1)
    with np.errstate(all="ignore"):
        out = [(v + one, s + 1), (v * v, s * 2), (-v, s - 3), (v - one, s * s), (v * v.dtype.type(3), -s)][i]
    return [np.asarray(out[0]).astype(v.dtype), np.asarray(out[1]).astype(s.dtype)]


def _switch_cases() -> Iterator[CaseSpec]:
    """lax.switch: several branches, two results each; JAX clamps the index before stablehlo.case."""
    for dtype in ("f32", "s32", "f64", "c64"):
        np_dtype = dtypes.dtype_of(dtype)
        for n in (3, 5):
            indices = (-1, 0, 1, n - 1, n, 1000) if dtype == "f32" else (-1, n - 1, n)
            for index in indices:
                case_id = f"control.switch_{n}branches_index{'m' if index < 0 else ''}{abs(index)}.{dtype}"
                rng = rng_for(case_id)
                v = random_array(rng, (2, 3), dtype, "small")
                s = np.int32(rng.integers(-20, 20))
                branches = _switch_branches(n, np_dtype)
                yield CaseSpec(case_id, lambda i, a, b, br=branches: lax.switch(i, br, a, b),
                               [np.int32(index), v, np.asarray(s, np.int32)],
                               numpy_ref=lambda xs, n=n: _np_branch(int(np.clip(xs[0], 0, n - 1)), xs[1], xs[2]),
                               numpy_ref_name="numpy.switch(clamped)", expect_ops=("stablehlo.case",),
                               zero_inputs_ok=(0, 2), group=f"control.switch_clamped.{dtype}",
                               attributes={"num_branches": n, "index": index})


def _emitted_case(n: int, index, v, s):
    """stablehlo.case with N branches as written (no clamp): out of range runs the last branch."""
    np_dtype = np.dtype(v.dtype)

    def lower(iv, vv, sv):
        c1 = hlo.constant(ir.DenseElementsAttr.get(np.full(v.shape, 1, np_dtype)))
        c3 = hlo.constant(ir.DenseElementsAttr.get(np.full(v.shape, 3, np_dtype)))
        k1 = hlo.constant(ir.DenseElementsAttr.get(np.array(1, np.int32)))
        k2 = hlo.constant(ir.DenseElementsAttr.get(np.array(2, np.int32)))
        k3 = hlo.constant(ir.DenseElementsAttr.get(np.array(3, np.int32)))
        op = hlo.CaseOp([vv.type, sv.type], iv, n)
        bodies = [lambda: (hlo.add(vv, c1), hlo.add(sv, k1)), lambda: (hlo.multiply(vv, vv), hlo.multiply(sv, k2)),
                  lambda: (hlo.negate(vv), hlo.subtract(sv, k3)), lambda: (hlo.subtract(vv, c1), hlo.multiply(sv, sv)),
                  lambda: (hlo.multiply(vv, c3), hlo.negate(sv))]
        for b in range(n):
            with ir.InsertionPoint(op.regions[b].blocks.append()):
                # Constants are defined outside; the branch regions capture them implicitly.
                hlo.return_(list(bodies[b]()))
        return list(op.results)
    return emit(lower, [(v.shape, v.dtype), (s.shape, s.dtype)], index, v, s)


def _emitted_case_cases() -> Iterator[CaseSpec]:
    big = np.iinfo(np.int32)
    for dtype in ("f32", "s32", "f64"):
        np_dtype = dtypes.dtype_of(dtype)
        for n in (2, 3, 5):
            indices = (0, n - 1, -1, n, 77, int(big.min), int(big.max)) if dtype == "f32" else (-1, n)
            for index in indices:
                token = ("m" if index < 0 else "") + ("min" if index == big.min else "max" if index == big.max
                                                     else str(abs(index)))
                case_id = f"control.case_{n}branches_index{token}_default_last.{dtype}"
                rng = rng_for(case_id)
                v = random_array(rng, (3,), dtype, "small")
                s = np.asarray(rng.integers(-20, 20), np.int32)
                expected = index if 0 <= index < n else n - 1
                yield CaseSpec(case_id, lambda i, a, b, n=n: tuple(_emitted_case(n, i, a, b)),
                               [np.int32(index), v, s],
                               numpy_ref=lambda xs, e=expected: _np_branch(e, xs[1], xs[2]),
                               numpy_ref_name="numpy.switch(out of range -> last)", expect_ops=("stablehlo.case",),
                               zero_inputs_ok=(0, 2), group=f"control.case_emitted.{dtype}",
                               attributes={"num_branches": n, "index": index})
        del np_dtype


def _emitted_if(p, values):
    """stablehlo.if returning every value: true -> (v * 2, s + 1, ...), false -> (v - 1, s * 3, ...)."""
    def lower(pv, *vs):
        op = hlo.IfOp([v.type for v in vs], pv)
        def consts(x, c):
            return hlo.constant(ir.DenseElementsAttr.get(np.full(x.shape, c, x.dtype)))
        with ir.InsertionPoint(op.true_branch.blocks.append()):
            hlo.return_([hlo.not_(v) if x.dtype == np.bool_ else hlo.multiply(v, consts(x, 2)) if k == 0
                         else hlo.add(v, consts(x, 1)) for k, (v, x) in enumerate(zip(vs, values))])
        with ir.InsertionPoint(op.false_branch.blocks.append()):
            hlo.return_([v if x.dtype == np.bool_ else hlo.subtract(v, consts(x, 1)) if k == 0
                         else hlo.multiply(v, consts(x, 3)) for k, (v, x) in enumerate(zip(vs, values))])
        return list(op.results)
    return emit(lower, [(x.shape, x.dtype) for x in values], p, *values)


def _np_if(xs):
    p, values = bool(xs[0]), xs[1:]
    out = []
    with np.errstate(all="ignore"):
        for k, x in enumerate(values):
            if x.dtype == np.bool_:
                out.append(~x if p else x)
            elif k == 0:
                out.append((x * x.dtype.type(2) if p else x - x.dtype.type(1)).astype(x.dtype))
            else:
                out.append((x + x.dtype.type(1) if p else x * x.dtype.type(3)).astype(x.dtype))
    return out


def _if_cases() -> Iterator[CaseSpec]:
    # Complex operands are left to control.cond_tuple: the branch constants of this emitter are real-only.
    value_sets = {"r2": ("{d}", "s32"), "r3": ("{d}", "s64", "pred"), "r4": ("{d}", "s32", "pred", "{d}")}
    for dtype in ("f32", "s32", "f64"):
        for name, types in value_sets.items():
            for flag in (True, False):
                case_id = f"control.if_{name}_pred{str(flag).lower()}.{dtype}"
                rng = rng_for(case_id)
                shapes = [(2, 3), (), (4,), (1,)]
                values = [np.asarray(random_array(rng, shapes[k], t.format(d=dtype), "small"))
                          for k, t in enumerate(types)]
                yield CaseSpec(case_id, lambda p, *vs: tuple(_emitted_if(p, vs)), [np.array(flag)] + values,
                               numpy_ref=_np_if, numpy_ref_name="numpy.where", expect_ops=("stablehlo.if",),
                               zero_inputs_ok=(0,), group=f"control.if_emitted.{dtype}",
                               attributes={"num_results": len(types), "pred": flag})
    # lax.cond with tuples (stablehlo.case on the predicate converted to an index).
    for dtype in ("f32", "s32", "c64", "bf16"):
        for flag in (True, False):
            case_id = f"control.cond_tuple3_pred{str(flag).lower()}.{dtype}"
            rng = rng_for(case_id)
            values = [random_array(rng, (3,), dtype, "small"), np.asarray(np.int32(rng.integers(1, 9))),
                      random_array(rng, (2, 2), "pred")]

            def cond(p, a, b, c):
                return lax.cond(p, lambda t: (t[0] * 2, t[1] + 1, ~t[2]), lambda t: (t[0] - 1, t[1] * 3, t[2]), (a, b, c))
            yield CaseSpec(case_id, cond, [np.array(flag)] + values, numpy_ref=_np_if, numpy_ref_name="numpy.where",
                           expect_ops=("stablehlo.case",), zero_inputs_ok=(0,), group=f"control.cond_tuple.{dtype}",
                           attributes={"num_results": 3, "pred": flag})


# ---- argmax / argmin (variadic reduce) -------------------------------------------------------------

ARG_AXES = (((6,), 0), ((4, 5), 0), ((4, 5), 1), ((2, 3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), 2))


def _arg_input(case_id: str, shape, axis: int, dtype: str) -> np.ndarray:
    """Many ties; for floats also +-0, +-inf and at most one NaN per reduced row (two NaNs would make the
    winner depend on the reduction order: XLA's comparator keeps whichever NaN it sees first)."""
    rng = rng_for(case_id)
    np_dtype = dtypes.dtype_of(dtype)
    if dtype[0] in "su":
        values = random_array(rng, shape, dtype, "small")
        if dtype in ("s8", "u8", "s64", "u32"):
            info = np.iinfo(np_dtype)
            extremes = rng.random(shape) < 0.15
            values = np.where(extremes, np.where(rng.random(shape) < 0.5, info.min, info.max), values).astype(np_dtype)
        return values
    grid = np.array([-2.0, -1.0, -0.0, 0.0, 1.0, 2.0, 0.5, np.inf, -np.inf])
    values = rng.choice(grid, size=shape)
    moved = np.moveaxis(values, axis, -1)
    for row in np.ndindex(*moved.shape[:-1]):
        if rng.random() < 0.4:
            moved[row + (int(rng.integers(moved.shape[-1])),)] = np.nan
    values = np.moveaxis(moved, -1, axis)
    if not np.any(values != 0):
        values.flat[0] = 1.0
    return values.astype(np_dtype)


def _np_arg(name: str, axis: int, index_dtype):
    def ref(xs):
        x = xs[0]
        if x.dtype.kind not in "iub":
            x = x.astype(np.float64)
        fn = np.argmax if name == "argmax" else np.argmin
        return [fn(x, axis=axis).astype(index_dtype)]
    return ref


def _argminmax_cases() -> Iterator[CaseSpec]:
    for dtype in ("f32", "f64", "bf16", "f16", "s8", "s32", "u8", "u32", "s64"):
        for name in ("argmax", "argmin"):
            for shape, axis in ARG_AXES:
                if dtype != "f32" and (shape, axis) not in (((4, 5), 0), ((4, 5), 1), ((2, 3, 4), 1)):
                    continue
                for index_dtype in (("s32", "s64") if dtype == "f32" else ("s32",)):
                    np_index = dtypes.dtype_of(index_dtype)
                    case_id = f"reduce.variadic_{name}_in{_dims(shape)}_dim{axis}_idx{index_dtype}.{dtype}"
                    x = _arg_input(case_id, shape, axis, dtype)
                    op = lax.argmax if name == "argmax" else lax.argmin
                    yield CaseSpec(case_id, lambda v, o=op, a=axis, d=np_index: o(v, a, d), [x],
                                   numpy_ref=_np_arg(name, axis, np_index), numpy_ref_name=f"numpy.{name}",
                                   expect_ops=("stablehlo.reduce",), features=["special_values"] if dtype[0] in "fb" else [],
                                   group=f"reduce.variadic_{name}.{dtype}",
                                   attributes={"dimensions": [axis], "index_type": index_dtype})


# ---- map -------------------------------------------------------------------------------------------

def _emitted_map(body: str, args):
    """stablehlo.map over every dimension with a scalar computation."""
    x0 = args[0]
    np_dtype = np.dtype(x0.dtype)

    def lower(*vs):
        op = hlo.MapOp(vs[0].type, list(vs), list(range(x0.ndim)))
        scalar = scalar_type(np_dtype)
        block = op.computation.blocks.append(*([scalar] * len(vs)))
        with ir.InsertionPoint(block):
            a = block.arguments
            if body == "sqplus1":
                one = hlo.constant(ir.DenseElementsAttr.get(np.array(1, np_dtype)))
                out = hlo.add(hlo.multiply(a[0], a[0]), one)
            elif body == "not":
                out = hlo.not_(a[0])
            elif body == "add":
                out = hlo.add(a[0], a[1])
            elif body == "max":
                out = hlo.maximum(a[0], a[1])
            elif body == "xor":
                out = hlo.xor(a[0], a[1])
            elif body == "sub":
                out = hlo.subtract(a[0], a[1])
            elif body == "fma":
                out = hlo.add(hlo.multiply(a[0], a[1]), a[2])
            elif body == "select":  # a0 > a1 ? a2 : a1
                gt = hlo.compare(a[0], a[1], hlo.ComparisonDirectionAttr.get("GT"))
                out = hlo.select(gt, a[2], a[1])
            else:
                raise ValueError(body)
            hlo.return_([out])
        return list(op.results)
    return emit(lower, [(x0.shape, x0.dtype)], *args)[0]


MAP_BODIES = {"sqplus1": 1, "not": 1, "add": 2, "max": 2, "xor": 2, "sub": 2, "fma": 3, "select": 3}


def _np_map(body: str):
    def ref(xs):
        with np.errstate(all="ignore"):
            t = xs[0].dtype
            w = [wide(x) for x in xs]
            if body == "sqplus1":
                out = w[0] * w[0] + 1
            elif body == "not":
                out = np.logical_not(w[0]) if t == np.bool_ else ~w[0]
            elif body == "add":
                out = np.logical_or(w[0], w[1]) if t == np.bool_ else w[0] + w[1]
            elif body == "max":
                out = np.maximum(w[0], w[1])
            elif body == "xor":
                out = w[0] ^ w[1]
            elif body == "sub":
                out = w[0] - w[1]
            elif body == "fma":
                out = w[0] * w[1] + w[2]
            else:
                out = np.where(w[0] > w[1], w[2], w[1])
            return [np.asarray(out).astype(t)]
    return ref


MAP_SHAPES = ((), (5,), (2, 3), (2, 2, 3), (0, 3))


def _map_cases() -> Iterator[CaseSpec]:
    plan = {"f32": ("sqplus1", "max", "sub", "fma", "select"), "f64": ("sqplus1", "fma"), "s32": ("sqplus1", "sub", "select"),
            "u8": ("add", "xor"), "bf16": ("max", "select"), "pred": ("not", "xor"), "s64": ("max",), "c64": ("add", "fma")}
    for dtype, bodies in plan.items():
        for body in bodies:
            for shape in (MAP_SHAPES if dtype == "f32" else ((5,), (2, 2, 3))):
                arity = MAP_BODIES[body]
                case_id = f"misc.map_{body}_ar{arity}_dims{''.join(str(d) for d in range(len(shape))) or 'none'}_in{_dims(shape)}.{dtype}"
                rng = rng_for(case_id)
                kind = "small" if dtype[0] in "su" else "normal"
                args = [np.asarray(random_array(rng, shape, dtype, kind)) for _ in range(arity)]
                if any(a.size and not np.any(a) for a in args):
                    continue
                yield CaseSpec(case_id, lambda *vs, b=body: _emitted_map(b, vs), args,
                               # complex multiply-add rounds several real products: the complex-arith class
                               op_class=("exact" if body in ("max", "select", "not", "xor") else
                                         "transcendental" if dtype[0] == "c" else "arith"),
                               numpy_ref=_np_map(body), numpy_ref_name=f"numpy.{body}", expect_ops=("stablehlo.map",),
                               group=f"misc.map_attrs.{dtype}", attributes={"dimensions": list(range(len(shape)))})


def cases() -> Iterator[CaseSpec]:
    yield from _rng_cases()
    yield from _fft_cases()
    yield from _cholesky_cases()
    yield from _trisolve_cases()
    yield from _while_cases()
    yield from _switch_cases()
    yield from _emitted_case_cases()
    yield from _if_cases()
    yield from _argminmax_cases()
    yield from _map_cases()
