"""Attribute spaces of convolution and dot_general (issue 15).

convolution: every dimension-number layout (1-D, 2-D and 3-D: every permutation of the batch/feature/spatial
dimensions of lhs, rhs and output, spatial dimensions permuted between the operands included), window strides,
padding (negative and asymmetric), lhs and rhs dilation, feature_group_count (grouped and depthwise),
batch_group_count, window_reversal (emitted directly: JAX never sets it), precision_config and mixed result
types. The space is too large for a cross product: a seeded greedy covering design puts every pair of attribute
values together at least twice (f32) or once (other element types).

dot_general: batching and contracting dimensions in every position of rank 1-4 operands (several of each, in
differing orders on the two sides, none), precision_config pairs, and element types (mixed results included).

References: a direct float64 (complex128 / wrapping int64) loop over output and window positions for convolution,
numpy.einsum for dot_general.
"""
from __future__ import annotations

import itertools
from typing import Any, Iterator, Sequence

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.generator.core import CaseSpec, Grouper, rng_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.inputs import random_array, special_values, wide
from pjrt_cts.golden.generator.prims import emit, tensor_type

from jax import lax  # noqa: E402 - imported after env has configured JAX
from jax._src.interpreters import mlir  # noqa: E402 - imported after env has configured JAX
from jax._src.lax import lax as lax_internal  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir import ir  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir.dialects import hlo  # noqa: E402 - imported after env has configured JAX

P = lax.Precision
PRECISIONS = {"default": P.DEFAULT, "high": P.HIGH, "highest": P.HIGHEST}
MAX_GROUP = 24


def _enc(value: int) -> str:
    return str(value) if value >= 0 else f"m{-value}"


def _ints(values: Sequence[int]) -> str:
    return "".join(_enc(v) for v in values)


def _is_int(name: str) -> bool:
    return name[0] in "su" or name == "pred"


def _reduced_tolerance_type(dtype: str, precision: Sequence[str] | None) -> str | None:
    """DEFAULT/HIGH let a backend compute f32 at reduced precision (bf16 passes, TF32): judge at that precision.
    No precision_config at all means DEFAULT for both operands (XLA:GPU computes c64 products in TF32 then)."""
    if dtype not in ("f32", "c64"):
        return None
    if precision is None or "default" in precision:
        return "bf16"
    if "high" in precision:
        return "f16"  # TF32 / bf16x3: eps 2**-10 like f16
    return None


# --------------------------------------------------------------------------------------------------------------
# Covering design


def _covering(factors: dict[str, Sequence[Any]], strength: int, seed: int, candidates: int = 60) -> list[dict]:
    """Rows (factor -> value) in which every pair of values of two factors occurs at least `strength` times.

    Greedy (AETG-like): each new row is the best of `candidates` seeded random rows, each built value by value
    to cover the most still-missing pairs.
    """
    names = list(factors)
    levels = [len(factors[n]) for n in names]
    need: dict[tuple[int, int, int, int], int] = {}
    for a, b in itertools.combinations(range(len(names)), 2):
        for i in range(levels[a]):
            for j in range(levels[b]):
                need[(a, i, b, j)] = strength
    rng = np.random.default_rng(seed)
    rows: list[list[int]] = []
    while any(v > 0 for v in need.values()):
        best, best_gain = None, -1
        for _ in range(candidates):
            order = rng.permutation(len(names))
            row = [-1] * len(names)
            for f in order:
                gains = []
                for v in range(levels[f]):
                    gain = 0
                    for g in range(len(names)):
                        if row[g] < 0 or g == f:
                            continue
                        key = (f, v, g, row[g]) if f < g else (g, row[g], f, v)
                        gain += need[key] > 0
                    gains.append(gain)
                top = max(gains)
                choices = [v for v, gain in enumerate(gains) if gain == top]
                row[f] = int(choices[rng.integers(len(choices))])
            gain = sum(need[(a, row[a], b, row[b])] > 0 for a, b in itertools.combinations(range(len(names)), 2))
            if gain > best_gain:
                best, best_gain = row, gain
        for a, b in itertools.combinations(range(len(names)), 2):
            key = (a, best[a], b, best[b])
            need[key] = max(0, need[key] - 1)
        rows.append(best)
    return [{n: factors[n][v] for n, v in zip(names, row)} for row in rows]


# --------------------------------------------------------------------------------------------------------------
# Convolution

SPATIAL_LETTERS = {1: "W", 2: "HW", 3: "DHW"}


def _spec(layout: str, batch: str, feature: str, spatial: str) -> tuple[int, ...]:
    return (layout.index(batch), layout.index(feature)) + tuple(layout.index(s) for s in spatial)


def _dilated(n: int, d: int) -> int:
    return 0 if n == 0 else (n - 1) * d + 1


def _out_size(n: int, k: int, stride: int, pad: tuple[int, int], ld: int, rd: int) -> int:
    padded = _dilated(n, ld) + pad[0] + pad[1]
    window = _dilated(k, rd)
    return 0 if padded < window else (padded - window) // stride + 1


def _np_conv_general(lhs, rhs, strides, padding, lhs_dil, rhs_dil, reversal, fgc, bgc, out_dtype):
    """Canonical (N, C, spatial...) x (O, I, spatial...) -> (N, O, spatial...) convolution, by output position."""
    lhs, rhs = wide(lhs), wide(rhs)
    if lhs.dtype.kind in "iub":
        lhs, rhs = lhs.astype(np.int64), rhs.astype(np.int64)
    acc_dtype = np.result_type(lhs, rhs)
    n_batch, n_feat = lhs.shape[:2]
    n_out = rhs.shape[0]
    spatial_in, window = lhs.shape[2:], rhs.shape[2:]
    rank = len(window)
    out_spatial = [_out_size(spatial_in[a], window[a], strides[a], padding[a], lhs_dil[a], rhs_dil[a])
                   for a in range(rank)]
    out_batch = n_batch // bgc
    out = np.zeros((out_batch, n_out) + tuple(out_spatial), acc_dtype)
    cg = n_feat // fgc
    og_f = n_out // fgc
    og_b = n_out // bgc
    with np.errstate(all="ignore"):
        for pos in np.ndindex(*out_spatial):
            total = np.zeros((out_batch, n_out), acc_dtype)
            for k in np.ndindex(*window):
                coords = []
                for a in range(rank):
                    q = pos[a] * strides[a] + k[a] * rhs_dil[a] - padding[a][0]  # in the dilated lhs
                    if q < 0 or q > (spatial_in[a] - 1) * lhs_dil[a] or q % lhs_dil[a]:
                        break
                    coords.append(q // lhs_dil[a])
                else:
                    kk = tuple(window[a] - 1 - k[a] if reversal[a] else k[a] for a in range(rank))
                    x = lhs[(slice(None), slice(None)) + tuple(coords)]  # (N, C)
                    w = rhs[(slice(None), slice(None)) + kk]  # (O, C/fgc)
                    if bgc > 1:
                        xg = x.reshape(bgc, out_batch, n_feat)
                        wg = w.reshape(bgc, og_b, n_feat)
                        total += np.einsum("gnc,goc->ngo", xg, wg).reshape(out_batch, n_out)
                    else:
                        xg = x.reshape(n_batch, fgc, cg)
                        wg = w.reshape(fgc, og_f, cg)
                        total += np.einsum("ngc,goc->ngo", xg, wg).reshape(n_batch, n_out)
            out[(slice(None), slice(None)) + pos] = total
        return out.astype(out_dtype)


# groups token -> (feature_group_count, batch_group_count, N, C, O)
CONV_GROUPS = {
    "g1": (1, 1, 2, 3, 2),
    "fgc2": (2, 1, 2, 4, 4),
    "fgc3": (3, 1, 1, 6, 3),
    "dw3m2": (3, 1, 2, 3, 6),  # depthwise, channel multiplier 2
    "dw4": (4, 1, 1, 4, 4),  # depthwise, multiplier 1
    "bgc2": (1, 2, 4, 2, 4),
    "bgc3": (1, 3, 3, 2, 3),
}
GROUPS_SMALL = ("g1", "fgc2", "dw3m2", "bgc2")


class ConvCase:
    def __init__(self, rank: int, layouts: tuple[str, str, str], strides, padding, lhs_dil, rhs_dil, groups: str,
                 reversal, dtype: str, out_dtype: str | None = None, precision: tuple[str, str] | None = ("highest",) * 2,
                 spatial: Sequence[int] | None = None, window: Sequence[int] | None = None,
                 batch: int | None = None, tag: str = "") -> None:
        self.rank, self.layouts = rank, layouts
        self.strides, self.padding = tuple(strides), tuple(tuple(p) for p in padding)
        self.lhs_dil, self.rhs_dil, self.groups = tuple(lhs_dil), tuple(rhs_dil), groups
        self.reversal = tuple(bool(r) for r in reversal)
        self.dtype, self.out_dtype, self.precision, self.tag = dtype, out_dtype, precision, tag
        fgc, bgc, n, c, o = CONV_GROUPS[groups]
        self.fgc, self.bgc = fgc, bgc
        self.n = n if batch is None else batch
        self.c, self.o = c, o
        self.window = tuple(window) if window else (3, 2, 2)[:rank] if rank < 3 else (2, 3, 2)
        self.spatial = tuple(spatial) if spatial else self._fit_spatial()

    def _fit_spatial(self) -> tuple[int, ...]:
        base = {1: (6,), 2: (5, 4), 3: (4, 3, 4)}[self.rank]
        sizes = []
        for a in range(self.rank):
            size = base[a]
            while size < 6 and _out_size(size, self.window[a], self.strides[a], self.padding[a], self.lhs_dil[a],
                                         self.rhs_dil[a]) < 2:
                size += 1
            sizes.append(size)
        return tuple(sizes)

    @property
    def id(self) -> str:
        lhs, rhs, out = self.layouts
        prec = "" if self.precision == ("highest", "highest") else (
            "_precnone" if self.precision is None else "_prec" + "_".join(self.precision))
        dtype = self.dtype if self.out_dtype is None else f"{self.dtype}_to_{self.out_dtype}"
        pad = "".join(_enc(lo) + _enc(hi) for lo, hi in self.padding)
        return (f"conv.{self.rank}d_{lhs}_{rhs}_{out}_s{_ints(self.strides)}_pad{pad}_ld{_ints(self.lhs_dil)}"
                f"_rd{_ints(self.rhs_dil)}_{self.groups}_rev{_ints(map(int, self.reversal))}{prec}{self.tag}.{dtype}")

    def dimension_numbers(self) -> lax.ConvDimensionNumbers:
        letters = SPATIAL_LETTERS[self.rank]
        lhs, rhs, out = self.layouts
        return lax.ConvDimensionNumbers(_spec(lhs, "N", "C", letters), _spec(rhs, "O", "I", letters),
                                        _spec(out, "N", "C", letters))

    def shapes(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        lhs_spec, rhs_spec, _ = self.dimension_numbers()
        lhs_canon = (self.n, self.c) + self.spatial
        rhs_canon = (self.o, self.c // self.fgc) + self.window
        lhs_shape = [0] * len(lhs_canon)
        rhs_shape = [0] * len(rhs_canon)
        for k, dim in enumerate(lhs_spec):
            lhs_shape[dim] = lhs_canon[k]
        for k, dim in enumerate(rhs_spec):
            rhs_shape[dim] = rhs_canon[k]
        return tuple(lhs_shape), tuple(rhs_shape)

    def attributes(self) -> dict[str, Any]:
        lhs_spec, rhs_spec, out_spec = self.dimension_numbers()
        attrs = {"dimension_numbers": ",".join(self.layouts), "rank": self.rank,
                 "input_batch_dimension": lhs_spec[0], "input_feature_dimension": lhs_spec[1],
                 "input_spatial_dimensions": list(lhs_spec[2:]),
                 "kernel_output_feature_dimension": rhs_spec[0], "kernel_input_feature_dimension": rhs_spec[1],
                 "kernel_spatial_dimensions": list(rhs_spec[2:]),
                 "output_batch_dimension": out_spec[0], "output_feature_dimension": out_spec[1],
                 "output_spatial_dimensions": list(out_spec[2:]),
                 "window_strides": list(self.strides), "padding": [list(p) for p in self.padding],
                 "lhs_dilation": list(self.lhs_dil), "rhs_dilation": list(self.rhs_dil),
                 "window_reversal": [int(r) for r in self.reversal],
                 "feature_group_count": self.fgc, "batch_group_count": self.bgc,
                 "precision_config": [p.upper() for p in self.precision] if self.precision else None,
                 "element_type": self.dtype, "result_type": self.out_dtype or self.dtype}
        return attrs

    def fn(self):
        dn = self.dimension_numbers()
        precision = None if self.precision is None else tuple(PRECISIONS[p] for p in self.precision)
        preferred = None if self.out_dtype is None else dtypes.dtype_of(self.out_dtype)
        kwargs = dict(window_strides=self.strides, padding=self.padding, lhs_dilation=self.lhs_dil,
                      rhs_dilation=self.rhs_dil, dimension_numbers=dn, feature_group_count=self.fgc,
                      batch_group_count=self.bgc, precision=precision, preferred_element_type=preferred)
        if not any(self.reversal):
            return lambda x, w: lax.conv_general_dilated(x, w, **kwargs)
        reversal = list(self.reversal)

        def reversed_conv(x, w):
            out = jax.eval_shape(lambda a, b: lax.conv_general_dilated(a, b, **kwargs), x, w)

            def lower(xv, wv):
                lhs_spec, rhs_spec, out_spec = dn
                dnums = hlo.ConvDimensionNumbers.get(
                    input_batch_dimension=lhs_spec[0], input_feature_dimension=lhs_spec[1],
                    input_spatial_dimensions=list(lhs_spec[2:]),
                    kernel_output_feature_dimension=rhs_spec[0], kernel_input_feature_dimension=rhs_spec[1],
                    kernel_spatial_dimensions=list(rhs_spec[2:]),
                    output_batch_dimension=out_spec[0], output_feature_dimension=out_spec[1],
                    output_spatial_dimensions=list(out_spec[2:]))
                return hlo.convolution(
                    tensor_type(out.shape, out.dtype), xv, wv, dimension_numbers=dnums,
                    feature_group_count=mlir.i64_attr(self.fgc), batch_group_count=mlir.i64_attr(self.bgc),
                    window_strides=mlir.dense_int_array(self.strides),
                    padding=mlir.dense_int_elements(self.padding),
                    lhs_dilation=mlir.dense_int_array(self.lhs_dil), rhs_dilation=mlir.dense_int_array(self.rhs_dil),
                    window_reversal=ir.DenseBoolArrayAttr.get(reversal),
                    precision_config=lax_internal.precision_attr(precision))
            return emit(lower, [(out.shape, out.dtype)], x, w)[0]
        return reversed_conv

    def ref(self):
        lhs_spec, rhs_spec, out_spec = self.dimension_numbers()
        out_dtype = dtypes.dtype_of(self.out_dtype or self.dtype)

        def ref(xs):
            x = np.transpose(xs[0], lhs_spec)
            w = np.transpose(xs[1], rhs_spec)
            out = _np_conv_general(x, w, self.strides, self.padding, self.lhs_dil, self.rhs_dil, self.reversal,
                                   self.fgc, self.bgc, out_dtype)
            return [np.transpose(out, np.argsort(out_spec))]
        return ref

    def inputs(self, case_id: str, kind: str | None = None, specials: bool = False) -> list[np.ndarray]:
        rng = rng_for(case_id)
        lhs_shape, rhs_shape = self.shapes()
        kind = kind or ("small" if _is_int(self.dtype) else "normal")
        x = random_array(rng, lhs_shape, self.dtype, kind)
        w = random_array(rng, rhs_shape, self.dtype, kind)
        if specials and x.size:
            values = special_values(self.dtype)
            values = values[np.abs(values) < 1e30]  # no +-max: an overflow's sign depends on the summation order
            flat = x.reshape(-1)
            picks = rng.choice(flat.size, size=min(flat.size, 6), replace=False)
            for i, p in enumerate(picks):
                flat[p] = values[i % len(values)]
            flat[picks[-1]] = np.nan if flat.size > 6 else flat[picks[-1]]
        return [x, w]

    def spec(self, grouper: Grouper, attr_family: str, kind: str | None = None, specials: bool = False) -> CaseSpec:
        case_id = self.id
        out_name = self.out_dtype or self.dtype
        return CaseSpec(case_id, self.fn(), self.inputs(case_id, kind, specials), op_class="matmul",
                        numpy_ref=self.ref(), numpy_ref_name="numpy.direct_conv_loop",
                        expect_ops=("stablehlo.convolution",),
                        features=["mixed_precision"] if self.out_dtype else [],
                        tolerance_precision=_reduced_tolerance_type(out_name, self.precision),
                        group=grouper("conv", attr_family, out_name if self.out_dtype is None else
                                      f"{self.dtype}_to_{self.out_dtype}"),
                        attributes=self.attributes())


def _perms(letters: str) -> list[str]:
    return ["".join(p) for p in itertools.permutations(letters)]


def _layout_cases(grouper: Grouper) -> Iterator[CaseSpec]:
    g1 = dict(strides=None, padding=None)
    for rank in (1, 2, 3):
        sp = SPATIAL_LETTERS[rank]
        lhs_all, rhs_all, out_all = _perms("NC" + sp), _perms("OI" + sp), _perms("NC" + sp)
        triples: list[tuple[str, str, str]] = []
        if rank == 1:
            # Latin square: every (lhs, rhs), (lhs, out) and (rhs, out) pair of the 6 layouts each.
            triples = [(lhs_all[i], rhs_all[j], out_all[(i + j) % 6]) for i in range(6) for j in range(6)]
        elif rank == 2:
            # Every one of the 24 layouts of each operand, each with a different partner...
            triples = [(lhs_all[i], rhs_all[(7 * i + 3) % 24], out_all[(5 * i + 11) % 24]) for i in range(24)]
            # ... and a Latin square on the common ones.
            common_l, common_r = ["NCHW", "NHWC", "CHWN", "HWCN"], ["OIHW", "HWIO", "IOHW", "OHWI"]
            triples += [(common_l[i], common_r[j], common_l[(i + j) % 4]) for i in range(4) for j in range(4)]
        else:
            rng = np.random.default_rng(3)
            triples = [("NCDHW", "OIDHW", "NCDHW"), ("NDHWC", "DHWIO", "NDHWC"), ("CDHWN", "IODHW", "DHWNC")]
            for _ in range(21):
                triples.append((lhs_all[rng.integers(120)], rhs_all[rng.integers(120)], out_all[rng.integers(120)]))
        seen = set()
        for i, layouts in enumerate(triples):
            if layouts in seen:
                continue
            seen.add(layouts)
            strides = [(1,), (2,), (1,)][i % 3] if rank == 1 else ((1, 2), (2, 1), (1, 1))[i % 3] if rank == 2 \
                else ((1, 2, 1), (1, 1, 2), (2, 1, 1))[i % 3]
            padding = [((1, 0),), ((0, 2),), ((1, 1),)][i % 3] if rank == 1 else \
                (((1, 0), (0, 1)), ((0, 0), (2, 1)), ((1, 1), (0, 0)))[i % 3] if rank == 2 else \
                (((1, 0), (0, 0), (0, 1)), ((0, 0), (1, 1), (0, 0)), ((0, 1), (0, 0), (1, 0)))[i % 3]
            groups = ("g1", "fgc2", "bgc2")[i % 3] if rank < 3 else "g1"
            case = ConvCase(rank, layouts, strides, padding, (1,) * rank, (1,) * rank, groups, (0,) * rank, "f32")
            yield case.spec(grouper, f"layout{rank}d")
    del g1


LAYOUT_CHOICES = {
    1: [("NCW", "OIW", "NCW"), ("NWC", "WIO", "NWC"), ("CWN", "IOW", "WNC"), ("WCN", "OWI", "NCW")],
    2: [("NCHW", "OIHW", "NCHW"), ("NHWC", "HWIO", "NHWC"), ("CHWN", "IOHW", "HWCN"), ("HWCN", "OHWI", "NCHW"),
        ("NWHC", "HIWO", "WNHC"), ("CNHW", "WHOI", "NHCW")],
    3: [("NCDHW", "OIDHW", "NCDHW"), ("NDHWC", "DHWIO", "NDHWC"), ("CDWHN", "IOHDW", "NWDHC"),
        ("DHWCN", "ODHWI", "CNDHW")],
}

PADDINGS = {
    1: [((0, 0),), ((1, 1),), ((2, 0),), ((0, -1),), ((-1, 2),), ((-2, -1),)],
    2: [((0, 0), (0, 0)), ((1, 1), (1, 1)), ((2, 0), (0, 1)), ((-1, 0), (0, -1)), ((1, -1), (-1, 2)),
        ((-1, -1), (2, 2))],
    3: [((0, 0),) * 3, ((1, 1), (0, 0), (1, 1)), ((1, 0), (0, 2), (0, 1)), ((-1, 0), (0, 0), (0, -1)),
        ((1, -1), (-1, 1), (0, 0))],
}
STRIDES = {1: [(1,), (2,), (3,)], 2: [(1, 1), (2, 1), (1, 3), (2, 2)], 3: [(1, 1, 1), (2, 1, 1), (1, 2, 2)]}
LHS_DIL = {1: [(1,), (2,), (3,)], 2: [(1, 1), (2, 1), (1, 2), (3, 2)], 3: [(1, 1, 1), (1, 2, 1), (2, 1, 2)]}
RHS_DIL = {1: [(1,), (2,), (3,)], 2: [(1, 1), (2, 1), (1, 2), (2, 3)], 3: [(1, 1, 1), (2, 1, 1), (1, 1, 2)]}
REVERSALS = {1: [(0,), (1,)], 2: [(0, 0), (1, 0), (0, 1), (1, 1)], 3: [(0, 0, 0), (1, 0, 1), (0, 1, 0)]}


def _conv_cover(rank: int, dtype: str, out_dtype: str | None, strength: int, seed: int, groups=None,
                layouts=None) -> list[ConvCase]:
    factors = {"layout": layouts or LAYOUT_CHOICES[rank], "strides": STRIDES[rank], "padding": PADDINGS[rank],
               "lhs_dil": LHS_DIL[rank], "rhs_dil": RHS_DIL[rank],
               "groups": groups or (list(CONV_GROUPS) if rank < 3 else ["g1", "fgc2", "dw3m2", "bgc2"]),
               "reversal": REVERSALS[rank]}
    cases = []
    for row in _covering(factors, strength, seed):
        cases.append(ConvCase(rank, row["layout"], row["strides"], row["padding"], row["lhs_dil"], row["rhs_dil"],
                              row["groups"], row["reversal"], dtype, out_dtype))
    return cases


CONV_DTYPES = [  # (input, preferred result or None, ranks)
    ("f64", None), ("f16", None), ("bf16", None), ("s32", None), ("s8", "s32"), ("bf16", "f32"), ("f16", "f32"),
    ("u8", "u32"), ("s8", None),
]


def _conv_cases() -> Iterator[CaseSpec]:
    grouper = Grouper(MAX_GROUP)
    seen: set[str] = set()

    def once(spec: CaseSpec) -> Iterator[CaseSpec]:
        if spec.id not in seen:
            seen.add(spec.id)
            yield spec

    for spec in _layout_cases(grouper):
        yield from once(spec)
    # Every pair of attribute values at least twice in f32 (1-D, 2-D), once in 3-D.
    for rank, strength in ((1, 2), (2, 2), (3, 1)):
        for case in _conv_cover(rank, "f32", None, strength, seed=100 + rank):
            yield from once(case.spec(grouper, f"attrs{rank}d"))
    # Other element types: 2-D, every pair once, fewer group variants.
    for i, (dtype, out_dtype) in enumerate(CONV_DTYPES):
        kind = "full" if dtype in ("s8", "u8") else None  # full range: s8 results wrap, widened ones do not
        for case in _conv_cover(2, dtype, out_dtype, 1, seed=200 + i, groups=list(GROUPS_SMALL),
                                layouts=LAYOUT_CHOICES[2][:4]):
            yield from once(case.spec(grouper, "attrs2d", kind=kind))
    # precision_config pairs (f32, bf16 -> f32) on two configurations.
    base = [ConvCase(2, ("NHWC", "HWIO", "NHWC"), (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1), "g1", (0, 0), "f32"),
            ConvCase(1, ("NCW", "OIW", "NCW"), (2,), ((1, 0),), (1,), (2,), "fgc2", (1,), "f32")]
    for template in base:
        for pair in [None] + list(itertools.product(PRECISIONS, repeat=2)):
            for dtype, out_dtype in (("f32", None), ("bf16", "f32")):
                if dtype == "bf16" and pair is not None and pair[0] != pair[1]:
                    continue
                case = ConvCase(template.rank, template.layouts, template.strides, template.padding,
                                template.lhs_dil, template.rhs_dil, template.groups, template.reversal, dtype,
                                out_dtype, precision=pair)
                yield from once(case.spec(grouper, "precision"))
    # Edge values: NaN, +-inf, +-0, subnormals in the input; empty batch; empty output window.
    for dtype in ("f32", "f64", "f16", "bf16"):
        for template in (("NCHW", "OIHW", "NCHW"), ("NHWC", "HWIO", "NHWC"), ("CHWN", "IOHW", "HWCN")):
            case = ConvCase(2, template, (1, 1), ((1, 0), (0, 1)), (1, 1), (1, 1), "g1", (0, 0), dtype, tag="_specials")
            yield from once(case.spec(grouper, "specials", specials=True))
    for dtype in ("f32", "s32"):
        for layouts in (("NCHW", "OIHW", "NCHW"), ("NHWC", "HWIO", "NHWC")):
            case = ConvCase(2, layouts, (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1), "g1", (0, 0), dtype, batch=0,
                            tag="_n0")
            yield from once(case.spec(grouper, "empty"))
            # padded size below the window: an empty spatial output
            case = ConvCase(2, layouts, (1, 1), ((0, -2), (0, 0)), (1, 1), (1, 1), "g1", (0, 0), dtype,
                            spatial=(3, 4), window=(2, 2), tag="_outempty")
            yield from once(case.spec(grouper, "empty"))


# --------------------------------------------------------------------------------------------------------------
# dot_general

LETTERS = "abcdefghijklmnop"


class DotCase:
    def __init__(self, lhs_rank: int, rhs_rank: int, lb, lc, rb, rc, dtype: str, out_dtype: str | None = None,
                 precision: tuple[str, str] | None = ("highest", "highest"), sizes: dict | None = None,
                 tag: str = "") -> None:
        self.lhs_rank, self.rhs_rank = lhs_rank, rhs_rank
        self.lb, self.lc, self.rb, self.rc = tuple(lb), tuple(lc), tuple(rb), tuple(rc)
        self.dtype, self.out_dtype, self.precision, self.tag = dtype, out_dtype, precision, tag
        self.sizes = sizes or {}

    @property
    def id(self) -> str:
        def t(dims):
            return "".join(map(str, dims)) if dims else "n"
        prec = "" if self.precision == ("highest", "highest") else (
            "_precnone" if self.precision is None else "_prec" + "_".join(self.precision))
        dtype = self.dtype if self.out_dtype is None else f"{self.dtype}_to_{self.out_dtype}"
        return (f"dot.r{self.lhs_rank}x{self.rhs_rank}_lb{t(self.lb)}_lc{t(self.lc)}_rb{t(self.rb)}_rc{t(self.rc)}"
                f"{prec}{self.tag}.{dtype}")

    def einsum(self) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
        """The einsum spec and the two operand shapes."""
        lhs = [""] * self.lhs_rank
        rhs = [""] * self.rhs_rank
        letters = iter(LETTERS)
        sizes: dict[str, int] = {}
        batch_sizes, contract_sizes = [2, 3], [4, 5, 3]
        for i, (l, r) in enumerate(zip(self.lb, self.rb)):
            c = next(letters)
            lhs[l] = rhs[r] = c
            sizes[c] = self.sizes.get(("b", i), batch_sizes[i])
        for i, (l, r) in enumerate(zip(self.lc, self.rc)):
            c = next(letters)
            lhs[l] = rhs[r] = c
            sizes[c] = self.sizes.get(("c", i), contract_sizes[i])
        lhs_free, rhs_free = [], []
        free_pool = [3, 2, 5, 4, 6]
        for side, free in ((lhs, lhs_free), (rhs, rhs_free)):
            used = {sizes[c] for c in side if c}
            pool = [s for s in free_pool if s not in used] + free_pool
            for i, c in enumerate(side):
                if not c:
                    c = next(letters)
                    side[i] = c
                    sizes[c] = self.sizes.get(("f", "lr"[side is rhs], len(free)), pool[len(free)])
                    free.append(c)
        batch = [lhs[l] for l in self.lb]
        spec = f"{''.join(lhs)},{''.join(rhs)}->{''.join(batch + lhs_free + rhs_free)}"
        return spec, tuple(sizes[c] for c in lhs), tuple(sizes[c] for c in rhs)

    def attributes(self) -> dict[str, Any]:
        return {"lhs_batching_dimensions": list(self.lb), "rhs_batching_dimensions": list(self.rb),
                "lhs_contracting_dimensions": list(self.lc), "rhs_contracting_dimensions": list(self.rc),
                "lhs_rank": self.lhs_rank, "rhs_rank": self.rhs_rank,
                "precision_config": [p.upper() for p in self.precision] if self.precision else None,
                "element_type": self.dtype, "result_type": self.out_dtype or self.dtype}

    def spec(self, grouper: Grouper, attr_family: str, kind: str | None = None, specials: bool = False) -> CaseSpec:
        case_id = self.id
        einsum, lhs_shape, rhs_shape = self.einsum()
        rng = rng_for(case_id)
        kind = kind or ("small" if _is_int(self.dtype) else "normal")
        a, b = random_array(rng, lhs_shape, self.dtype, kind), random_array(rng, rhs_shape, self.dtype, kind)
        if specials and a.size > 4:
            flat = a.reshape(-1)
            values = [np.nan, np.inf, -np.inf, -0.0, float(dtypes.finfo(self.dtype).smallest_subnormal)]
            picks = rng.choice(flat.size, size=len(values), replace=False)
            for p, v in zip(picks, values):
                flat[p] = v
        dims = ((self.lc, self.rc), (self.lb, self.rb))
        precision = None if self.precision is None else tuple(PRECISIONS[p] for p in self.precision)
        out_name = self.out_dtype or self.dtype
        out_dtype = dtypes.dtype_of(out_name)
        preferred = None if self.out_dtype is None else out_dtype

        def ref(xs):
            x, y = wide(xs[0]), wide(xs[1])
            if x.dtype.kind in "iub":
                x, y = x.astype(np.int64), y.astype(np.int64)  # wraps like the narrow type after the cast
            with np.errstate(all="ignore"):
                return [np.asarray(np.einsum(einsum, x, y)).astype(out_dtype)]
        return CaseSpec(case_id, lambda x, y: lax.dot_general(x, y, dims, precision=precision,
                                                              preferred_element_type=preferred),
                        [a, b], op_class="matmul", numpy_ref=ref, numpy_ref_name="numpy.einsum",
                        expect_ops=("stablehlo.dot_general",),
                        features=["mixed_precision"] if self.out_dtype else [],
                        tolerance_precision=_reduced_tolerance_type(out_name, self.precision),
                        group=grouper("dot", attr_family, self.dtype if self.out_dtype is None else
                                      f"{self.dtype}_to_{self.out_dtype}"),
                        attributes={**self.attributes(), "einsum": einsum})


def _assignments(rank: int, nb: int, nc: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every ordered choice of nb batching then nc contracting positions among `rank` dimensions."""
    out = []
    for batch in itertools.permutations(range(rank), nb):
        rest = [d for d in range(rank) if d not in batch]
        for contract in itertools.permutations(rest, nc):
            out.append((batch, contract))
    return out


def _dot_structures(cap: int) -> list[tuple[int, int, tuple, tuple, tuple, tuple]]:
    """(lhs_rank, rhs_rank, lb, lc, rb, rc): per rank pair and dimension counts, up to `cap` position choices
    stepping through every lhs and every rhs assignment (coprime strides)."""
    structures = []
    for lr in range(1, 5):
        for rr in range(1, 5):
            for nb in range(0, 3):
                for nc in range(0, 4):
                    if nb + nc > min(lr, rr):
                        continue
                    if nb + (lr - nb - nc) + (rr - nb - nc) > 4:
                        continue  # result rank <= 4
                    if lr + rr > 7 and nc == 0 and nb == 0:
                        continue
                    left, right = _assignments(lr, nb, nc), _assignments(rr, nb, nc)
                    count = min(cap, max(len(left), len(right)))
                    for i in range(count):
                        lb, lc = left[(i * 5) % len(left)] if len(left) % 5 else left[(i * 7) % len(left)]
                        rb, rc = right[(i * 7 + 1) % len(right)] if len(right) % 7 else right[(i * 5 + 1) % len(right)]
                        structures.append((lr, rr, lb, lc, rb, rc))
    return list(dict.fromkeys(structures))


# A representative set for the other element types: multiple batching and contracting dims in differing orders,
# outer product, full contraction to a scalar, batch-only.
REPRESENTATIVE = [
    (2, 2, (), (1,), (), (0,)),
    (2, 2, (), (0,), (), (1,)),
    (3, 3, (2,), (0,), (0,), (2,)),
    (4, 4, (1, 3), (2, 0), (2, 0), (3, 1)),
    (3, 4, (0,), (2, 1), (3,), (0, 2)),
    (4, 3, (3, 0), (2,), (1, 2), (0,)),
    (2, 2, (), (), (), ()),
    (2, 2, (), (0, 1), (), (1, 0)),
    (3, 2, (1, 0), (), (0, 1), ()),
    (1, 3, (), (0,), (), (1,)),
]

DOT_DTYPES = [  # (input, preferred result or None, kind)
    ("f64", None, None), ("bf16", None, None), ("f16", None, None), ("c64", None, None), ("c128", None, None),
    ("s32", None, "full"), ("s8", None, "full"), ("u8", None, "full"), ("s64", None, None), ("u32", None, None),
    ("s8", "s32", "full"), ("u8", "u32", "full"), ("u8", "s32", "full"), ("bf16", "f32", None),
    ("f16", "f32", None), ("s16", "s32", "full"), ("f32", "f64", None), ("pred", None, None),
]


def _dot_cases() -> Iterator[CaseSpec]:
    grouper = Grouper(MAX_GROUP)
    seen: set[str] = set()

    def once(spec: CaseSpec) -> Iterator[CaseSpec]:
        if spec.id not in seen:
            seen.add(spec.id)
            yield spec

    for structure in _dot_structures(cap=4):
        yield from once(DotCase(*structure, "f32").spec(grouper, "dims"))
    for dtype, out_dtype, kind in DOT_DTYPES:
        for structure in REPRESENTATIVE:
            if dtype == "pred" and structure[3] == ():
                continue
            yield from once(DotCase(*structure, dtype, out_dtype).spec(grouper, "dtypes", kind=kind))
    # precision_config pairs
    for structure in (REPRESENTATIVE[0], REPRESENTATIVE[3]):
        for pair in [None] + list(itertools.product(PRECISIONS, repeat=2)):
            yield from once(DotCase(*structure, "f32", precision=pair).spec(grouper, "precision"))
            if pair is None or pair[0] == pair[1]:
                for dtype, out in (("bf16", None), ("bf16", "f32"), ("f16", None), ("f64", None), ("c64", None)):
                    yield from once(DotCase(*structure, dtype, out, precision=pair).spec(grouper, "precision"))
    # Edge values and empty dimensions.
    for dtype in ("f32", "f64", "bf16", "f16", "c64"):
        for structure in (REPRESENTATIVE[0], REPRESENTATIVE[3], REPRESENTATIVE[4]):
            if dtype == "c64":
                continue
            yield from once(DotCase(*structure, dtype, tag="_specials").spec(grouper, "specials", specials=True))
    for dtype in ("f32", "s32"):
        for name, sizes in (("contract0", {("c", 0): 0}), ("batch0", {("b", 0): 0}), ("free0", {("f", "l", 0): 0})):
            structure = REPRESENTATIVE[2]
            yield from once(DotCase(*structure, dtype, sizes=sizes, tag=f"_{name}").spec(grouper, "empty"))


def cases() -> Iterator[CaseSpec]:
    yield from _conv_cases()
    yield from _dot_cases()
