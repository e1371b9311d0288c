"""Attribute spaces of the data-movement ops (issue 15): slice, dynamic_slice, dynamic_update_slice, pad,
concatenate, broadcast_in_dim, transpose, reverse, reshape and iota, each op's attributes enumerated on tiny
shapes (fully in f32, a representative subset in the other element types: pure data movement, so every
type's bits must move unchanged; the inputs carry NaN, +-inf, -0.0, subnormals and integer extremes).

JAX elides some settings (identity transpose/broadcast) and refuses others StableHLO allows (broadcast
dimensions out of order): those are emitted as the StableHLO op itself with `prims.emit`.
Dynamic starts are passed raw (allow_negative_indices=False): negative and past-the-end starts test the
spec's clamp, in every index type. JAX emits get_dimension_size only for shape-polymorphic dimensions and
never set_dimension_size, so both are emitted directly: get_dimension_size of every dimension up to rank 4
(and of an empty one); set_dimension_size (XLA's bounded dynamism, outside the spec document) of each
dimension to 0, 1, part of and all of its bound, with the size a runtime argument, observed through a sum
over that dimension (a plugin must add only the first `size` slices).
"""
from __future__ import annotations

import itertools
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.families.movement import _np_dynamic_slice, _np_dynamic_update_slice, _np_pad
from pjrt_cts.golden.generator.inputs import random_array, special_values
from pjrt_cts.golden.generator.prims import add_region, emit, tensor_type

from jax import lax  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir import ir  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir.dialects import hlo  # noqa: E402 - imported after env has configured JAX

# The other element types (f32 gets the full enumeration).
OTHERS = ("s32", "bf16", "f16", "f64", "u8", "s8", "pred", "c64", "s64")
GROUP_LIMIT = 24


# ---------------------------------------------------------------------------------------------- helpers
def _data(rng: np.random.Generator, shape: Sequence[int], dtype: str) -> np.ndarray:
    """Random values with the type's edge values at a few random positions (never all zeros)."""
    x = np.array(random_array(rng, shape, dtype))  # a writable array, also for rank 0
    if x.size and not np.any(x != 0):  # a tiny pred/int array can come out all false/zero: set one element
        x.reshape(-1)[0] = np.ones((), dtype=x.dtype)
    if x.size < 3 or dtype == "pred":
        return x
    count = min(4, x.size // 3)
    where = rng.choice(x.size, size=count, replace=False)
    if dtype in dtypes.INTEGER_NAMES:
        info = np.iinfo(x.dtype)
        edges = np.array([info.min, info.max, info.max - 1, info.min + 1 if info.min else 1], dtype=x.dtype)
    elif dtypes.is_complex(dtype):
        edges = np.array([complex(np.nan, 1.0), complex(-0.0, np.inf), complex(-np.inf, -0.0), complex(0.0, np.nan)],
                         dtype=x.dtype)
    else:
        tiny = float(special_values(dtype)[7])
        edges = np.array([np.nan, -0.0, np.inf, tiny / 4, -np.inf], dtype=np.float64).astype(x.dtype)
        edges = np.roll(edges, int(rng.integers(len(edges))))
    flat = x.reshape(-1)
    flat[where] = edges[:count]
    return flat.reshape(x.shape)


def _tok(values: Sequence[int]) -> str:
    """Ints as an id token: 1x0xm2 (m = minus); 'none' for an empty list."""
    return "x".join(f"m{-v}" if v < 0 else str(v) for v in values) if len(values) else "none"


def _shape_tok(shape: Sequence[int]) -> str:
    return "x".join(str(d) for d in shape) if len(shape) else "scalar"


def _grouped(specs: list[CaseSpec], family: str) -> Iterator[CaseSpec]:
    """Set `group` to `family` (movement.<attribute family>.<dtype>), split into chunks of GROUP_LIMIT."""
    chunks = [specs[i:i + GROUP_LIMIT] for i in range(0, len(specs), GROUP_LIMIT)]
    fam, _, dtype = family.rpartition(".")
    for n, chunk in enumerate(chunks):
        name = f"{fam}_g{n}.{dtype}"  # always numbered: `movement.pad.f32` is a case id of movement
        for spec in chunk:
            spec.group = name
            yield spec


def _case(case_id: str, fn: Callable, inputs: Any, ref: Callable, op: str, attributes: dict,
          ref_name: str, **kw: Any) -> CaseSpec:
    return CaseSpec(case_id, fn, inputs, op_class="exact", numpy_ref=ref, numpy_ref_name=ref_name,
                    expect_ops=(f"stablehlo.{op}",), attributes=attributes, **kw)


def _emit_transpose(x, perm):
    out_shape = tuple(x.shape[p] for p in perm)
    return emit(lambda v: hlo.transpose(v, list(perm)), [(out_shape, x.dtype)], x)[0]


def _emit_broadcast(x, shape, dims):
    return emit(lambda v: hlo.broadcast_in_dim(tensor_type(shape, x.dtype), v, list(dims)),
                [(tuple(shape), x.dtype)], x)[0]


def _np_broadcast_in_dim(x: np.ndarray, shape: Sequence[int], dims: Sequence[int]) -> np.ndarray:
    """broadcast_in_dim: result[i] = operand[i[dims[0]] (or 0 if size 1), ...]."""
    order = sorted(range(len(dims)), key=lambda k: dims[k])
    moved = np.transpose(x, order) if len(dims) else x
    view = [1] * len(shape)
    for k in order:
        view[dims[k]] = x.shape[k]
    return np.broadcast_to(moved.reshape(view), tuple(shape)).copy()


# -------------------------------------------------------------------------------------------- transpose
def _transpose(dtype: str, perms: Sequence[tuple[int, ...]], shapes: dict[int, tuple[int, ...]],
               extra: Sequence[tuple[tuple[int, ...], tuple[int, ...], str]] = ()) -> Iterator[CaseSpec]:
    by_rank: dict[str, list[CaseSpec]] = {}
    items = [(shapes[len(p)], p, "") for p in perms] + list(extra)
    for shape, perm, tag in items:
        case_id = f"movement.transpose_{_shape_tok(shape)}_p{''.join(map(str, perm)) or 'none'}{tag}.{dtype}"
        identity = tuple(perm) == tuple(range(len(perm)))
        fn = (lambda v, p=perm: _emit_transpose(v, p)) if identity else (lambda v, p=perm: lax.transpose(v, p))
        x = _data(rng_for(case_id), shape, dtype)
        spec = _case(case_id, fn, [x], lambda xs, p=perm: [np.transpose(xs[0], p)], "transpose",
                     {"permutation": list(perm)}, "numpy.transpose")
        by_rank.setdefault(f"movement.transpose_r{len(perm)}{'z' if tag else ''}.{dtype}", []).append(spec)
    for family, specs in by_rank.items():
        yield from _grouped(specs, family)


TRANSPOSE_SHAPES = {0: (), 1: (5,), 2: (3, 4), 3: (2, 3, 4), 4: (2, 3, 4, 5)}


def _transpose_f32() -> Iterator[CaseSpec]:
    perms = [p for r in range(5) for p in itertools.permutations(range(r))]
    extra = [((2, 0, 3), p, "_z") for p in itertools.permutations(range(3))]  # a zero-size dimension
    extra += [((1, 3, 1, 4), p, "_z") for p in ((2, 1, 0, 3), (3, 0, 2, 1), (1, 3, 0, 2))]  # size-1 dims
    yield from _transpose("f32", perms, TRANSPOSE_SHAPES, extra)


def _transpose_other(dtype: str) -> Iterator[CaseSpec]:
    perms = [p for p in itertools.permutations(range(3)) if p != (0, 1, 2)] + [(1, 3, 0, 2)]
    yield from _transpose(dtype, perms, TRANSPOSE_SHAPES)


# --------------------------------------------------------------------------------------------- reverse
REVERSE_SHAPES = {0: (), 1: (5,), 2: (3, 4), 3: (2, 3, 4), 4: (2, 3, 2, 3)}


def _reverse(dtype: str, items: Sequence[tuple[tuple[int, ...], tuple[int, ...]]]) -> Iterator[CaseSpec]:
    specs = []
    for shape, dims in items:
        case_id = f"movement.reverse_{_shape_tok(shape)}_d{''.join(map(str, dims)) or 'none'}.{dtype}"
        x = _data(rng_for(case_id), shape, dtype)
        specs.append(_case(case_id, lambda v, d=dims: lax.rev(v, d), [x],
                           lambda xs, d=dims: [np.flip(xs[0], d) if d else xs[0]], "reverse",
                           {"dimensions": list(dims)}, "numpy.flip"))
    yield from _grouped(specs, f"movement.reverse.{dtype}")


def _subsets(rank: int) -> list[tuple[int, ...]]:
    return [s for k in range(rank + 1) for s in itertools.combinations(range(rank), k)]


def _reverse_f32() -> Iterator[CaseSpec]:
    items = [(REVERSE_SHAPES[r], s) for r in range(4) for s in _subsets(r)]
    items += [(REVERSE_SHAPES[4], s) for s in ((0, 3), (1, 2), (0, 1, 2, 3), (2,))]
    items += [((3, 0, 2), (0, 1)), ((3, 0, 2), (2,)), ((1, 4, 1), (0, 2)), ((1, 4, 1), (0, 1, 2))]
    yield from _reverse("f32", items)


def _reverse_other(dtype: str) -> Iterator[CaseSpec]:
    items = [(REVERSE_SHAPES[3], s) for s in ((1,), (0, 2), (0, 1, 2))] + [(REVERSE_SHAPES[2], (1,))]
    yield from _reverse(dtype, items)


# ----------------------------------------------------------------------------------------------- slice
SLICE_F32 = [
    ((6,), (0,), (6,), (1,)), ((6,), (1,), (5,), (1,)), ((6,), (0,), (6,), (2,)), ((6,), (1,), (6,), (2,)),
    ((6,), (0,), (6,), (3,)), ((6,), (2,), (6,), (4,)), ((6,), (0,), (6,), (5,)), ((6,), (0,), (6,), (6,)),
    ((6,), (0,), (6,), (7,)), ((6,), (3,), (6,), (7,)), ((6,), (5,), (6,), (1,)), ((6,), (5,), (6,), (9,)),
    ((6,), (0,), (0,), (1,)), ((6,), (3,), (3,), (2,)), ((6,), (6,), (6,), (1,)), ((6,), (4,), (5,), (3,)),
    ((6,), (1,), (4,), (2,)),
    ((4, 5), (0, 0), (4, 5), (1, 1)), ((4, 5), (1, 0), (3, 5), (1, 2)), ((4, 5), (0, 1), (4, 4), (3, 2)),
    ((4, 5), (0, 0), (4, 5), (5, 6)), ((4, 5), (2, 2), (2, 4), (1, 1)), ((4, 5), (1, 3), (4, 3), (1, 1)),
    ((4, 5), (3, 4), (4, 5), (1, 1)), ((4, 5), (1, 1), (4, 5), (2, 3)),
    ((2, 3, 4), (0, 0, 0), (2, 3, 4), (1, 1, 1)), ((2, 3, 4), (1, 0, 1), (2, 3, 4), (1, 2, 2)),
    ((2, 3, 4), (0, 1, 0), (2, 3, 4), (2, 1, 3)), ((2, 3, 4), (0, 0, 0), (2, 3, 4), (3, 4, 5)),
    ((2, 3, 4), (0, 0, 0), (1, 0, 4), (1, 1, 1)), ((2, 3, 4), (1, 2, 3), (2, 3, 4), (1, 1, 1)),
    ((2, 3, 2, 4), (0, 1, 0, 1), (2, 3, 2, 4), (1, 1, 1, 2)), ((2, 3, 2, 4), (1, 0, 1, 0), (2, 3, 2, 3), (2, 2, 3, 2)),
    ((0, 5), (0, 1), (0, 4), (1, 2)), ((1, 5, 1), (0, 1, 0), (1, 5, 1), (1, 3, 1)),
]
SLICE_OTHER = [SLICE_F32[i] for i in (8, 13, 19, 26)]


def _slice(dtype: str, configs) -> Iterator[CaseSpec]:
    specs = []
    for shape, start, limit, strides in configs:
        case_id = (f"movement.slice_{_shape_tok(shape)}_s{_tok(start)}_l{_tok(limit)}_t{_tok(strides)}.{dtype}")
        x = _data(rng_for(case_id), shape, dtype)
        index = tuple(slice(a, b, c) for a, b, c in zip(start, limit, strides))
        specs.append(_case(case_id, lambda v, a=start, b=limit, c=strides: lax.slice(v, a, b, c), [x],
                           lambda xs, i=index: [xs[0][i]], "slice",
                           {"start_indices": list(start), "limit_indices": list(limit), "strides": list(strides)},
                           "numpy.slicing"))
    yield from _grouped(specs, f"movement.slice.{dtype}")


# ----------------------------------------------------------------------------- dynamic_slice / update
def _start_tok(value: int, index_dtype: str) -> str:
    info = np.iinfo(dtypes.dtype_of(index_dtype))
    if value == info.max:
        return "max"
    if value == info.min and info.min < 0:
        return "min"
    if info.min == 0 and value == (info.max + 1) // 2:
        return "half"  # the sign bit alone: negative if misread as signed
    return f"m{-value}" if value < 0 else str(value)


# (operand shape, slice/update shape, starts, index type)
DS_F32 = []
for _it in ("s32", "s64", "u32", "s8", "u8", "s16", "u64"):
    _info = np.iinfo(dtypes.dtype_of(_it))
    _signed = _info.min < 0
    _starts = [(1, 2), (0, 0), (2, 3), (3, 9), (_info.max, 1)]
    _starts += [(-1, 2), (-7, -1), (_info.min, 2)] if _signed else [((_info.max + 1) // 2, 1), (1, _info.max - 1)]
    if _it not in ("s32", "s64", "u32"):  # the narrow and the other wide index types: in range and the extremes
        _starts = [(1, 2), (_info.max, 1), (_info.min, 2) if _signed else ((_info.max + 1) // 2, 1)]
    DS_F32 += [((4, 5), (2, 3), s, _it) for s in _starts]
DS_F32 += [((6,), (3,), (4,), "s32"), ((6,), (3,), (-2,), "s32"), ((6,), (6,), (1,), "s32"), ((6,), (0,), (9,), "s32"),
           ((6,), (1,), (5,), "u32"), ((2, 3, 4), (1, 2, 3), (1, 1, 1), "s32"), ((2, 3, 4), (2, 2, 2), (5, -3, 2), "s32"),
           ((2, 3, 4), (1, 3, 2), (1, 1, 9), "s64"), ((2, 3, 2, 4), (1, 2, 1, 3), (1, 2, -1, 1), "s32"),
           ((2, 3, 2, 4), (2, 1, 2, 1), (0, 4, 0, 3), "u32"), ((4, 5), (0, 3), (2, 1), "s32"),
           ((4, 5), (4, 5), (3, 3), "s32"), ((1, 5), (1, 2), (1, -1), "s32")]
DS_OTHER = [((4, 5), (2, 3), (1, 2), "s32"), ((4, 5), (2, 3), (3, -7), "s64"),
            ((4, 5), (2, 3), (4294967295, 2147483648), "u32")]


def _dynamic(dtype: str, configs, update: bool) -> Iterator[CaseSpec]:
    op = "dynamic_update_slice" if update else "dynamic_slice"
    specs = []
    for shape, size, starts, index_dtype in configs:
        sizes_tok = "up" if update else "sz"
        case_id = (f"movement.{op}_{_shape_tok(shape)}_{sizes_tok}{_shape_tok(size)}"
                   f"_i{'x'.join(_start_tok(s, index_dtype) for s in starts)}_{index_dtype}.{dtype}")
        rng = rng_for(case_id)
        x = _data(rng, shape, dtype)
        index_type = dtypes.dtype_of(index_dtype)
        indices = [np.asarray(s, dtype=index_type) for s in starts]
        zero_ok = tuple(range(2 if update else 1, (2 if update else 1) + len(starts)))
        attributes = {"start_indices": list(starts), "index_type": index_dtype}
        if update:
            u = _data(rng, size, dtype)
            if u.size and not np.any(u != 0):
                u.flat[0] = 1
            fn = (lambda v, w, *i: lax.dynamic_update_slice(v, w, i, allow_negative_indices=False))
            ref = (lambda xs: [_np_dynamic_update_slice(xs[0], xs[1], [int(i) for i in xs[2:]])])
            inputs = [x, u] + indices
            attributes["update_shape"] = list(size)
            zero_ok = zero_ok + ((1,) if u.size == 0 else ())
        else:
            fn = (lambda v, *i, s=size: lax.dynamic_slice(v, i, s, allow_negative_indices=False))
            ref = (lambda xs, s=size: [_np_dynamic_slice(xs[0], [int(i) for i in xs[1:]], s)])
            inputs = [x] + indices
            attributes = {"slice_sizes": list(size), **attributes}
        specs.append(_case(case_id, fn, inputs, ref, op, attributes, f"numpy.{op}_clamped", zero_inputs_ok=zero_ok))
    yield from _grouped(specs, f"movement.{op}.{dtype}")


DUS_F32 = [c for c in DS_F32 if c[1] != (0,) and c[1] != (6,)] + [((6,), (6,), (2,), "s32"), ((4, 5), (1, 5), (-3, 2), "s64")]
DUS_OTHER = DS_OTHER

# ------------------------------------------------------------------------------------------------- pad
PAD_F32 = [
    ((5,), [(0, 0, 0)]), ((5,), [(2, 0, 0)]), ((5,), [(0, 3, 0)]), ((5,), [(1, 2, 0)]), ((5,), [(-1, 0, 0)]),
    ((5,), [(0, -2, 0)]), ((5,), [(-2, -1, 0)]), ((5,), [(0, 0, 1)]), ((5,), [(0, 0, 2)]), ((5,), [(1, 1, 1)]),
    ((5,), [(-1, -1, 1)]), ((5,), [(-2, 0, 2)]), ((5,), [(2, -3, 1)]), ((5,), [(-5, 0, 0)]), ((5,), [(-3, -3, 1)]),
    ((5,), [(-9, 0, 1)]), ((5,), [(3, -4, 0)]), ((5,), [(-4, 6, 3)]),
    ((3, 4), [(1, -1, 1), (0, 0, 0)]), ((3, 4), [(0, 0, 0), (1, -1, 1)]), ((3, 4), [(-1, 2, 0), (2, -1, 2)]),
    ((3, 4), [(-2, -2, 3), (0, 1, 0)]), ((3, 4), [(2, 2, 0), (-2, -2, 0)]), ((3, 4), [(0, -3, 0), (1, 0, 1)]),
    ((2, 3, 4), [(1, -1, 1), (0, 0, 0), (0, 0, 0)]), ((2, 3, 4), [(0, 0, 0), (1, -1, 1), (0, 0, 0)]),
    ((2, 3, 4), [(0, 0, 0), (0, 0, 0), (1, -1, 1)]), ((2, 3, 4), [(-1, 1, 1), (2, 0, 0), (0, -2, 2)]),
    ((2, 2, 3, 2), [(1, 0, 0), (0, 1, 1), (-1, 0, 1), (0, 0, 2)]), ((2, 2, 3, 2), [(0, -1, 0), (-1, 0, 0), (1, 1, 0), (2, -1, 1)]),
    ((0, 3), [(2, 1, 0), (0, 0, 1)]), ((3, 0), [(0, 0, 1), (1, 2, 3)]),
]
PAD_OTHER = [PAD_F32[i] for i in (10, 15, 20, 27)]
# Special padding values (f32 only): (id token, value).
PAD_VALUES_F32 = [("nan", np.nan), ("negzero", -0.0), ("inf", np.inf)]


def _pad(dtype: str, configs, special: bool) -> Iterator[CaseSpec]:
    specs = []
    items = [(shape, config, None) for shape, config in configs]
    if special:
        items += [(configs[i][0], configs[i][1], pv) for i, pv in zip((10, 21, 27), PAD_VALUES_F32)]
    for shape, config, pv in items:
        low, high, interior = (list(t) for t in zip(*config))
        case_id = (f"movement.pad_{_shape_tok(shape)}_lo{_tok(low)}_hi{_tok(high)}_in{_tok(interior)}"
                   f"{'_pv' + pv[0] if pv else ''}.{dtype}")
        rng = rng_for(case_id)
        x = _data(rng, shape, dtype)
        if pv is not None:
            value = np.asarray(pv[1], dtype=x.dtype)
        else:
            value = random_array(rng, (1,), dtype, "nonzero").reshape(())
        specs.append(_case(case_id, lambda v, p, c=config: lax.pad(v, p, c), [x, value],
                           lambda xs, c=config: [_np_pad(xs[0], xs[1], c)], "pad",
                           {"edge_padding_low": low, "edge_padding_high": high, "interior_padding": interior},
                           "numpy.pad_cropped", zero_inputs_ok=(1,)))
    yield from _grouped(specs, f"movement.pad.{dtype}")


# ----------------------------------------------------------------------------------------- concatenate
CONCAT_BASE = {1: (3,), 2: (2, 3), 3: (2, 3, 2), 4: (2, 1, 2, 2)}
CONCAT_WIDTHS = {2: (2, 3), 3: (1, 3, 2), 4: (2, 1, 3, 1)}


def _concat_items_f32():
    items = []
    for rank in (1, 2, 3):
        for dim in range(rank):
            for n in (2, 3, 4):
                items.append((rank, dim, CONCAT_WIDTHS[n]))
            items.append((rank, dim, (2, 0, 3)))  # an empty operand in the middle
    items += [(4, d, (1, 2)) for d in range(4)]
    items += [(2, 0, (0, 3)), (2, 1, (2, 0)), (3, 2, (0, 0, 2)), (1, 0, (0, 1, 0, 2))]
    return items


def _concatenate(dtype: str, items) -> Iterator[CaseSpec]:
    specs = []
    for rank, dim, widths in items:
        base = CONCAT_BASE[rank]
        shapes = [tuple(w if i == dim else d for i, d in enumerate(base)) for w in widths]
        case_id = f"movement.concatenate_r{rank}_d{dim}_n{len(widths)}_w{_tok(widths)}.{dtype}"
        rng = rng_for(case_id)
        xs = [_data(rng, s, dtype) for s in shapes]
        specs.append(_case(case_id, lambda *v, d=dim: lax.concatenate(v, d), xs,
                           lambda arrays, d=dim: [np.concatenate(arrays, d)], "concatenate",
                           {"dimension": dim, "num_operands": len(widths)}, "numpy.concatenate"))
    yield from _grouped(specs, f"movement.concatenate.{dtype}")


# -------------------------------------------------------------------------------------- broadcast_in_dim
BROADCAST_RESULT = {0: (), 1: (4,), 2: (3, 4), 3: (2, 3, 4)}


def _broadcast_items_f32():
    """Every (result rank R <= 3, injective map operand dims -> result dims, size-1 expansion subset)."""
    items = []
    for rank in range(4):
        for operand_rank in range(rank + 1):
            for dims in itertools.permutations(range(rank), operand_rank):
                for ones in _subsets(operand_rank):
                    items.append((rank, dims, ones))
    return items


BROADCAST_OTHER = [(3, (1,), ()), (3, (0, 2), (0,)), (3, (2, 0, 1), (1,)), (2, (), ())]


def _broadcast(dtype: str, items) -> Iterator[CaseSpec]:
    by_family: dict[str, list[CaseSpec]] = {}
    for rank, dims, ones in items:
        shape = BROADCAST_RESULT[rank]
        operand = tuple(1 if k in ones else shape[d] for k, d in enumerate(dims))
        case_id = (f"movement.broadcast_in_dim_{_shape_tok(operand)}_to_{_shape_tok(shape)}"
                   f"_bd{''.join(map(str, dims)) or 'none'}.{dtype}")
        x = _data(rng_for(case_id), operand, dtype)
        direct = list(dims) != sorted(dims) or (operand == shape and list(dims) == list(range(rank)))
        if direct:
            fn = lambda v, s=shape, d=dims: _emit_broadcast(v, s, d)  # noqa: E731  (JAX refuses or elides it)
        else:
            fn = lambda v, s=shape, d=dims: lax.broadcast_in_dim(v, s, d)  # noqa: E731 - a named one-line reference function
        spec = _case(case_id, fn, [x], lambda xs, s=shape, d=dims: [_np_broadcast_in_dim(xs[0], s, d)],
                     "broadcast_in_dim", {"broadcast_dimensions": list(dims)}, "numpy.broadcast_to")
        by_family.setdefault(f"movement.broadcast_in_dim_r{rank}.{dtype}", []).append(spec)
    for family, specs in by_family.items():
        yield from _grouped(specs, family)


# ---------------------------------------------------------------------------------------------- reshape
RESHAPE_F32 = [
    ((), (1,)), ((), (1, 1, 1)), ((1,), ()), ((1, 1, 1), ()), ((1, 1, 1, 1), (1,)), ((6,), (2, 3)), ((2, 3), (3, 2)),
    ((2, 3), (6,)), ((2, 3, 4), (4, 6)), ((2, 3, 4), (24,)), ((24,), (2, 3, 4)), ((2, 3, 4), (2, 12)),
    ((2, 3, 4), (1, 2, 1, 12)), ((1, 6), (6, 1)), ((2, 1, 3), (3, 2)), ((0, 3), (3, 0)), ((2, 0), (0,)),
    ((1, 2, 3, 4), (4, 3, 2, 1)), ((2, 3, 4, 1), (6, 4)), ((6,), (1, 6, 1)), ((3, 1, 2), (2, 1, 3)),
    ((4, 6), (2, 2, 2, 3)), ((5,), (5, 1)), ((2, 2, 2, 2), (4, 4)),
]
RESHAPE_OTHER = [RESHAPE_F32[i] for i in (0, 3, 17)]


def _reshape(dtype: str, items) -> Iterator[CaseSpec]:
    specs = []
    for src, dst in items:
        case_id = f"movement.reshape_{_shape_tok(src)}_to_{_shape_tok(dst)}.{dtype}"
        x = _data(rng_for(case_id), src, dtype)
        specs.append(_case(case_id, lambda v, s=dst: lax.reshape(v, s), [x], lambda xs, s=dst: [xs[0].reshape(s)],
                           "reshape", {"operand_shape": list(src), "result_shape": list(dst)}, "numpy.reshape"))
    yield from _grouped(specs, f"movement.reshape.{dtype}")


# ------------------------------------------------------------------------------------------------- iota
IOTA_SHAPES = [(6,), (3, 4), (2, 3, 4)]
IOTA_TYPES = ("f32", "s32", "bf16", "f16", "f64", "u8", "s8", "c64", "s64", "u32")


def _iota(dtype: str) -> Iterator[CaseSpec]:
    specs = []
    shapes = IOTA_SHAPES + ([(2, 3, 2, 5)] if dtype == "f32" else [])
    np_dtype = dtypes.dtype_of(dtype)
    for shape in shapes:
        for dim in range(len(shape)):
            case_id = f"movement.iota_{_shape_tok(shape)}_d{dim}.{dtype}"
            view = [1] * len(shape)
            view[dim] = shape[dim]
            expected = np.broadcast_to(np.arange(shape[dim]).reshape(view), shape).astype(np_dtype)
            specs.append(_case(case_id, lambda s=shape, d=dim: lax.broadcasted_iota(np_dtype, s, d), [],
                               lambda xs, e=expected: [e], "iota", {"iota_dimension": dim}, "numpy.arange"))
    yield from _grouped(specs, f"movement.iota.{dtype}")


# ---------------------------------------------------------------------------- get/set_dimension_size
GET_SIZE_SHAPES = [(6,), (3, 4), (2, 3, 4), (2, 3, 2, 5), (0, 3)]
SIZE_TYPES = ("s32", "bf16", "f64", "s8", "pred", "c64")  # get_dimension_size in the other types
SET_SIZES = {(4, 3): {0: (0, 1, 2, 4), 1: (0, 1, 3)}, (2, 3, 4): {0: (1, 2), 1: (0, 2, 3), 2: (1, 4)}}
SET_SIZE_TYPES = ("f32", "s32", "bf16", "f64")  # a sum observes the size: types with an exact small-integer add


def _get_dimension_size(dtype: str) -> Iterator[CaseSpec]:
    rng = rng_for(f"movement.get_dimension_size.{dtype}")
    shapes = GET_SIZE_SHAPES if dtype == "f32" else [(3, 4)]
    specs = []
    for shape in shapes:
        x = _data(rng, shape, dtype)
        for dim in range(len(shape)):
            case_id = f"movement.get_dimension_size_{_shape_tok(shape)}_d{dim}.{dtype}"
            specs.append(_case(case_id, lambda a, d=dim: emit(lambda v: hlo.get_dimension_size(v, d),
                                                              [((), np.int32)], a)[0],
                               [x], lambda xs, d=dim: [np.int32(xs[0].shape[d])], "get_dimension_size",
                               {"dimension": dim}, "numpy.shape"))
    yield from _grouped(specs, f"movement.get_dimension_size.{dtype}")


def _sum_of_first(size_dim: int, shape: Sequence[int], np_dtype: Any) -> Callable:
    """set_dimension_size(operand, size, dim) summed over dim: the lowering of one case."""
    out_shape = tuple(d for k, d in enumerate(shape) if k != size_dim)

    def lower(v: Any, size: Any) -> list[Any]:
        dynamic = hlo.set_dimension_size(v, size, size_dim)
        zero = hlo.convert(tensor_type((), np_dtype), hlo.constant(ir.DenseElementsAttr.get(np.zeros((), np.float32))))
        reduce = hlo.ReduceOp([tensor_type(out_shape, np_dtype)], [dynamic], [zero],
                              ir.DenseI64ArrayAttr.get([size_dim]))
        add_region(reduce.body, np_dtype)
        return list(reduce.results)

    return lambda a, n: emit(lower, [(out_shape, np_dtype)], a, n)[0]


def _set_dimension_size(dtype: str) -> Iterator[CaseSpec]:
    rng = rng_for(f"movement.set_dimension_size.{dtype}")
    np_dtype = dtypes.dtype_of(dtype)
    specs = []
    for shape, per_dim in SET_SIZES.items():
        x = rng.integers(-8, 9, size=shape).astype(np_dtype)  # small integers: every partial sum is exact
        for dim, sizes in per_dim.items():
            for size in sizes:
                case_id = f"movement.set_dimension_size_{_shape_tok(shape)}_d{dim}_s{size}.{dtype}"
                specs.append(_case(case_id, _sum_of_first(dim, shape, np_dtype), [x, np.int32(size)],
                                   lambda xs, d=dim: [np.sum(np.take(xs[0], range(int(xs[1])), axis=d), axis=d,
                                                             dtype=np.float64).astype(xs[0].dtype)],
                                   "set_dimension_size", {"dimension": dim, "size": size},
                                   "numpy.sum_of_first_slices", zero_inputs_ok=(1,)))  # size 0 is a case
    yield from _grouped(specs, f"movement.set_dimension_size.{dtype}")


# ------------------------------------------------------------------------------------------------ cases
def cases() -> Iterator[CaseSpec]:
    yield from _transpose_f32()
    yield from _reverse_f32()
    yield from _slice("f32", SLICE_F32)
    yield from _dynamic("f32", DS_F32, update=False)
    yield from _dynamic("f32", DUS_F32, update=True)
    yield from _pad("f32", PAD_F32, special=True)
    yield from _concatenate("f32", _concat_items_f32())
    yield from _broadcast("f32", _broadcast_items_f32())
    yield from _reshape("f32", RESHAPE_F32)
    for dtype in OTHERS:
        yield from _transpose_other(dtype)
        yield from _reverse_other(dtype)
        yield from _slice(dtype, SLICE_OTHER)
        yield from _dynamic(dtype, DS_OTHER, update=False)
        yield from _dynamic(dtype, DUS_OTHER, update=True)
        yield from _pad(dtype, PAD_OTHER, special=False)
        yield from _concatenate(dtype, [(2, 1, (2, 3)), (3, 0, (1, 3, 2)), (3, 2, (2, 0, 3))])
        yield from _broadcast(dtype, BROADCAST_OTHER)
        yield from _reshape(dtype, RESHAPE_OTHER)
    for dtype in IOTA_TYPES:
        yield from _iota(dtype)
    for dtype in ("f32", *SIZE_TYPES):
        yield from _get_dimension_size(dtype)
    for dtype in SET_SIZE_TYPES:
        yield from _set_dimension_size(dtype)
