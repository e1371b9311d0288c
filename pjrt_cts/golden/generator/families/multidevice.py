"""Multi-device programs for 2 and 4 devices: SPMD-partitioned (num_partitions=N, GSPMD sharding,
shard_map collectives and automatic partitioning, donation) and replicated (num_replicas=N with
cross-replica collectives)."""
from __future__ import annotations

from typing import Callable, Iterator

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.generator.core import CaseSpec, rng_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401 - imported first for its side effect: it configures JAX
from pjrt_cts.golden.generator.inputs import random_array, wide
from pjrt_cts.golden.generator.prims import add_region, emit, replica_groups, tensor_type

import jax.numpy as jnp  # noqa: E402 - imported after env has configured JAX
from jax import lax  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir import ir  # noqa: E402 - imported after env has configured JAX
from jax._src.lib.mlir.dialects import hlo  # noqa: E402 - imported after env has configured JAX
from jax.sharding import PartitionSpec as P  # noqa: E402 - imported after env has configured JAX

DEVICE_COUNTS = (2, 4)
AXIS = "x"


# Per-device bodies written with JAX collectives over axis "x"; inputs are one block per device.
# name -> (body(block) -> block(s), numpy reference over the stacked per-device blocks, op)
def _np_permute(x: np.ndarray) -> np.ndarray:
    return np.roll(x, 1, axis=0)  # device d receives from d-1


def _np_all_to_all(x: np.ndarray) -> np.ndarray:
    n = x.shape[0]
    chunks = x.reshape(n, n, -1)  # [device, chunk, ...]
    return chunks.transpose(1, 0, 2).reshape(x.shape)


BODIES: dict[str, tuple[Callable, Callable, str]] = {
    "all_reduce_sum": (lambda b: lax.psum(b, AXIS), lambda x: np.broadcast_to(wide(x).sum(0), x.shape), "stablehlo.all_reduce"),
    "all_reduce_max": (lambda b: lax.pmax(b, AXIS), lambda x: np.broadcast_to(x.max(0), x.shape), "stablehlo.all_reduce"),
    "all_reduce_min": (lambda b: lax.pmin(b, AXIS), lambda x: np.broadcast_to(x.min(0), x.shape), "stablehlo.all_reduce"),
    "all_gather": (lambda b: lax.all_gather(b, AXIS, tiled=True),
                   lambda x: np.broadcast_to(x.reshape(-1, *x.shape[2:]), (x.shape[0], x.shape[0] * x.shape[1]) + x.shape[2:]),
                   "stablehlo.all_gather"),
    "reduce_scatter": (lambda b: lax.psum_scatter(b, AXIS, tiled=True),
                       lambda x: wide(x).sum(0).reshape(x.shape[0], -1, *x.shape[2:]), "stablehlo.reduce_scatter"),
    "all_to_all": (lambda b: lax.all_to_all(b, AXIS, 0, 0, tiled=True), _np_all_to_all, "stablehlo.all_to_all"),
    "collective_permute": (None, _np_permute, "stablehlo.collective_permute"),
    "partition_id": (lambda b: b + lax.axis_index(AXIS).astype(b.dtype),
                     lambda x: x + np.arange(x.shape[0]).reshape((-1,) + (1,) * (x.ndim - 1)).astype(x.dtype),
                     "stablehlo.partition_id"),
}


def _permute_body(n: int):
    return lambda b: lax.ppermute(b, AXIS, [(d, (d + 1) % n) for d in range(n)])


def _body(name: str, n: int) -> Callable:
    return _permute_body(n) if name == "collective_permute" else BODIES[name][0]


def _stacked_ref(name: str, out_dtype):
    def ref(xs):
        with np.errstate(all="ignore"):
            return [np.asarray(BODIES[name][1](xs[0])).astype(out_dtype)]
    return ref


def _spmd_cases() -> Iterator[CaseSpec]:
    for n in DEVICE_COUNTS:
        for name, (_, _, op) in BODIES.items():
            for dtype in ("f32", "s32", "bf16", "f64") if name == "all_reduce_sum" else ("f32", "s32"):
                case_id = f"spmd.{name}.{dtype}.d{n}"
                block = (n, 3) if name in ("all_to_all", "reduce_scatter") else (2, 3)
                stacked = random_array(rng_for(case_id), (n,) + block, dtype, "small")
                global_input = stacked.reshape((n * block[0],) + block[1:])
                body = _body(name, n)
                mesh_fn = _shard_mapped(body, n)
                out_dtype = stacked.dtype

                def ref(xs, nm=name, nn=n, blk=block, o=out_dtype):
                    per_device = xs[0].reshape((nn,) + blk)
                    return [_stacked_ref(nm, o)([per_device])[0]]
                yield CaseSpec(case_id, mesh_fn, [global_input], op_class="reduction" if "sum" in name or "scatter" in name else "exact",
                               numpy_ref=ref, numpy_ref_name=f"numpy.{name}", mode="spmd", num_devices=n,
                               in_specs=(P(AXIS),), out_specs=P(AXIS), expect_ops=(op,))
        # Automatic partitioning: XLA's SPMD partitioner inserts the communication.
        case_id = f"spmd.auto_matmul_row_sharded.f32.d{n}"
        rng = rng_for(case_id)
        a, b = random_array(rng, (2 * n, 4), "f32"), random_array(rng, (4, 3), "f32")
        yield CaseSpec(case_id, lambda x, y: x @ y, [a, b], op_class="matmul",
                       numpy_ref=lambda xs: [np.stack(np.split((wide(xs[0]) @ wide(xs[1])).astype(np.float32), len(xs[0]) // 2))],
                       numpy_ref_name="numpy.matmul", mode="spmd", num_devices=n, in_specs=(P(AXIS), P()), out_specs=P(AXIS))
        case_id = f"spmd.auto_reduce_sum_to_replicated.f32.d{n}"
        a = random_array(rng_for(case_id), (2 * n, 3), "f32")
        yield CaseSpec(case_id, lambda x: jnp.sum(x, axis=0), [a], op_class="reduction",
                       numpy_ref=lambda xs, nn=n: [np.broadcast_to(xs[0].astype(np.float64).sum(0), (nn, 3)).astype(np.float32)],
                       numpy_ref_name="numpy.sum", mode="spmd", num_devices=n, in_specs=(P(AXIS),), out_specs=P())
        case_id = f"spmd.donation_buffer_donor.f32.d{n}"
        a = random_array(rng_for(case_id), (2 * n,), "f32")
        yield CaseSpec(case_id, lambda x: (x * 2).astype(jnp.int32), [a],
                       numpy_ref=lambda xs, nn=n: [np.stack(np.split((xs[0] * 2).astype(np.int32), nn))],
                       numpy_ref_name="numpy.multiply", mode="spmd", num_devices=n, in_specs=(P(AXIS),), out_specs=P(AXIS),
                       donate_argnums=(0,))
        case_id = f"spmd.donation_alias.f32.d{n}"
        a = random_array(rng_for(case_id), (2 * n, 2), "f32")
        yield CaseSpec(case_id, lambda x: x + 1, [a], op_class="arith",
                       numpy_ref=lambda xs, nn=n: [np.stack(np.split(xs[0] + np.float32(1), nn))],
                       numpy_ref_name="numpy.add", mode="spmd", num_devices=n, in_specs=(P(AXIS),), out_specs=P(AXIS),
                       donate_argnums=(0,))


def _shard_mapped(body: Callable, n: int) -> Callable:
    def fn(x):
        mesh = jax.sharding.Mesh(np.array(jax.devices()[:n]), (AXIS,))
        return jax.shard_map(body, mesh=mesh, in_specs=P(AXIS), out_specs=P(AXIS), check_vma=False)(x)
    return fn


# ---- replicated programs: cross-replica collectives built with the MLIR builders -------------------


def _groups(n: int) -> ir.Attribute:
    return replica_groups([list(range(n))])


def _replicated_body(name: str, n: int, shape: tuple[int, ...], np_dtype: np.dtype) -> Callable:
    """One replica's program for `name` (inputs/outputs are one device's block)."""
    out_shape = {"all_gather": (shape[0] * n,) + shape[1:], "reduce_scatter": (shape[0] // n,) + shape[1:]}.get(name, shape)

    def lower(x):
        if name in ("all_reduce_sum", "all_reduce_max", "all_reduce_min"):
            combine = {"all_reduce_sum": hlo.add, "all_reduce_max": hlo.maximum, "all_reduce_min": hlo.minimum}[name]
            op = hlo.AllReduceOp([x.type], [x], _groups(n))
            add_region(op.computation, np_dtype, combine)
            return list(op.results)
        if name == "all_gather":
            return list(hlo.AllGatherOp([tensor_type(out_shape, np_dtype)], [x], 0, _groups(n)).results)
        if name == "reduce_scatter":
            op = hlo.ReduceScatterOp(tensor_type(out_shape, np_dtype), x, 0, _groups(n))
            add_region(op.computation, np_dtype)
            return list(op.results)
        if name == "all_to_all":
            return list(hlo.AllToAllOp([x], 0, 0, n, _groups(n)).results)
        if name == "collective_permute":
            pairs = ir.DenseIntElementsAttr.get(np.array([[d, (d + 1) % n] for d in range(n)], dtype=np.int64))
            return [hlo.CollectivePermuteOp(x, pairs).result]
        if name == "replica_id":
            rid = hlo.ReplicaIdOp().result
            converted = hlo.convert(ir.RankedTensorType.get([], ir.RankedTensorType(x.type).element_type), rid)
            return [hlo.add(x, hlo.broadcast_in_dim(x.type, converted, ir.DenseI64ArrayAttr.get([])))]
        if name == "collective_broadcast":
            return [hlo.CollectiveBroadcastOp(x, _groups(n)).result]
        raise ValueError(name)

    return lambda v: emit(lower, [(out_shape, np_dtype)], v)[0]


REPLICATED = {
    "all_reduce_sum": "stablehlo.all_reduce", "all_reduce_max": "stablehlo.all_reduce",
    "all_gather": "stablehlo.all_gather", "reduce_scatter": "stablehlo.reduce_scatter",
    "all_to_all": "stablehlo.all_to_all", "collective_permute": "stablehlo.collective_permute",
    "replica_id": "stablehlo.replica_id",
    # collective_broadcast is left out: XLA:CPU answers UNIMPLEMENTED (see golden/README.md).
}


def _reference_body(name: str, n: int) -> Callable:
    if name == "replica_id":
        return BODIES["partition_id"][0]
    if name == "collective_broadcast":
        return lambda b: lax.all_gather(b, AXIS)[0]
    return _body(name, n)


def _stacked_reference_fn(name: str, n: int) -> Callable:
    body = _reference_body(name, n)

    def run(mesh, stacked):
        def per_device(block):
            return body(block[0])[None]
        return jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=P(AXIS), out_specs=P(AXIS), check_vma=False))(stacked)
    return run


def _replicated_ref(name: str):
    def ref(xs):
        x = xs[0]
        if name == "replica_id":
            return [BODIES["partition_id"][1](x)]
        if name == "collective_broadcast":
            return [np.broadcast_to(x[0], x.shape)]
        with np.errstate(all="ignore"):
            return [np.asarray(BODIES[name][1](x)).astype(x.dtype)]
    return ref


def _replicated_cases() -> Iterator[CaseSpec]:
    for n in DEVICE_COUNTS:
        for name, op in REPLICATED.items():
            for dtype in ("f32", "s32"):
                case_id = f"replicated.{name}.{dtype}.d{n}"
                block = (n, 3) if name in ("all_to_all", "reduce_scatter") else (2, 3)
                stacked = random_array(rng_for(case_id), (n,) + block, dtype, "small")
                np_dtype = dtypes.dtype_of(dtype)
                yield CaseSpec(case_id, _replicated_body(name, n, block, np_dtype), [stacked],
                               op_class="reduction" if name in ("all_reduce_sum", "reduce_scatter") else "exact",
                               numpy_ref=_replicated_ref(name), numpy_ref_name=f"numpy.{name}", mode="replicated",
                               num_devices=n, reference_fn=_stacked_reference_fn(name, n), expect_ops=(op,))


def cases() -> Iterator[CaseSpec]:
    yield from _spmd_cases()
    yield from _replicated_cases()
