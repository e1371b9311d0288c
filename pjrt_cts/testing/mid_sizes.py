"""Core ops at mid sizes: StableHLO programs whose operands hold between 1 Ki and a few Mi elements, with numpy
references computed at run time (issue 29 item 6).

The golden corpus is tiny-shaped (no argument of a golden case using dot_general has more than 120 elements, reduce
60 but for one 16 Mi-element row sum, convolution 768), so a kernel that is right on its first tile and wrong past
it -- a tiled matmul's second K block, a reduction's second pass, a convolution's second output tile -- passes
every golden case. These programs cover each core op family past one tile: dot_general (plain, ragged edges, batch
dimensions, a long contracting dimension split across blocks), reduce (one dimension and several; 1 Ki, 64 Ki and 1
Mi elements), convolution with many output tiles, gather, scatter, transpose, sort and a cumulative reduce_window
(prefix sum).

Nothing is stored: inputs come from a seed (numpy PCG64, `Program.inputs`), references from numpy in float64.

Data that makes the arithmetic exact. The arithmetic ops get small integers stored in f32 (dot_general and
convolution in [-4, 4] and [-2, 2], sums in [-4, 8] and [-8, 8]): every product and every partial sum of these
programs is an integer below 2**24, which f32 represents exactly, so any summation order, any blocking and any
split of the contracting dimension give the exact result; so does a plugin whose default f32 matmul rounds its
operands to TF32 or bf16 (small integers are exact there too). The float64 numpy reference is therefore the exact
answer. The comparison still uses the suite's tolerance model (pjrt_cts.golden.tolerance), the same clause as the
golden cases: `matmul` for dot_general and convolution, `reduction` for sums, scatter-add and the prefix sum --
rtol = 2 eps, atol = 8 eps * S with S the largest sum of |terms| feeding one output, computed here from the inputs
(`atol_scale`) -- and `exact` for data movement, sort and max. A 1% error is far beyond it: the sums' data has a
positive mean, so each sum is about 2 n while atol is about 3.5e-6 n; the dot_general and convolution results are
integers, typically tens to hundreds in magnitude, while atol is at most 0.02 (split-K: S = 2.1e4), so nearly every
nonzero element of a 1%-off result (0.01 |v|) is caught. Data movement and sort get normal f32 values (any value
must come back bit-exact).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import pytest

from pjrt_cts.testing.programs import Program

F32 = np.float32
Maker = Callable[[np.random.Generator], np.ndarray]


# ---- inputs ---------------------------------------------------------------------------------------------------

def _ints(shape: tuple[int, ...], low: int, high: int) -> Maker:
    """Integers in [low, high] stored in f32 (exact: see the module docstring)."""
    return lambda rng: rng.integers(low, high, size=shape, endpoint=True).astype(F32)


def _normal(shape: tuple[int, ...]) -> Maker:
    return lambda rng: rng.standard_normal(shape, dtype=F32)


def _indices(count: int, bound: int) -> Maker:
    """`count` start indices in [0, bound), repeats allowed, as a (count, 1) s32 index array."""
    return lambda rng: rng.integers(0, bound, size=(count, 1)).astype(np.int32)


def _unique_indices(count: int, bound: int) -> Maker:
    """`count` distinct indices in [0, bound) (a scatter that replaces must not write one element twice)."""
    return lambda rng: rng.choice(bound, size=count, replace=False).astype(np.int32).reshape(count, 1)


def _args(*makers: Maker) -> Callable[[np.random.Generator], list[np.ndarray]]:
    return lambda rng: [make(rng) for make in makers]


# ---- program text ---------------------------------------------------------------------------------------------

def _t(shape: Sequence[int], dtype: str = "f32") -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def _module(name: str, arguments: Sequence[tuple[Sequence[int], str]], results: Sequence[tuple[Sequence[int], str]],
            body: str) -> str:
    """A module whose main takes `arguments` (%a0, %a1, ...) and returns `results`; `body` ends with its return."""
    symbol = "mid_" + name.replace(".", "_")
    signature = ", ".join(f"%a{i}: {_t(shape, dtype)}" for i, (shape, dtype) in enumerate(arguments))
    returns = ", ".join(_t(shape, dtype) for shape, dtype in results)
    if len(results) > 1:
        returns = f"({returns})"
    return f"module @{symbol} {{\n  func.func public @main({signature}) -> {returns} {{\n{body}\n  }}\n}}\n"


def _region(op: str, arity: int = 2) -> str:
    """A scalar f32 reduction body: `op` of its two arguments (arity 2), or the second argument (op "second")."""
    args = ", ".join(f"%x{i}: tensor<f32>" for i in range(arity))
    result = "%x1" if op == "second" else "%r"
    compute = "" if op == "second" else f"      %r = stablehlo.{op} %x0, %x1 : tensor<f32>\n"
    return f"({{\n    ^bb0({args}):\n{compute}      stablehlo.return {result} : tensor<f32>\n  }})"


# ---- references and tolerance scales (float64) ---------------------------------------------------------------

def _wide(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _f32(x: np.ndarray) -> np.ndarray:
    return np.array(x, dtype=F32, order="C")  # a 0-d result stays 0-d


def _conv_nhwc(lhs: np.ndarray, rhs: np.ndarray, stride: int, pad: int) -> np.ndarray:
    """Direct convolution, NHWC input, HWIO kernel, square stride and symmetric zero padding, in float64."""
    x = np.pad(_wide(lhs), ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    kh, kw = rhs.shape[:2]
    windows = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(1, 2))[:, ::stride, ::stride]
    return np.einsum("nhwckl,klco->nhwo", windows, _wide(rhs), optimize=True)


# ---- the programs -------------------------------------------------------------------------------------------

def _matmul(name: str, m: int, k: int, n: int) -> Program:
    body = (f"    %0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0]"
            f" : ({_t((m, k))}, {_t((k, n))}) -> {_t((m, n))}\n    return %0 : {_t((m, n))}")
    return Program(name, _module(name, [((m, k), "f32"), ((k, n), "f32")], [((m, n), "f32")], body),
                   _args(_ints((m, k), -4, 4), _ints((k, n), -4, 4)),
                   lambda a, b: [_f32(_wide(a) @ _wide(b))], "matmul",
                   atol_scale=lambda a, b: float((np.abs(_wide(a)) @ np.abs(_wide(b))).max()), reduced_elements=k)


def _batch_matmul(name: str, batch: int, m: int, k: int, n: int) -> Program:
    lhs, rhs, out = (batch, m, k), (batch, k, n), (batch, m, n)
    body = (f"    %0 = stablehlo.dot_general %a0, %a1, batching_dims = [0] x [0], contracting_dims = [2] x [1]"
            f" : ({_t(lhs)}, {_t(rhs)}) -> {_t(out)}\n    return %0 : {_t(out)}")
    return Program(name, _module(name, [(lhs, "f32"), (rhs, "f32")], [(out, "f32")], body),
                   _args(_ints(lhs, -4, 4), _ints(rhs, -4, 4)),
                   lambda a, b: [_f32(np.matmul(_wide(a), _wide(b)))], "matmul",
                   atol_scale=lambda a, b: float(np.matmul(np.abs(_wide(a)), np.abs(_wide(b))).max()),
                   reduced_elements=k)


def _reduce(name: str, shape: tuple[int, ...], dims: tuple[int, ...], op: str = "add") -> Program:
    out = tuple(d for i, d in enumerate(shape) if i not in dims)
    init = "0.0" if op == "add" else "0xFF800000"  # -inf for maximum
    body = (f"    %init = stablehlo.constant dense<{init}> : tensor<f32>\n"
            f"    %0 = stablehlo.reduce(%a0 init: %init) applies stablehlo.{op} across dimensions = "
            f"[{', '.join(map(str, dims))}] : ({_t(shape)}, tensor<f32>) -> {_t(out)}\n    return %0 : {_t(out)}")
    text = _module(name, [(shape, "f32")], [(out, "f32")], body)
    reduced = int(np.prod([shape[d] for d in dims]))
    if op == "maximum":  # max returns one of its operands: exact, on any values
        return Program(name, text, _args(_normal(shape)), lambda a: [_f32(np.max(a, axis=dims))], "exact")
    # Integers in [-4, 8]: the sum of n of them is about 2 n, far from zero, every partial sum exact (n <= 2**20).
    return Program(name, text, _args(_ints(shape, -4, 8)), lambda a: [_f32(np.sum(_wide(a), axis=dims))],
                   "reduction", atol_scale=lambda a: float(np.abs(_wide(a)).sum(axis=dims).max()),
                   reduced_elements=reduced)


def _convolution(name: str, lhs: tuple[int, int, int, int], kernel: tuple[int, int, int, int], stride: int,
                 pad: int) -> Program:
    n, h, w, _ = lhs
    kh, kw, _, o = kernel
    out = (n, (h + 2 * pad - kh) // stride + 1, (w + 2 * pad - kw) // stride + 1, o)
    body = (f"    %0 = stablehlo.convolution(%a0, %a1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
            f"window = {{stride = [{stride}, {stride}], pad = [[{pad}, {pad}], [{pad}, {pad}]], lhs_dilate = [1, 1], "
            f"rhs_dilate = [1, 1]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} "
            f": ({_t(lhs)}, {_t(kernel)}) -> {_t(out)}\n    return %0 : {_t(out)}")
    return Program(name, _module(name, [(lhs, "f32"), (kernel, "f32")], [(out, "f32")], body),
                   _args(_ints(lhs, -2, 2), _ints(kernel, -2, 2)),
                   lambda a, b: [_f32(_conv_nhwc(a, b, stride, pad))], "matmul",
                   atol_scale=lambda a, b: float(_conv_nhwc(np.abs(a), np.abs(b), stride, pad).max()),
                   reduced_elements=kh * kw * lhs[3])


def _gather_rows(name: str, rows: int, cols: int, count: int) -> Program:
    operand, indices, out = (rows, cols), (count, 1), (count, cols)
    body = (f'    %0 = "stablehlo.gather"(%a0, %a1) {{dimension_numbers = #stablehlo.gather<offset_dims = [1], '
            f"collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, "
            f"slice_sizes = array<i64: 1, {cols}>}} : ({_t(operand)}, {_t(indices, 'i32')}) -> {_t(out)}\n"
            f"    return %0 : {_t(out)}")
    return Program(name, _module(name, [(operand, "f32"), (indices, "i32")], [(out, "f32")], body),
                   _args(_normal(operand), _indices(count, rows)), lambda a, i: [_f32(np.take(a, i[:, 0], axis=0))])


def _gather_elements(name: str, size: int, count: int) -> Program:
    body = (f'    %0 = "stablehlo.gather"(%a0, %a1) {{dimension_numbers = #stablehlo.gather<'
            f"collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, "
            f"slice_sizes = array<i64: 1>}} : ({_t((size,))}, {_t((count, 1), 'i32')}) -> {_t((count,))}\n"
            f"    return %0 : {_t((count,))}")
    return Program(name, _module(name, [((size,), "f32"), ((count, 1), "i32")], [((count,), "f32")], body),
                   _args(_normal((size,)), _indices(count, size)), lambda a, i: [_f32(np.take(a, i[:, 0]))])


def _scatter_add_rows(name: str, rows: int, cols: int, count: int) -> Program:
    operand, indices, updates = (rows, cols), (count, 1), (count, cols)
    body = (f'    %0 = "stablehlo.scatter"(%a0, %a1, %a2) {_region("add")} {{scatter_dimension_numbers = '
            f"#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims "
            f"= [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false}} : ({_t(operand)}, "
            f"{_t(indices, 'i32')}, {_t(updates)}) -> {_t(operand)}\n    return %0 : {_t(operand)}")

    def add_at(a: np.ndarray, i: np.ndarray, u: np.ndarray) -> np.ndarray:
        out = _wide(a).copy()
        np.add.at(out, i[:, 0], _wide(u))  # repeated rows accumulate
        return out

    return Program(name, _module(name, [(operand, "f32"), (indices, "i32"), (updates, "f32")], [(operand, "f32")], body),
                   _args(_ints(operand, -8, 8), _indices(count, rows), _ints(updates, -8, 8)),
                   lambda a, i, u: [_f32(add_at(a, i, u))], "reduction",
                   atol_scale=lambda a, i, u: float(add_at(np.abs(a), i, np.abs(u)).max()),
                   reduced_elements=count + 1)  # at most: the operand and every update (only f16/bf16 use it)


def _scatter_set_elements(name: str, size: int, count: int) -> Program:
    body = (f'    %0 = "stablehlo.scatter"(%a0, %a1, %a2) {_region("second")} {{scatter_dimension_numbers = '
            f"#stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, "
            f"indices_are_sorted = false, unique_indices = false}} : ({_t((size,))}, {_t((count, 1), 'i32')}, "
            f"{_t((count,))}) -> {_t((size,))}\n    return %0 : {_t((size,))}")

    def put(a: np.ndarray, i: np.ndarray, u: np.ndarray) -> np.ndarray:
        out = a.copy()
        np.put(out, i[:, 0], u)
        return out

    return Program(name, _module(name, [((size,), "f32"), ((count, 1), "i32"), ((count,), "f32")],
                                 [((size,), "f32")], body),
                   _args(_normal((size,)), _unique_indices(count, size), _normal((count,))),
                   lambda a, i, u: [_f32(put(a, i, u))])


def _transpose(name: str, shape: tuple[int, ...], permutation: tuple[int, ...]) -> Program:
    out = tuple(shape[p] for p in permutation)
    body = (f"    %0 = stablehlo.transpose %a0, dims = [{', '.join(map(str, permutation))}] : ({_t(shape)}) -> "
            f"{_t(out)}\n    return %0 : {_t(out)}")
    return Program(name, _module(name, [(shape, "f32")], [(out, "f32")], body), _args(_normal(shape)),
                   lambda a: [_f32(np.transpose(a, permutation))])


def _sort(name: str, shape: tuple[int, ...], with_indices: bool) -> Program:
    """Ascending stable sort along the last dimension; with an s32 iota payload: also the sorting permutation."""
    dim = len(shape) - 1
    if not with_indices:
        comparator = ("({\n    ^bb0(%x0: tensor<f32>, %x1: tensor<f32>):\n"
                      "      %c = stablehlo.compare LT, %x0, %x1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
                      "      stablehlo.return %c : tensor<i1>\n  })")
        body = (f'    %0 = "stablehlo.sort"(%a0) {comparator} {{dimension = {dim} : i64, is_stable = true}} : '
                f"({_t(shape)}) -> {_t(shape)}\n    return %0 : {_t(shape)}")
        return Program(name, _module(name, [(shape, "f32")], [(shape, "f32")], body), _args(_normal(shape)),
                       lambda a: [_f32(np.sort(a, axis=dim, kind="stable"))])
    comparator = ("({\n    ^bb0(%x0: tensor<f32>, %x1: tensor<f32>, %i0: tensor<i32>, %i1: tensor<i32>):\n"
                  "      %c = stablehlo.compare LT, %x0, %x1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
                  "      stablehlo.return %c : tensor<i1>\n  })")
    body = (f"    %iota = stablehlo.iota dim = {dim} : {_t(shape, 'i32')}\n"
            f'    %0:2 = "stablehlo.sort"(%a0, %iota) {comparator} {{dimension = {dim} : i64, is_stable = true}} : '
            f"({_t(shape)}, {_t(shape, 'i32')}) -> ({_t(shape)}, {_t(shape, 'i32')})\n"
            f"    return %0#0, %0#1 : {_t(shape)}, {_t(shape, 'i32')}")

    def reference(a: np.ndarray) -> list[np.ndarray]:
        order = np.argsort(a, axis=dim, kind="stable")
        return [_f32(np.take_along_axis(a, order, axis=dim)), order.astype(np.int32)]

    return Program(name, _module(name, [(shape, "f32")], [(shape, "f32"), (shape, "i32")], body),
                   _args(_normal(shape)), reference)


def _prefix_sum(name: str, shape: tuple[int, ...]) -> Program:
    """Cumulative sum along the last dimension as frameworks lower it (jax.lax.cumsum on CPU): reduce_window with
    a window as long as the dimension and as much low padding minus one."""
    dim, length = len(shape) - 1, shape[-1]
    window = [1] * dim + [length]
    padding = ", ".join(["[0, 0]"] * dim + [f"[{length - 1}, 0]"])
    body = (f"    %init = stablehlo.constant dense<0.0> : tensor<f32>\n"
            f'    %0 = "stablehlo.reduce_window"(%a0, %init) {_region("add")} {{window_dimensions = '
            f"array<i64: {', '.join(map(str, window))}>, padding = dense<[{padding}]> : tensor<{len(shape)}x2xi64>}} "
            f": ({_t(shape)}, tensor<f32>) -> {_t(shape)}\n    return %0 : {_t(shape)}")
    return Program(name, _module(name, [(shape, "f32")], [(shape, "f32")], body), _args(_ints(shape, -8, 8)),
                   lambda a: [_f32(np.cumsum(_wide(a), axis=dim))], "reduction",
                   atol_scale=lambda a: float(np.abs(_wide(a)).sum(axis=dim).max()), reduced_elements=length)


MID_SIZE_PROGRAMS: tuple[Program, ...] = (
    # dot_general: M x K x N (batch: B x M x K x N); ragged: no dimension a multiple of a power-of-two tile.
    _matmul("dot_general.matmul.32x48x32.f32", 32, 48, 32),
    _matmul("dot_general.matmul.128x256x64.f32", 128, 256, 64),
    _matmul("dot_general.matmul.512x512x512.f32", 512, 512, 512),
    _matmul("dot_general.matmul_ragged.129x257x67.f32", 129, 257, 67),
    _batch_matmul("dot_general.batch.8x64x128x32.f32", 8, 64, 128, 32),
    _matmul("dot_general.split_k.64x4096x64.f32", 64, 4096, 64),  # a long K: accumulated across many blocks
    # reduce: over one dimension and over several.
    _reduce("reduce.sum.1024.f32", (1024,), (0,)),
    _reduce("reduce.sum.65536.f32", (65536,), (0,)),
    _reduce("reduce.sum.1048576.f32", (1048576,), (0,)),
    _reduce("reduce.sum_dim1.512x2048.f32", (512, 2048), (1,)),
    _reduce("reduce.sum_dims02.64x32x64.f32", (64, 32, 64), (0, 2)),
    _reduce("reduce.max_dim0.2048x512.f32", (2048, 512), (0,), "maximum"),
    # convolution: NHWC input x HWIO kernel, hundreds of output pixels each.
    _convolution("convolution.same.2x32x32x16_3x3x16x32.f32", (2, 32, 32, 16), (3, 3, 16, 32), 1, 1),
    _convolution("convolution.stride2.1x64x64x8_5x5x8x16.f32", (1, 64, 64, 8), (5, 5, 8, 16), 2, 0),
    # gather and scatter: operand x number of indices.
    _gather_rows("gather.rows.4096x64_1024.f32", 4096, 64, 1024),
    _gather_elements("gather.elements.1048576_65536.f32", 1048576, 65536),
    _scatter_add_rows("scatter.add_rows.4096x64_2048.f32", 4096, 64, 2048),
    _scatter_set_elements("scatter.set_elements.1048576_65536.f32", 1048576, 65536),
    # transpose, sort, prefix sum.
    _transpose("transpose.2d.1024x1024.f32", (1024, 1024), (1, 0)),
    _transpose("transpose.3d_201.64x128x32.f32", (64, 128, 32), (2, 0, 1)),
    _sort("sort.1d.65536.f32", (65536,), with_indices=False),
    _sort("sort.rows_with_indices.256x1024.f32", (256, 1024), with_indices=True),
    _prefix_sum("reduce_window.prefix_sum.65536.f32", (65536,)),
    _prefix_sum("reduce_window.prefix_sum_dim1.32x1024.f32", (32, 1024)),
)

MID_SIZE_NAMES: tuple[str, ...] = tuple(program.name for program in MID_SIZE_PROGRAMS)


def mid_size_param() -> Any:
    """`pytest.mark.parametrize("program", ...)` over the mid-size programs, with ids naming op, shape and dtype."""
    return pytest.mark.parametrize("program", MID_SIZE_PROGRAMS, ids=list(MID_SIZE_NAMES))
