"""Attribute spaces of gather, dynamic_gather and scatter (issue 15).

Every op is emitted directly (prims.emit + hlo.gather / hlo.DynamicGatherOp / hlo.ScatterOp), since JAX always
puts index_vector_dim last and never sets some flags; the programs still run through JAX on CPU.

- gather: offset_dims before/after/between the batch dims, collapsed_slice_dims at every position,
  index_vector_dim at every position of the indices incl. the implicit one (== rank of indices),
  start_index_map permutations, operand_batching_dims / start_indices_batching_dims, slice sizes 1 / middle /
  full, indices_are_sorted true (with sorted indices) / false, out-of-range start indices (the spec clamps the
  start to [0, operand_dim - slice_size]), index types s32 / s64 / u32.
- dynamic_gather: the same dimension numbers with the slice sizes as a constant operand.
- scatter: update_window_dims / inserted_window_dims / scatter_dims_to_operand_dims permutations,
  index_vector_dim positions, input / scatter_indices batching dims, update bodies add, mul, min, max, replace,
  a - b, 2a + b (non-commutative: only without overlapping targets), duplicate targets with add/mul/min/max on
  integer-valued data (exact in every type, so order-independent), unique_indices / indices_are_sorted flags,
  variadic scatter (two operands), out-of-bounds update windows (implementation-defined in the spec; XLA skips
  the whole window: those cases are in `*_impl_defined` groups).

numpy references are explicit loops over result / update indices following the StableHLO spec text.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.generator.core import CaseSpec, Grouper, rng_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.inputs import random_array, wide
from pjrt_cts.golden.generator.prims import emit, i64_tensor, scalar_type, tensor_type

from jax._src.interpreters import mlir  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir import ir  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir.dialects import hlo  # noqa: E402 - imported after env has configured JAX

MAX_GROUP = 24
OTHER_DTYPES = ("f64", "bf16", "f16", "s8", "s32", "u8", "u32", "c64", "pred")
INDEX_TYPES = ("s32", "s64", "u32")
NARROW_INDEX_TYPES = ("s8", "u8", "s16", "u16")


def _tok(values: Sequence[int]) -> str:
    return "".join(map(str, values)) if len(values) else "n"


def _np(name: str) -> np.dtype:
    return dtypes.dtype_of(name)


def _is_float(name: str) -> bool:
    return name in ("f32", "f64", "bf16", "f16")


def _place(n_total: int, positions: Sequence[int], picked: Sequence[int], rest: Sequence[int]) -> list[int]:
    """A shape of rank n_total: `picked` sizes at `positions` (sorted), `rest` sizes elsewhere in order."""
    out: list[int] = []
    pi, ri = iter(picked), iter(rest)
    for p in range(n_total):
        out.append(next(pi) if p in positions else next(ri))
    return out


def _index_shape(batch: Sequence[int], ivd: int, n_index: int, implicit: bool) -> tuple[int, ...]:
    if implicit:
        return tuple(batch)
    shape = list(batch)
    shape.insert(ivd, n_index)
    return tuple(shape)


def _batch_dim_to_index_dim(position: int, ivd: int, implicit: bool) -> int:
    return position if implicit or position < ivd else position + 1


def _start_vector(indices: np.ndarray, batch_index: Sequence[int], ivd: int, implicit: bool) -> list[int]:
    if implicit:
        return [int(indices[tuple(batch_index)])]
    key = tuple(batch_index[:ivd]) + (slice(None),) + tuple(batch_index[ivd:])
    return [int(v) for v in indices[key]]


def _fill_indices(batch: Sequence[int], ivd: int, implicit: bool, vectors: Sequence[Sequence[int]],
                  idx: str) -> np.ndarray:
    """Indices array whose start vector at batch position k (row-major) is vectors[k]."""
    n_index = len(vectors[0]) if len(vectors) else 1
    out = np.zeros(_index_shape(batch, ivd, n_index, implicit), dtype=_np(idx))
    for k, b in enumerate(np.ndindex(*batch)):
        if implicit:
            out[tuple(b)] = vectors[k][0]
        else:
            out[tuple(b[:ivd]) + (slice(None),) + tuple(b[ivd:])] = vectors[k]
    return out


def _data(rng: np.random.Generator, shape: Sequence[int], name: str, body: str | None = None) -> np.ndarray:
    """gather: distinct-ish random values; scatter bodies: small integer values (exact in every type)."""
    if name == "pred" or body is None:
        return random_array(rng, shape, name)
    dtype = _np(name)
    signed = not name.startswith("u")
    low, high = (-3, 3) if body == "mul" else (-8, 8)
    if not signed:
        low = 1 if body in ("mul", "min", "max") else 0
    values = rng.integers(low, high + 1, size=tuple(shape))
    if body in ("mul", "min", "max"):
        values[values == 0] = 1  # no zeros: keeps products informative and min/max free of signed zeros
    if dtypes.is_complex(name):
        imag = rng.integers(-3, 4, size=tuple(shape))
        array = (values + 1j * imag).astype(dtype)
    else:
        array = values.astype(dtype)
    if array.size and not np.any(array != 0):
        array.flat[0] = dtype.type(1)
    return array


def _extreme_indices(idx: str) -> list[int]:
    """Out-of-range index values at the ends of the index type (unsigned ones above the signed maximum: a
    plugin that reads them as signed sees negative indices)."""
    info = np.iinfo(_np(idx))
    if idx.startswith("u"):
        return [int(info.max), int(info.max) // 2 + 5]
    if idx == "s64":
        return [-1, 2 ** 40, -(2 ** 40), int(info.max), int(info.min)]
    return [-1, int(info.max), int(info.min), -4]


# --------------------------------------------------------------------------------------------------------------
# gather


@dataclasses.dataclass
class Gather:
    fam: str
    operand: tuple[int, ...]
    batch: tuple[int, ...]  # the indices' shape without the index vector dim
    ivd: int  # position of the index vector dim among the indices' dims
    sim: tuple[int, ...]
    collapsed: tuple[int, ...]
    slices: tuple[int, ...]
    offset: tuple[int, ...] | None = None  # positions of the offset dims in the result (None: trailing)
    obd: tuple[int, ...] = ()
    sibd: tuple[int, ...] = ()  # batch positions (in `batch`) paired with obd
    implicit: bool = False
    sorted: bool = False
    oob: bool = False
    idx: str = "s32"
    dynamic: bool = False

    def offset_sizes(self) -> list[int]:
        return [s for d, s in enumerate(self.slices) if d not in self.collapsed and d not in self.obd]

    def result_rank(self) -> int:
        return len(self.batch) + len(self.offset_sizes())

    def offset_dims(self) -> tuple[int, ...]:
        if self.offset is not None:
            return self.offset
        n = len(self.offset_sizes())
        r = self.result_rank()
        return tuple(range(r - n, r))

    def result_shape(self) -> tuple[int, ...]:
        return tuple(_place(self.result_rank(), self.offset_dims(), self.offset_sizes(), self.batch))

    def ivd_attr(self) -> int:
        return len(self.batch) if self.implicit else self.ivd

    def index_shape(self) -> tuple[int, ...]:
        return _index_shape(self.batch, self.ivd, len(self.sim), self.implicit)

    def sibd_dims(self) -> list[int]:
        return [_batch_dim_to_index_dim(p, self.ivd, self.implicit) for p in self.sibd]

    def validate(self) -> None:
        assert len(self.offset_dims()) == len(self.offset_sizes()), self
        assert list(self.offset_dims()) == sorted(self.offset_dims()), self
        assert not self.implicit or len(self.sim) == 1, self
        for d in self.collapsed + self.obd:
            assert self.slices[d] == 1, self
        for o, b in zip(self.obd, self.sibd):
            assert self.operand[o] == self.batch[b], self
        assert not set(self.sim) & set(self.obd), self
        assert all(s <= n for s, n in zip(self.slices, self.operand)), self

    def attrs_token(self) -> str:
        parts = [self.fam, f"o{_tok(self.offset_dims())}", f"c{_tok(self.collapsed)}", f"m{_tok(self.sim)}",
                 f"v{self.ivd_attr()}" + ("i" if self.implicit else ""), f"s{_tok(self.slices)}"]
        if self.obd:
            parts.append(f"ob{_tok(self.obd)}_ib{_tok(self.sibd_dims())}")
        if self.sorted:
            parts.append("sorted")
        parts.append(f"x{_tok(self.operand)}_b{_tok(self.batch)}")
        parts.append(self.idx)
        return "_".join(parts)

    def attributes(self) -> dict[str, Any]:
        return {"offset_dims": list(self.offset_dims()), "collapsed_slice_dims": list(self.collapsed),
                "operand_batching_dims": list(self.obd), "start_indices_batching_dims": self.sibd_dims(),
                "start_index_map": list(self.sim), "index_vector_dim": self.ivd_attr(),
                "slice_sizes": list(self.slices), "indices_are_sorted": self.sorted,
                "index_type": self.idx, "implicit_index_vector_dim": self.implicit,
                "out_of_range_starts": self.oob, "op": "dynamic_gather" if self.dynamic else "gather"}

    def indices(self, rng: np.random.Generator) -> np.ndarray:
        n = int(np.prod(self.batch)) if self.batch else 1
        vectors = []
        for _ in range(n):
            vec = []
            for d in self.sim:
                top = self.operand[d] - self.slices[d]
                if self.oob:
                    choices = [top + 1, top + 3, self.operand[d] + 7, int(rng.integers(0, top + 1))]
                    choices += _extreme_indices(self.idx)
                    vec.append(int(rng.choice(choices)))
                else:
                    vec.append(int(rng.integers(0, top + 1)))
            vectors.append(vec)
        if self.oob:  # make sure at least one start is out of range
            d0 = 0
            vectors[0][d0] = self.operand[self.sim[d0]] - self.slices[self.sim[d0]] + 2
            if len(vectors) > 1:
                vectors[1][d0] = _extreme_indices(self.idx)[0]
        if self.sorted:
            def key(v):
                full = [0] * len(self.operand)
                for k, d in enumerate(self.sim):
                    full[d] = v[k]
                return full
            vectors.sort(key=key)
        return _fill_indices(self.batch, self.ivd, self.implicit, vectors, self.idx)

    def fn(self, name: str) -> Callable:
        out_shape = self.result_shape()
        dtype = _np(name)

        def fn(x, i):
            def lower(xv, iv):
                dn = hlo.GatherDimensionNumbers.get(
                    offset_dims=list(self.offset_dims()), collapsed_slice_dims=list(self.collapsed),
                    operand_batching_dims=list(self.obd), start_indices_batching_dims=self.sibd_dims(),
                    start_index_map=list(self.sim), index_vector_dim=self.ivd_attr())
                if self.dynamic:
                    return hlo.DynamicGatherOp.build_generic(
                        results=[tensor_type(out_shape, dtype)], operands=[xv, iv, i64_tensor(self.slices)],
                        attributes={"dimension_numbers": dn,
                                    "indices_are_sorted": ir.BoolAttr.get(self.sorted)}).results
                return hlo.gather(xv, iv, dn, mlir.dense_int_array(list(self.slices)),
                                  indices_are_sorted=ir.BoolAttr.get(self.sorted))
            return emit(lower, [(out_shape, dtype)], x, i)[0]
        return fn

    def ref(self) -> Callable:
        def ref(xs):
            x, indices = xs[0], xs[1]
            out_shape = self.result_shape()
            out = np.empty(out_shape, dtype=x.dtype)
            offset_dims = self.offset_dims()
            batch_pos = [p for p in range(len(out_shape)) if p not in offset_dims]
            for ri in np.ndindex(*out_shape):
                bi = [ri[p] for p in batch_pos]
                start = _start_vector(indices, bi, self.ivd, self.implicit)
                full = [0] * x.ndim
                for k, d in enumerate(self.sim):
                    full[d] = min(max(start[k], 0), x.shape[d] - self.slices[d])
                for o, b in zip(self.obd, self.sibd):
                    full[o] += bi[b]
                window = iter(ri[p] for p in offset_dims)
                for d in range(x.ndim):
                    if d not in self.collapsed and d not in self.obd:
                        full[d] += next(window)
                out[ri] = x[tuple(full)]
            return [out]
        return ref


def _gather_f32_configs() -> list[Gather]:
    out: list[Gather] = []
    op3 = (3, 4, 5)

    def slices_for(sim, collapsed, operand=op3, inner=2):
        return tuple(1 if d in collapsed else (min(inner, operand[d]) if d in sim else operand[d])
                     for d in range(len(operand)))

    # index_vector_dim at every position (+ implicit), rank-2 and rank-1 batches, offsets trailing / leading.
    sims = [(0,), (1,), (2,), (0, 1), (2, 0), (1, 2, 0), (0, 1, 2)]
    for batch, lead in (((2, 3), False), ((3,), True)):
        for sim in sims:
            collapsed = tuple(sorted(sim)) if len(sim) < 3 else ()
            slices = slices_for(sim, collapsed)
            n_off = 3 - len(collapsed)
            offset = tuple(range(n_off)) if lead else None
            for ivd in range(len(batch) + 1):
                out.append(Gather("ivd", op3, batch, ivd, sim, collapsed, slices, offset))
            if len(sim) == 1:
                out.append(Gather("ivd", op3, batch, len(batch), sim, collapsed, slices, offset, implicit=True))
    # offset_dims placements: before / after / between batch dims.
    for sim, collapsed, ivd in (((1,), (1,), 2), ((0,), (0,), 2), ((2,), (2,), 0), ((1,), (1,), 0)):
        slices = slices_for(sim, collapsed, inner=2)
        slices = tuple(1 if d in collapsed else 2 for d in range(3))
        for offset in itertools.combinations(range(4), 2):
            out.append(Gather("offset", op3, (2, 2), ivd, sim, collapsed, slices, offset))
    for offset in itertools.combinations(range(5), 3):
        out.append(Gather("offset", op3, (2, 2), 1, (0, 2), (), (2, 2, 2), offset))
    for offset in itertools.combinations(range(3), 1):
        out.append(Gather("offset", op3, (2, 2), 2, (2, 0), (0, 2), (1, 4, 1), offset))
    # collapsed_slice_dims: every subset, with several start_index_maps.
    for k, collapsed in enumerate(itertools.chain.from_iterable(itertools.combinations(range(3), n) for n in range(4))):
        for j, sim in enumerate(((0, 1, 2), (2, 1, 0), (1, 0, 2))):
            slices = tuple(1 if d in collapsed else (op3[d] if (k + j + d) % 2 else 2) for d in range(3))
            rank = 1 + 3 - len(collapsed)
            batch_at = (k + j) % rank  # the batch dim before / between / after the offset dims
            offset = tuple(p for p in range(rank) if p != batch_at)
            out.append(Gather("collapsed", op3, (3,), (k + j) % 2, sim, collapsed, slices, offset))
    # start_index_map: every permutation of every non-empty subset.
    for n in (1, 2, 3):
        for sim in itertools.permutations(range(3), n):
            for ivd in (0, 2):
                out.append(Gather("sim", op3, (2, 2), ivd, sim, (), (2, 3, 2),
                                  offset=None if ivd == 2 else (1, 2, 3)))
    # slice sizes: 1 / middle / full per dim.
    for choice in itertools.product((0, 1, 2), repeat=3):
        slices = tuple((1, 2, op3[d])[c] for d, c in enumerate(choice))
        collapsed = tuple(d for d, c in enumerate(choice) if c == 0 and d % 2 == 0)
        out.append(Gather("slice", op3, (2,), 1, (0, 1, 2), collapsed, slices))
    # indices_are_sorted with sorted indices, and false on the same configs.
    for srt in (True, False):
        for sim, collapsed, batch in (((0,), (0,), (4,)), ((1, 0), (), (3,)), ((0, 2), (0, 2), (2, 2)),
                                      ((2, 1, 0), (1,), (3,)), ((1,), (1,), (5,)), ((0, 1), (0, 1), (2, 3))):
            out.append(Gather("sorted", op3, batch, len(batch), sim, collapsed,
                              slices_for(sim, collapsed), sorted=srt))
    # Out-of-range starts (clamped so the slice fits), incl. full-size slices.
    for k, (sim, collapsed, slices) in enumerate((((0,), (0,), (1, 4, 5)), ((1,), (), (3, 2, 5)),
                                                  ((2, 0), (), (2, 4, 3)), ((0, 1, 2), (), (3, 4, 5)),
                                                  ((1, 2), (1,), (3, 1, 4)), ((2,), (2,), (3, 4, 1)),
                                                  ((0, 2), (0, 2), (1, 4, 1)), ((2, 1), (), (3, 4, 5)))):
            for j, batch in enumerate(((4,), (2, 3), (3,))):
                ivd = (k + j) % (len(batch) + 1)
                out.append(Gather("clamp", op3, batch, ivd, sim, collapsed, slices, oob=True))
    # Batching dims.
    batching = [
        # operand, batch, ivd, sim, collapsed, obd, sibd, slices, offset
        ((2, 3, 4), (2,), 1, (1,), (1,), (0,), (0,), (1, 1, 4), None),
        ((2, 3, 4), (2,), 0, (2,), (), (0,), (0,), (1, 3, 2), None),
        ((3, 2, 4), (2,), 1, (0,), (0,), (1,), (0,), (1, 1, 4), None),
        ((3, 4, 2), (2,), 0, (0, 1), (), (2,), (0,), (2, 2, 1), None),
        ((2, 3, 4), (2, 3), 2, (1,), (1,), (0,), (0,), (1, 1, 4), None),
        ((2, 3, 4), (3, 2), 2, (1,), (1,), (0,), (1,), (1, 1, 4), None),
        ((2, 3, 4), (3, 2), 0, (2,), (2,), (0,), (1,), (1, 3, 1), (0,)),
        ((2, 3, 4), (3, 2), 1, (2,), (2,), (0,), (1,), (1, 3, 1), (1,)),
        ((2, 3, 4), (3, 2), 1, (1, 2), (), (0,), (1,), (1, 2, 2), (0, 3)),
        ((3, 2, 4), (2, 3), 0, (2,), (), (1,), (0,), (2, 1, 2), (1, 3)),
        ((3, 4, 2), (4, 2), 2, (0,), (0,), (2,), (1,), (1, 4, 1), None),
        ((3, 4, 2), (2, 4), 2, (1,), (), (2,), (0,), (3, 2, 1), (0, 2)),
        ((2, 3, 2), (2, 2), 1, (1,), (1,), (0, 2), (0, 1), (1, 1, 1), None),
        ((2, 3, 2), (2, 2), 1, (1,), (1,), (0, 2), (1, 0), (1, 1, 1), None),
        ((2, 3, 2), (2, 2), 0, (1,), (), (0, 2), (0, 1), (1, 2, 1), (1,)),
        ((2, 3, 2), (2, 2), 2, (1,), (), (0, 2), (1, 0), (1, 2, 1), (0,)),
        ((2, 3, 2), (2, 3, 2), 3, (1,), (1,), (0, 2), (0, 2), (1, 1, 1), None),
        ((2, 3, 2), (2, 3, 2), 1, (1,), (), (0, 2), (2, 0), (1, 2, 1), (1,)),
        ((2, 4), (2, 3), 1, (1,), (1,), (0,), (0,), (1, 1), None),
        ((2, 4), (3, 2), 0, (1,), (), (0,), (1,), (1, 3), (2,)),
        ((4, 2), (2, 3), 2, (0,), (), (1,), (0,), (2, 1), (1,)),
        ((4, 2), (3, 2), 1, (0,), (0,), (1,), (1,), (1, 1), None),
        ((2, 3, 4, 2), (2, 2), 2, (1, 2), (1,), (0, 3), (0, 1), (1, 1, 2, 1), None),
        ((2, 3, 4, 2), (2, 2), 0, (2, 1), (2,), (0, 3), (1, 0), (1, 2, 1, 1), (0,)),
    ]
    for k, (operand, batch, ivd, sim, collapsed, obd, sibd, slices, offset) in enumerate(batching):
        out.append(Gather("batch", operand, batch, ivd, sim, collapsed, slices, offset, obd, sibd))
        if len(sim) == 1:
            out.append(Gather("batch", operand, batch, len(batch), sim, collapsed, slices, offset, obd, sibd,
                              implicit=True))
        else:
            out.append(Gather("batch", operand, batch, len(batch) if ivd != len(batch) else 0, sim, collapsed,
                              slices, offset, obd, sibd))
    # Batching dims with out-of-range starts.
    for operand, batch, ivd, sim, collapsed, obd, sibd, slices, offset in batching[:8]:
        out.append(Gather("batchclamp", operand, batch, ivd, sim, collapsed, slices, offset, obd, sibd, oob=True))
    # A single start index (empty / size-1 batch; scalar indices with the implicit index vector dim).
    for oob in (False, True):
        fam = "singleclamp" if oob else "single"
        out.append(Gather(fam, op3, (), 0, (1,), (1,), (3, 1, 5), oob=oob))
        out.append(Gather(fam, op3, (), 0, (1,), (1,), (3, 1, 5), implicit=True, oob=oob))
        out.append(Gather(fam, op3, (), 0, (2, 0), (), (2, 4, 3), oob=oob))
        out.append(Gather(fam, op3, (), 0, (0, 1, 2), (0,), (1, 2, 2), oob=oob))
        out.append(Gather(fam, op3, (1,), 1, (2,), (2,), (3, 4, 1), oob=oob))
        out.append(Gather(fam, op3, (1,), 0, (0, 2), (), (2, 4, 2), offset=(0, 2, 3), oob=oob))
        out.append(Gather(fam, op3, (1,), 1, (1,), (), (3, 2, 5), implicit=True, oob=oob))
        out.append(Gather(fam, op3, (1, 1), 2, (1, 2), (1,), (2, 1, 3), offset=(0, 3), oob=oob))
    # An empty index vector (start_index_map = []): every slice starts at the origin.
    out.append(Gather("emptyvec", (3, 4), (3,), 1, (), (), (2, 3)))
    out.append(Gather("emptyvec", (3, 4), (3,), 0, (), (0,), (1, 4), offset=(0,)))
    out.append(Gather("emptyvec", op3, (2, 2), 1, (), (2,), (3, 2, 1)))
    out.append(Gather("emptyvec", (2, 3, 4), (2,), 1, (), (), (1, 3, 4), obd=(0,), sibd=(0,)))
    # dynamic_gather: a selection of the above with the slice sizes as an operand.
    picks = [g for g in out if g.fam in ("ivd", "offset", "collapsed", "clamp", "batch")][::7]
    for g in picks:
        out.append(dataclasses.replace(g, fam="dyn", dynamic=True))
    for k, g in enumerate(out):
        g.idx = INDEX_TYPES[k % 3]
    # Narrow index types (s8 / u8 / s16 / u16) with starts at the ends of their range.
    for k, (sim, collapsed, slices) in enumerate((((0,), (0,), (1, 4, 5)), ((1,), (), (3, 2, 5)),
                                                  ((2, 0), (), (2, 4, 3)), ((1, 2), (1,), (3, 1, 4)),
                                                  ((0, 2), (0, 2), (1, 4, 1)), ((2, 1), (), (3, 4, 5)))):
        for j, idx in enumerate(NARROW_INDEX_TYPES):
            batch = ((3,), (2, 2))[(k + j) % 2]
            out.append(Gather("narrow", op3, batch, (k + j) % (len(batch) + 1), sim, collapsed, slices,
                              oob=True, idx=idx))
    return out


def _gather_cases(grouper: Grouper) -> Iterator[CaseSpec]:
    configs = _gather_f32_configs()
    seen: set[str] = set()

    def spec(g: Gather, name: str, attr_family: str) -> CaseSpec:
        g.validate()
        case_id = f"gather.{g.attrs_token()}.{name}"
        assert case_id not in seen, case_id
        seen.add(case_id)
        rng = rng_for(case_id)
        x = _data(rng, g.operand, name)
        indices = g.indices(rng)
        op = "stablehlo.dynamic_gather" if g.dynamic else "stablehlo.gather"
        return CaseSpec(case_id, g.fn(name), [x, indices], numpy_ref=g.ref(),
                        numpy_ref_name="numpy.gather_loop(clamped starts)" if g.oob else "numpy.gather_loop",
                        expect_ops=(op,), group=grouper("gather", attr_family, name), attributes=g.attributes(),
                        zero_inputs_ok=(1,))  # all-zero starts are the only in-range ones for full-size slices

    # Cases with batching dims get their own groups: they need StableHLO >= 1.1 (vhlo.gather_v2), so a plugin
    # fed older bytecode must lose only them, not the rest of a shared program.
    for g in configs:
        yield spec(g, "f32", g.fam if not g.obd or g.fam.startswith("batch") else g.fam + "batch")
    for d, name in enumerate(OTHER_DTYPES):
        for g in configs[d % 17::17]:
            yield spec(dataclasses.replace(g), name, "coverbatch" if g.obd else "cover")


# --------------------------------------------------------------------------------------------------------------
# scatter

BODIES = ("add", "mul", "min", "max", "replace", "sub", "axpb")


def _np_body(body: str) -> Callable[[Any, Any], Any]:
    return {"add": lambda a, u: a + u, "mul": lambda a, u: a * u, "min": lambda a, u: min(a, u), "max": lambda a, u: max(a, u), "replace": lambda a, u: u,
            "sub": lambda a, u: a - u, "axpb": lambda a, u: 2 * a + u}[body]


def _hlo_body(body: str, a: ir.Value, u: ir.Value) -> ir.Value:
    if body == "add":
        return hlo.add(a, u)
    if body == "mul":
        return hlo.multiply(a, u)
    if body == "min":
        return hlo.minimum(a, u)
    if body == "max":
        return hlo.maximum(a, u)
    if body == "replace":
        return u
    if body == "sub":
        return hlo.subtract(a, u)
    return hlo.add(hlo.add(a, a), u)  # axpb: 2a + b


@dataclasses.dataclass
class Scatter:
    fam: str
    operand: tuple[int, ...]
    batch: tuple[int, ...]  # scatter indices' shape without the index vector dim
    ivd: int
    sdod: tuple[int, ...]  # scatter_dims_to_operand_dims
    inserted: tuple[int, ...]
    window: tuple[int, ...]  # update window sizes of the operand dims that are neither inserted nor batching
    window_pos: tuple[int, ...] | None = None  # update_window_dims (None: trailing)
    ibd: tuple[int, ...] = ()
    sibd: tuple[int, ...] = ()  # batch positions paired with ibd
    implicit: bool = False
    bodies: tuple[str, ...] = ("add",)  # one per operand (variadic when > 1)
    unique: bool = False
    sorted: bool = False
    overlap: str = "any"  # "none": no two updates hit one element | "dup": some do | "any": either
    oob: bool = False
    idx: str = "s32"

    def window_dims_of_operand(self) -> list[int]:
        return [d for d in range(len(self.operand)) if d not in self.inserted and d not in self.ibd]

    def update_rank(self) -> int:
        return len(self.batch) + len(self.window)

    def update_window_dims(self) -> tuple[int, ...]:
        if self.window_pos is not None:
            return self.window_pos
        r = self.update_rank()
        return tuple(range(r - len(self.window), r))

    def update_shape(self) -> tuple[int, ...]:
        return tuple(_place(self.update_rank(), self.update_window_dims(), self.window, self.batch))

    def ivd_attr(self) -> int:
        return len(self.batch) if self.implicit else self.ivd

    def index_shape(self) -> tuple[int, ...]:
        return _index_shape(self.batch, self.ivd, len(self.sdod), self.implicit)

    def sibd_dims(self) -> list[int]:
        return [_batch_dim_to_index_dim(p, self.ivd, self.implicit) for p in self.sibd]

    def full_window(self) -> list[int]:
        sizes = [1] * len(self.operand)
        for d, s in zip(self.window_dims_of_operand(), self.window):
            sizes[d] = s
        return sizes

    def overlap_mode(self) -> str:
        """Targets must be distinct where the result would depend on the update order (or unique_indices)."""
        if self.unique or any(b in ("replace", "sub", "axpb") for b in self.bodies):
            assert self.overlap != "dup", self
            return "none"
        return self.overlap

    def validate(self) -> None:
        assert len(self.window) == len(self.window_dims_of_operand()), self
        assert len(self.update_window_dims()) == len(self.window), self
        assert list(self.update_window_dims()) == sorted(self.update_window_dims()), self
        assert not self.implicit or len(self.sdod) == 1, self
        assert not set(self.sdod) & set(self.ibd), self
        for o, b in zip(self.ibd, self.sibd):
            assert self.operand[o] == self.batch[b], self
        assert all(s <= n for s, n in zip(self.full_window(), self.operand)), self

    def attrs_token(self) -> str:
        parts = [self.fam, "_".join(self.bodies), f"w{_tok(self.update_window_dims())}", f"i{_tok(self.inserted)}",
                 f"m{_tok(self.sdod)}", f"v{self.ivd_attr()}" + ("i" if self.implicit else "")]
        if self.ibd:
            parts.append(f"ob{_tok(self.ibd)}_ib{_tok(self.sibd_dims())}")
        if self.unique:
            parts.append("uniq")
        if self.sorted:
            parts.append("sorted")
        if self.overlap == "dup":
            parts.append("dup")
        if self.oob and self.fam != "oob":
            parts.append("oob")
        parts.append(f"x{_tok(self.operand)}_b{_tok(self.batch)}_u{_tok(self.window)}")
        parts.append(self.idx)
        return "_".join(parts)

    def attributes(self) -> dict[str, Any]:
        return {"update_window_dims": list(self.update_window_dims()), "inserted_window_dims": list(self.inserted),
                "input_batching_dims": list(self.ibd), "scatter_indices_batching_dims": self.sibd_dims(),
                "scatter_dims_to_operand_dims": list(self.sdod), "index_vector_dim": self.ivd_attr(),
                "indices_are_sorted": self.sorted, "unique_indices": self.unique, "index_type": self.idx,
                "update_computation": "_".join(self.bodies), "num_operands": len(self.bodies),
                "duplicate_targets": self.overlap == "dup", "out_of_bounds_windows": self.oob,
                "implicit_index_vector_dim": self.implicit}

    def _targets(self, start: Sequence[int], b: Sequence[int]) -> list[tuple[int, ...]]:
        base = [0] * len(self.operand)
        for k, d in enumerate(self.sdod):
            base[d] = start[k]
        for o, p in zip(self.ibd, self.sibd):
            base[o] += b[p]
        sizes = self.full_window()
        return [tuple(base[d] + w[d] for d in range(len(base))) for w in np.ndindex(*sizes)]

    def _in_bounds(self, start: Sequence[int], b: Sequence[int]) -> bool:
        sizes = self.full_window()
        base = [0] * len(self.operand)
        for k, d in enumerate(self.sdod):
            base[d] = start[k]
        for o, p in zip(self.ibd, self.sibd):
            base[o] += b[p]
        return all(0 <= base[d] and base[d] + sizes[d] <= self.operand[d] for d in range(len(base)))

    def indices(self, rng: np.random.Generator) -> np.ndarray:
        positions = list(np.ndindex(*self.batch))
        sizes = self.full_window()
        for _attempt in range(400):
            vectors = [[int(rng.integers(0, self.operand[d] - sizes[d] + 1)) for d in self.sdod] for _ in positions]
            if self.oob:
                for k in range(0, len(vectors), 2):
                    j = int(rng.integers(0, len(self.sdod)))
                    d = self.sdod[j]
                    bad = [self.operand[d] - sizes[d] + 1, self.operand[d] + 2]
                    bad += _extreme_indices(self.idx)
                    vectors[k][j] = int(rng.choice(bad))
            if self.overlap == "dup" and len(vectors) > 1:
                vectors[-1] = list(vectors[0])
                if not self.ibd:
                    vectors[len(vectors) // 2] = list(vectors[0])
            if self.sorted:
                def key(v):
                    full = [0] * len(self.operand)
                    for k, d in enumerate(self.sdod):
                        full[d] = v[k]
                    return full
                vectors.sort(key=key)
            targets = []
            for v, b in zip(vectors, positions):
                if self._in_bounds(v, b):
                    targets += self._targets(v, b)
            distinct = len(set(targets)) == len(targets)
            if self.overlap_mode() == "dup":
                if not distinct:
                    break
            elif distinct or self.overlap_mode() == "any":
                break
        else:
            raise AssertionError(f"no indices for {self}")
        return _fill_indices(self.batch, self.ivd, self.implicit, vectors, self.idx)

    def fn(self, name: str) -> Callable:
        n = len(self.bodies)
        dtype = _np(name)

        def fn(*args):
            def lower(*vals):
                operands, iv, updates = list(vals[:n]), vals[n], list(vals[n + 1:])
                dn = hlo.ScatterDimensionNumbers.get(
                    update_window_dims=list(self.update_window_dims()), inserted_window_dims=list(self.inserted),
                    input_batching_dims=list(self.ibd), scatter_indices_batching_dims=self.sibd_dims(),
                    scattered_dims_to_operand_dims=list(self.sdod), index_vector_dim=self.ivd_attr())
                op = hlo.ScatterOp([tensor_type(self.operand, dtype)] * n, operands, iv, updates, dn,
                                   indices_are_sorted=ir.BoolAttr.get(self.sorted),
                                   unique_indices=ir.BoolAttr.get(self.unique))
                scalar = scalar_type(dtype)
                block = op.update_computation.blocks.append(*([scalar] * (2 * n)))
                with ir.InsertionPoint(block):
                    hlo.return_([_hlo_body(body, block.arguments[k], block.arguments[n + k])
                                 for k, body in enumerate(self.bodies)])
                return op.results
            return emit(lower, [(self.operand, dtype)] * n, *args)
        return fn

    def ref(self, name: str) -> Callable:
        n = len(self.bodies)

        def ref(xs):
            outs = [wide(x).copy() for x in xs[:n]]
            indices, updates = xs[n], [wide(u) for u in xs[n + 1:]]
            if outs[0].dtype == np.bool_:
                outs = [o.astype(np.int64) for o in outs]
                updates = [u.astype(np.int64) for u in updates]
            elif outs[0].dtype.kind in "iu":
                outs = [o.astype(np.int64) for o in outs]
                updates = [u.astype(np.int64) for u in updates]
            window_dims = self.update_window_dims()
            scatter_pos = [p for p in range(self.update_rank()) if p not in window_dims]
            operand_window = self.window_dims_of_operand()
            ushape = self.update_shape()
            # Scatter indices in row-major order, each with its whole window (XLA applies updates this way;
            # the order matters only for overlapping targets, which only order-independent bodies have).
            for b in np.ndindex(*self.batch):
                start = _start_vector(indices, b, self.ivd, self.implicit)
                if not self._in_bounds(start, b):
                    continue  # out-of-bounds window: skipped whole (XLA convention)
                for w in np.ndindex(*self.window):
                    ui = [0] * len(ushape)
                    for p, v in zip(scatter_pos, b):
                        ui[p] = v
                    for p, v in zip(window_dims, w):
                        ui[p] = v
                    full = [0] * len(self.operand)
                    for k, d in enumerate(self.sdod):
                        full[d] = start[k]
                    for o, p in zip(self.ibd, self.sibd):
                        full[o] += b[p]
                    for d, v in zip(operand_window, w):
                        full[d] += v
                    for k, body in enumerate(self.bodies):
                        outs[k][tuple(full)] = _np_body(body)(outs[k][tuple(full)], updates[k][tuple(ui)])
            with np.errstate(all="ignore"):
                return [o.astype(x.dtype) for o, x in zip(outs, xs[:n])]
        return ref


def _scatter_f32_configs() -> list[Scatter]:
    out: list[Scatter] = []
    op3 = (3, 4, 5)

    def window_for(sdod, inserted, ibd=(), operand=op3, inner=2, full_other=True):
        return tuple((min(inner, operand[d]) if d in sdod else (operand[d] if full_other else 2))
                     for d in range(len(operand)) if d not in inserted and d not in ibd)

    # scatter_dims_to_operand_dims permutations x inserted_window_dims (none / all of them / some).
    for n in (1, 2, 3):
        for k, sdod in enumerate(itertools.permutations(range(3), n)):
            for mode in ("none", "all"):
                inserted = () if mode == "none" else tuple(sorted(sdod))
                window = window_for(sdod, inserted, inner=2, full_other=(k % 2 == 0))
                out.append(Scatter("dims", op3, (2,), 1, sdod, inserted, window, bodies=("add",)))
    # inserted_window_dims at every position, update_window_dims placements.
    for inserted in ((0,), (1,), (2,), (0, 1), (0, 2), (1, 2)):
        sdod = inserted + tuple(d for d in range(3) if d not in inserted)[:1]
        window = window_for(sdod, inserted, inner=1)
        rank = 2 + len(window)
        for window_pos in itertools.combinations(range(rank), len(window)):
            out.append(Scatter("window", op3, (2, 2), 2, sdod, inserted, window, window_pos, bodies=("add",)))
    # index_vector_dim at every position (+ implicit).
    for sdod, inserted in (((0,), (0,)), ((2,), (2,)), ((1, 0), (0, 1)), ((2, 0), ()), ((0, 1, 2), (1,))):
        window = window_for(sdod, inserted, inner=2)
        for batch in ((2, 2), (3,)):
            for ivd in range(len(batch) + 1):
                out.append(Scatter("ivd", op3, batch, ivd, sdod, inserted, window, bodies=("add",)))
            if len(sdod) == 1:
                out.append(Scatter("ivd", op3, batch, len(batch), sdod, inserted, window, bodies=("add",),
                                   implicit=True))
    # Batching dims.
    batching = [
        # operand, batch, ivd, sdod, inserted, ibd, sibd, window, window_pos
        ((2, 3, 4), (2,), 1, (1,), (1,), (0,), (0,), (4,), None),
        ((2, 3, 4), (2,), 0, (2,), (), (0,), (0,), (3, 2), None),
        ((3, 2, 4), (2,), 1, (0,), (0,), (1,), (0,), (4,), None),
        ((3, 4, 2), (2,), 0, (0, 1), (), (2,), (0,), (2, 2), None),
        ((2, 3, 4), (2, 3), 2, (1,), (1,), (0,), (0,), (2,), None),
        ((2, 3, 4), (3, 2), 2, (1,), (1,), (0,), (1,), (2,), (0,)),
        ((2, 3, 4), (3, 2), 0, (2,), (2,), (0,), (1,), (1,), (1,)),
        ((2, 3, 4), (3, 2), 1, (1, 2), (), (0,), (1,), (2, 2), (0, 3)),
        ((3, 2, 4), (2, 3), 0, (2,), (), (1,), (0,), (3, 1), (1, 3)),
        ((3, 4, 2), (3, 2), 2, (0,), (0,), (2,), (1,), (1,), None),
        ((3, 4, 2), (2, 4), 2, (1,), (), (2,), (0,), (3, 1), (0, 2)),
        ((2, 3, 2), (2, 2), 1, (1,), (1,), (0, 2), (0, 1), (), None),
        ((2, 3, 2), (2, 2), 1, (1,), (1,), (0, 2), (1, 0), (), None),
        ((2, 3, 2), (2, 2), 0, (1,), (), (0, 2), (0, 1), (2,), (1,)),
        ((2, 3, 2), (2, 2, 2), 3, (1,), (1,), (0, 2), (0, 2), (), None),
        ((2, 4), (2, 3), 1, (1,), (1,), (0,), (0,), (), None),
        ((2, 4), (3, 2), 0, (1,), (), (0,), (1,), (1,), (2,)),
        ((4, 2), (2, 3), 2, (0,), (), (1,), (0,), (1,), (1,)),
        ((2, 3, 4, 2), (2, 2), 2, (1, 2), (1,), (0, 3), (0, 1), (2,), None),
        ((2, 3, 4, 2), (2, 2), 0, (2, 1), (2,), (0, 3), (1, 0), (2,), (0,)),
    ]
    for k, (operand, batch, ivd, sdod, inserted, ibd, sibd, window, window_pos) in enumerate(batching):
        out.append(Scatter("batch", operand, batch, ivd, sdod, inserted, window, window_pos, ibd, sibd,
                           bodies=("add",)))
        out.append(Scatter("batch", operand, batch, len(batch), sdod, inserted, window, window_pos, ibd, sibd,
                           implicit=len(sdod) == 1, bodies=(("replace", "sub", "max", "mul")[k % 4],),
                           unique=k % 2 == 0))
    # Update computations, unique targets (non-commutative bodies included), unique_indices true / false.
    body_configs = [(op3, (3,), 1, (0,), (0,), (4, 5), None), (op3, (2, 2), 0, (2, 1), (1,), (3, 2), (0, 3)),
                    (op3, (2,), 0, (1, 2, 0), (), (1, 2, 2), None), ((4, 3), (3,), 1, (1,), (1,), (2,), (0,))]
    for k, (operand, batch, ivd, sdod, inserted, window, window_pos) in enumerate(body_configs):
        for j, body in enumerate(BODIES):
            out.append(Scatter("body", operand, batch, ivd, sdod, inserted, window, window_pos, bodies=(body,),
                               unique=(j + k) % 2 == 0))
    # Duplicate targets with order-independent bodies (integer-valued data: exact in every type).
    for k, (operand, batch, ivd, sdod, inserted, window, window_pos) in enumerate(body_configs):
        for body in ("add", "mul", "min", "max"):
            out.append(Scatter("dup", operand, batch if len(batch) > 1 or batch[0] > 2 else (3,), ivd, sdod,
                               inserted, window, window_pos, bodies=(body,), overlap="dup"))
    # Flags: unique_indices x indices_are_sorted, on replace with distinct sorted targets.
    for k, (operand, batch, ivd, sdod, inserted, window, window_pos) in enumerate(body_configs):
        for unique, srt in itertools.product((False, True), repeat=2):
            out.append(Scatter("flags", operand, batch, ivd, sdod, inserted, window, window_pos,
                               bodies=("replace",) if k % 2 == 0 else ("sub",), unique=unique, sorted=srt))
    # Variadic scatter (two operands).
    for k, (operand, batch, ivd, sdod, inserted, window, window_pos) in enumerate(body_configs):
        for bodies in (("add", "max"), ("replace", "min"), ("axpb", "replace")):
            out.append(Scatter("variadic", operand, batch, ivd, sdod, inserted, window, window_pos,
                               bodies=bodies, unique=bodies[0] != "add"))
    # Out-of-bounds windows (implementation-defined; XLA skips the whole window).
    oob_configs = body_configs + [(op3, (4,), 1, (1,), (), (3, 2, 5), None), (op3, (2, 2), 2, (0, 2), (), (1, 4, 2), None)]
    for k, (operand, batch, ivd, sdod, inserted, window, window_pos) in enumerate(oob_configs):
        for body in ("add", "replace", "max"):
            out.append(Scatter("oob", operand, batch, ivd, sdod, inserted, window, window_pos, bodies=(body,),
                               oob=True))
    for operand, batch, ivd, sdod, inserted, ibd, sibd, window, window_pos in batching[:6]:
        out.append(Scatter("oob", operand, batch, ivd, sdod, inserted, window, window_pos, ibd, sibd,
                           bodies=("add",), oob=True))
    # A single scatter index (empty / size-1 batch; scalar indices), in bounds and out of bounds.
    singles = [(op3, (), 0, (1,), (1,), (3, 5), None, False), (op3, (), 0, (1,), (1,), (3, 5), None, True),
               (op3, (), 0, (0, 2), (), (2, 4, 3), None, False), (op3, (1,), 1, (2,), (2,), (3, 4), None, False),
               (op3, (1,), 1, (1,), (), (3, 2, 5), (0, 2, 3), True), (op3, (1, 1), 2, (0, 1), (0,), (2, 5), (1, 3), False)]
    for operand, batch, ivd, sdod, inserted, window, window_pos, implicit in singles:
        for oob in (False, True):
            for body in ("add", "replace"):
                out.append(Scatter("single", operand, batch, len(batch) if implicit else ivd, sdod, inserted,
                                   window, window_pos, implicit=implicit, bodies=(body,), oob=oob))
    # An empty index vector (scatter_dims_to_operand_dims = []): every window starts at the origin.
    out.append(Scatter("emptyvec", (3, 4), (3,), 1, (), (), (2, 3), bodies=("add",)))
    out.append(Scatter("emptyvec", (3, 4), (2,), 0, (), (0,), (4,), window_pos=(0,), bodies=("max",)))
    out.append(Scatter("emptyvec", op3, (2, 2), 2, (), (2,), (3, 2), bodies=("mul",)))
    out.append(Scatter("emptyvec", (2, 3, 4), (2,), 1, (), (), (3, 4), ibd=(0,), sibd=(0,), bodies=("replace",)))
    for k, s in enumerate(out):
        s.idx = INDEX_TYPES[k % 3]
    # Narrow index types (s8 / u8 / s16 / u16): in bounds, and out of bounds at the ends of their range.
    for k, (operand, batch, ivd, sdod, inserted, window, window_pos) in enumerate(oob_configs):
        for j, idx in enumerate(NARROW_INDEX_TYPES):
            out.append(Scatter("narrow", operand, batch, ivd, sdod, inserted, window, window_pos,
                               bodies=(("add", "replace", "max")[(k + j) % 3] if (k + j) % 2 == 0 else ("add", "max")[j // 2],),
                               oob=(k + j) % 2 == 0, idx=idx))
    return out


def _dtype_bodies(bodies: tuple[str, ...], name: str) -> tuple[str, ...] | None:
    if name == "pred":
        return tuple("replace" for _ in bodies)
    if dtypes.is_complex(name):
        return tuple({"min": "add", "max": "mul"}.get(b, b) for b in bodies)
    return bodies


def _scatter_cases(grouper: Grouper) -> Iterator[CaseSpec]:
    configs = _scatter_f32_configs()
    seen: set[str] = set()

    def spec(s: Scatter, name: str, attr_family: str) -> CaseSpec:
        s.validate()
        case_id = f"scatter.{s.attrs_token()}.{name}"
        assert case_id not in seen, case_id
        seen.add(case_id)
        rng = rng_for(case_id)
        n = len(s.bodies)
        operands = [_data(rng, s.operand, name, s.bodies[k]) for k in range(n)]
        indices = s.indices(rng)
        updates = [_data(rng, s.update_shape(), name, s.bodies[k]) for k in range(n)]
        ref_name = "numpy.scatter_loop" + ("(out-of-bounds window skipped, XLA)" if s.oob else "")
        return CaseSpec(case_id, s.fn(name), operands + [indices] + updates, numpy_ref=s.ref(name),
                        numpy_ref_name=ref_name, expect_ops=("stablehlo.scatter",),
                        group=grouper("scatter", attr_family + ("batch" if s.ibd and not attr_family.startswith("batch") else "")
                                      + ("_impl_defined" if s.oob else ""), name),
                        attributes=s.attributes(), zero_inputs_ok=(n,))  # indices may all be 0

    for s in configs:
        yield spec(s, "f32", s.fam)
    for d, name in enumerate(OTHER_DTYPES):
        picked = configs[d % 13::13] if name != "pred" else [s for s in configs if s.overlap_mode() == "none"][::4]
        for s in picked:
            bodies = _dtype_bodies(s.bodies, name)
            if name == "pred" and s.overlap == "dup":
                continue
            yield spec(dataclasses.replace(s, bodies=bodies), name, "cover")


def cases() -> Iterator[CaseSpec]:
    grouper = Grouper(MAX_GROUP)
    yield from _gather_cases(grouper)
    yield from _scatter_cases(grouper)
