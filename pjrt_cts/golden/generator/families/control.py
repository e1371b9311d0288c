"""while/if/case, rng_bit_generator, tuples and multiple results."""
from __future__ import annotations

from typing import Iterator

import numpy as np

from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.inputs import random_array
from pjrt_cts.golden.generator.prims import emit

import jax.numpy as jnp  # noqa: E402 - imported after env has configured JAX
from jax import lax  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir import ir  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir.dialects import hlo  # noqa: E402 - imported after env has configured JAX


def _np_collatz_steps(n: np.ndarray) -> np.ndarray:
    steps = np.zeros_like(n)
    for index, value in np.ndenumerate(n):
        count = 0
        while value != 1:
            value = value // 2 if value % 2 == 0 else 3 * value + 1
            count += 1
        steps[index] = count
    return steps


def _control_cases() -> Iterator[CaseSpec]:
    for dtype in ("f32", "f64", "s32", "bf16"):
        case_id = f"control.fori_loop.{dtype}"
        x = random_array(rng_for(case_id), (4,), dtype, "small")
        yield CaseSpec(case_id, lambda v: lax.fori_loop(0, 5, lambda i, acc: acc * 2 + v, v), [x],
                       op_class="arith", numpy_ref=lambda xs: [_np_fori(xs[0])], numpy_ref_name="numpy.loop",
                       expect_ops=("stablehlo.while",))
    case_id = "control.while_data_dependent.s32"
    n = np.array([6, 7, 27, 1, 12], dtype=np.int32)

    def collatz(values):
        def one(value):
            def body(state):
                v, c = state
                return jnp.where(v % 2 == 0, v // 2, 3 * v + 1), c + 1
            return lax.while_loop(lambda s: s[0] != 1, body, (value, jnp.int32(0)))[1]
        return jax.vmap(one)(values)
    yield CaseSpec(case_id, collatz, [n], numpy_ref=lambda xs: [_np_collatz_steps(xs[0])], numpy_ref_name="numpy.collatz",
                   expect_ops=("stablehlo.while",))
    for dtype in ("f32", "s32", "f64"):
        case_id = f"control.if.{dtype}"
        rng = rng_for(case_id)
        x = random_array(rng, (3, 2), dtype, "small")
        for flag in (True, False):
            pred = np.array(flag)
            yield CaseSpec(f"control.if_{str(flag).lower()}.{dtype}", _emitted_if, [pred, x],
                           numpy_ref=lambda xs: [xs[1] * 3 if xs[0] else xs[1] - 1], numpy_ref_name="numpy.where",
                           expect_ops=("stablehlo.if",), zero_inputs_ok=(0,))
            yield CaseSpec(f"control.cond_{str(flag).lower()}.{dtype}",
                           lambda p, v: lax.cond(p, lambda a: a * 3, lambda a: a - 1, v), [pred, x],
                           numpy_ref=lambda xs: [xs[1] * 3 if xs[0] else xs[1] - 1], numpy_ref_name="numpy.where",
                           expect_ops=("stablehlo.case",), zero_inputs_ok=(0,))
        for index in (0, 2, 5):
            selector = np.array(index, dtype=np.int32)
            branches = [lambda a: a + 1, lambda a: a * a, lambda a: -a]
            yield CaseSpec(f"control.case_{index}.{dtype}", lambda i, v: lax.switch(i, branches, v), [selector, x],
                           numpy_ref=lambda xs, b=branches: [_np_switch(xs[0], xs[1])], numpy_ref_name="numpy.switch",
                           expect_ops=("stablehlo.case",), zero_inputs_ok=(0,))
    case_id = "control.scan_cumprod.f64"
    x = random_array(rng_for(case_id), (6,), "f64", "small")
    yield CaseSpec(case_id, lambda v: lax.scan(lambda c, a: (c * a, c * a), 1.0, v)[1], [x], op_class="arith",
                   numpy_ref=lambda xs: [np.cumprod(xs[0])], numpy_ref_name="numpy.cumprod", expect_ops=("stablehlo.while",))
    case_id = "control.nested_loop_cond.s64"
    x = random_array(rng_for(case_id), (5,), "s64", "small")

    def nested(v):
        def outer(i, acc):
            return lax.cond(i % 2 == 0, lambda a: lax.fori_loop(0, 3, lambda j, b: b + j, a), lambda a: a * 2, acc)
        return lax.fori_loop(0, 4, outer, v)

    def nested_ref(xs):
        acc = xs[0].copy()
        for i in range(4):
            acc = acc + 3 if i % 2 == 0 else acc * 2
        return [acc]
    yield CaseSpec(case_id, nested, [x], numpy_ref=nested_ref, numpy_ref_name="numpy.loop",
                   expect_ops=("stablehlo.while", "stablehlo.case"))
    case_id = "control.map_rows.f32"
    x = random_array(rng_for(case_id), (4, 3), "f32")
    yield CaseSpec(case_id, lambda v: lax.map(lambda row: jnp.sort(row) * 2, v), [x],
                   numpy_ref=lambda xs: [np.sort(xs[0], axis=1) * 2], numpy_ref_name="numpy.sort",
                   expect_ops=("stablehlo.while", "stablehlo.sort"))


def _emitted_if(p, v):
    """stablehlo.if (lax.cond lowers to stablehlo.case): true -> v * 3, false -> v - 1."""
    def lower(pv, vv):
        three = hlo.constant(ir.DenseElementsAttr.get(np.full(v.shape, 3, v.dtype)))
        one = hlo.constant(ir.DenseElementsAttr.get(np.full(v.shape, 1, v.dtype)))
        op = hlo.IfOp([vv.type], pv)
        with ir.InsertionPoint(op.true_branch.blocks.append()):
            hlo.return_([hlo.multiply(vv, three)])
        with ir.InsertionPoint(op.false_branch.blocks.append()):
            hlo.return_([hlo.subtract(vv, one)])
        return list(op.results)
    return emit(lower, [(v.shape, v.dtype)], p, v)[0]


def _np_fori(v: np.ndarray) -> np.ndarray:
    acc = v.astype(np.float64) if v.dtype.kind == "f" or v.dtype.name == "bfloat16" else v.copy()
    for _ in range(5):
        acc = acc * 2 + v.astype(acc.dtype)
    return acc.astype(v.dtype)


def _np_switch(index: np.ndarray, v: np.ndarray) -> np.ndarray:
    i = int(np.clip(index, 0, 2))  # lax.switch clamps the index
    return [v + 1, v * v, -v][i]


def _rng_cases() -> Iterator[CaseSpec]:
    algorithms = {"three_fry": (lax.RandomAlgorithm.RNG_THREE_FRY, (2,)),
                  "philox": (lax.RandomAlgorithm.RNG_PHILOX, (2,))}
    for name, (algorithm, key_shape) in algorithms.items():
        for dtype, shape in (("u32", (4, 5)), ("u64", (7,)), ("u8", (16,)), ("s32", (3, 3)), ("f32", (8,))):
            case_id = f"rng_bit_generator.{name}.{dtype}"
            key = np.random.default_rng(len(case_id)).integers(1, 2**63, size=key_shape, dtype=np.uint64)
            np_dtype = {"u32": np.uint32, "u64": np.uint64, "u8": np.uint8, "s32": np.uint32, "f32": np.uint32}[dtype]

            def fn(k, a=algorithm, s=shape, d=np_dtype, out=dtype):
                new_key, bits = lax.rng_bit_generator(k, s, dtype=d, algorithm=a)
                if out == "s32":
                    bits = lax.bitcast_convert_type(bits, np.int32)
                elif out == "f32":
                    # The usual bits -> [0, 1) float construction.
                    bits = lax.bitcast_convert_type((bits >> 9) | np.uint32(0x3F800000), np.float32) - 1.0
                return new_key, bits
            yield CaseSpec(case_id, fn, [key], expect_ops=("stablehlo.rng_bit_generator",))


def _tuple_cases() -> Iterator[CaseSpec]:
    case_id = "tuple.multiple_results_mixed_types"
    rng = rng_for(case_id)
    a, b = random_array(rng, (3,), "f32"), random_array(rng, (2, 2), "s64")
    yield CaseSpec(case_id, lambda x, y: (x * 2, y + 1, x.sum(), (y > 0)), [a, b], op_class="arith",
                   numpy_ref=lambda xs: [xs[0] * 2, xs[1] + 1, np.sum(xs[0]), xs[1] > 0], numpy_ref_name="numpy.ops")
    for dtype in ("f32", "s32", "c64", "pred"):
        case_id = f"tuple.tuple_get_tuple_element.{dtype}"
        rng = rng_for(case_id)
        a, b = random_array(rng, (2, 3), dtype), random_array(rng, (4,), dtype)

        def swap(x, y):
            def lower(xv, yv):
                packed = hlo.tuple([xv, yv])
                return [hlo.get_tuple_element(packed, 1), hlo.get_tuple_element(packed, 0)]
            return emit(lower, [(y.shape, y.dtype), (x.shape, x.dtype)], x, y)
        yield CaseSpec(case_id, swap, [a, b], numpy_ref=lambda xs: [xs[1], xs[0]], numpy_ref_name="numpy.identity",
                       expect_ops=("stablehlo.tuple", "stablehlo.get_tuple_element"))
    case_id = "tuple.nested_tuple.f32"
    rng = rng_for(case_id)
    a, b, c = (random_array(rng, (2,), "f32") for _ in range(3))

    def nested(x, y, z):
        def lower(xv, yv, zv):
            inner = hlo.tuple([yv, zv])
            outer = hlo.tuple([xv, inner])
            inner_again = hlo.get_tuple_element(outer, 1)
            return [hlo.get_tuple_element(inner_again, 1), hlo.get_tuple_element(outer, 0)]
        return emit(lower, [(z.shape, z.dtype), (x.shape, x.dtype)], x, y, z)
    yield CaseSpec(case_id, nested, [a, b, c], numpy_ref=lambda xs: [xs[2], xs[0]], numpy_ref_name="numpy.identity",
                   expect_ops=("stablehlo.tuple", "stablehlo.get_tuple_element"))
    case_id = "tuple.many_results.f32"
    x = random_array(rng_for(case_id), (3,), "f32")
    yield CaseSpec(case_id, lambda v: tuple(v + i for i in range(12)), [x], op_class="arith",
                   numpy_ref=lambda xs: [xs[0] + np.float32(i) for i in range(12)], numpy_ref_name="numpy.add")
    case_id = "tuple.no_inputs_constant.s32"
    yield CaseSpec(case_id, lambda: (jnp.arange(5, dtype=jnp.int32) * 3, jnp.float32(2.5)), [],
                   numpy_ref=lambda xs: [np.arange(5, dtype=np.int32) * 3, np.float32(2.5)], numpy_ref_name="numpy.arange",
                   expect_ops=("stablehlo.constant",))


def cases() -> Iterator[CaseSpec]:
    yield from _control_cases()
    yield from _rng_cases()
    yield from _tuple_cases()
