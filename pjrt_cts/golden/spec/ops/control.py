"""Control flow, tokens, composites, process ids, collectives (single process) and rng (spec sections named in
each registration).

The control-flow ops carry small bodies written in the case's program; the reference evaluates the same
bodies from the case's `attributes` with the spec's own formulas (`while`: loop while `cond` is true; `if`:
`pred ? true_branch() : false_branch()`; `case`: `branches[index]` if `0 <= index < N-1` else
`branches[N-1]`). Body steps are the spec's `add` (pjrt_cts.golden.spec.ops.elementwise) and data movement.

Collectives are evaluated on a process grid of one (`num_replicas = num_partitions = 1`): the process groups
are computed with the spec's grouping strategies (cross_replica, cross_partition, cross_replica_and_partition,
flattened_ids) and the op's formula is applied within the group of the one process (0, 0). Larger grids raise
NotImplementedError (the other processes' operands are not part of a single-device case).

Exclusions (UndefinedResult, so the generator drops those inputs or settings):
- a `while` that does not stop within LOOP_LIMIT iterations: "The behavior of an infinite loop is TBD";
- bodies whose `add` overflows a finite-only float type (see numeric.round_to);
- `rng` unless `[a, b)` holds exactly one value of the element type (`UNIFORM`): otherwise the numbers are
  "implementation-defined"; `NORMAL` always.
- `custom_call`, `send`, `recv`, `infeed`, `outfeed`, `rng_bit_generator` have no entry: their values are
  implementation-defined or come from the host (golden/README.md, "Spec reference").
Newer float types (f4/f6/f8e3m4/f8e4m3/f8e8m0fnu) and 2-bit integers are treated as the spec's floating-point
and integer classes (IEEE-754-like semantics in their own encodings).
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from pjrt_cts.golden import dtypes
from pjrt_cts.golden.spec.numeric import UndefinedResult, round_to, to_f64
from pjrt_cts.golden.spec.ops.elementwise import add as spec_add
from pjrt_cts.golden.spec.registry import TensorType, spec_op
from pjrt_cts.golden.spec.types import bit_width, class_of, int_range, np_dtype

ALL_CLASSES = ("bool", "signed", "unsigned", "float", "complex")
LOOP_LIMIT = 100_000  # iterations before a loop counts as infinite (behaviour TBD in the spec)

Arrays = list[np.ndarray]


# ---------------------------------------------------------------------------------------------------------
# Body steps shared by the control-flow ops: named functions of two values (a, b) of one type.


def add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The spec's `add` of two arrays of one element type (logical OR on i1, wrapping integers, IEEE floats)."""
    name = dtypes.name_of(np.asarray(a).dtype)
    return np.asarray(spec_add([np.asarray(a), np.asarray(b)], {}, [TensorType(tuple(np.shape(a)), name)])[0])


BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "lhs": lambda a, b: np.asarray(a).copy(),
    "rhs": lambda a, b: np.asarray(b).copy(),
    "add": add,
}


def less_than(lhs: np.ndarray, rhs: np.ndarray) -> bool:
    """spec #compare with LT on 0-d values: integer order (SIGNED/UNSIGNED) or IEEE compareQuietLess (FLOAT)."""
    cls = class_of(dtypes.name_of(np.asarray(lhs).dtype))
    if cls in ("signed", "unsigned", "bool"):
        return int(np.asarray(lhs).astype(object)) < int(np.asarray(rhs).astype(object))
    if cls == "float":
        return bool(to_f64(lhs) < to_f64(rhs))  # NaN compares false, -0 == +0: compareQuietLess
    raise ValueError("LT is not used on complex values here")


def run_while(state: Sequence[np.ndarray], cond: Callable[..., bool],
              body: Callable[..., Sequence[np.ndarray]]) -> Arrays:
    """spec #while: `internal_state = operand; while cond(*internal_state): internal_state =
    body(*internal_state); results = internal_state`."""
    internal_state = [np.asarray(s) for s in state]
    for _ in range(LOOP_LIMIT):
        if not cond(*internal_state):
            return internal_state
        internal_state = [np.asarray(s) for s in body(*internal_state)]
    raise UndefinedResult(f"the loop runs past {LOOP_LIMIT} iterations (infinite loops: behaviour TBD)")


def _s32(value: int) -> np.ndarray:
    return np.asarray(value, dtype=np.int32)


def _counter_step(i: np.ndarray) -> np.ndarray:
    """The loop counter's `add(i, 1)` on si32 (wrapping; the loops here stop far below the maximum)."""
    return add(i, _s32(1))


@spec_op("while", classes=ALL_CLASSES, section="while")
def while_(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
           results: Sequence[TensorType]) -> Arrays:
    """spec #while, on the loops of the spec_control family (attributes["loop"]):

    - "counted": state (i: si32 = 0, acc = operands[0], step = operands[1]); cond `i < trip_count`; body
      `(i + 1, add(acc, step), step)`; results (i, acc).
    - "swap": state (i = 0, a, b); cond `i < trip_count`; body `(i + 1, b, a)`; results (i, a, b).
    - "until": state (n: si32 = 0, acc, step, limit) (0-d); cond `acc < limit` (compare LT); body
      `(n + 1, add(acc, step), step, limit)`; results (n, acc).
    """
    loop = attributes["loop"]
    if loop == "counted":
        trip = _s32(attributes["trip_count"])
        out = run_while([_s32(0), operands[0], operands[1]], lambda i, acc, step: less_than(i, trip),
                        lambda i, acc, step: (_counter_step(i), add(acc, step), step))
        return [out[0], out[1]]
    if loop == "swap":
        trip = _s32(attributes["trip_count"])
        out = run_while([_s32(0), operands[0], operands[1]], lambda i, a, b: less_than(i, trip),
                        lambda i, a, b: (_counter_step(i), b, a))
        return out
    if loop == "until":
        out = run_while([_s32(0), *operands[:3]], lambda n, acc, step, limit: less_than(acc, limit),
                        lambda n, acc, step, limit: (_counter_step(n), add(acc, step), step, limit))
        return [out[0], out[1]]
    raise ValueError(f"unknown loop {loop!r}")


@spec_op("if", classes=ALL_CLASSES, section="if")
def if_(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Arrays:
    """spec #if: `result = pred ? true_branch() : false_branch()`. The program applies one `if` to `pred` and a
    second to `not(pred)`, with the same branches (attributes "true_branch"/"false_branch", functions of the
    captured operands a and b), so each case runs both branches."""
    pred, a, b = operands
    true_branch, false_branch = BINARY[attributes["true_branch"]], BINARY[attributes["false_branch"]]

    def select(p: bool) -> np.ndarray:
        return true_branch(a, b) if p else false_branch(a, b)

    return [select(bool(pred)), select(not bool(pred))]


def case_branch(index: int, count: int) -> int:
    """spec #case: `if 0 <= index < N-1, output of branches[index] is returned, else, output of
    branches[N-1]`."""
    return index if 0 <= index < count - 1 else count - 1


@spec_op("case", classes=ALL_CLASSES, section="case")
def case(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Arrays:
    """spec #case, once per element of operands[0] (an si32 vector the program slices into 0-d indices); the
    branches (attributes["branches"]) are functions of the captured operands a and b."""
    indices, a, b = operands
    branches = [BINARY[name] for name in attributes["branches"]]
    return [branches[case_branch(int(i), len(branches))](a, b) for i in np.asarray(indices).ravel()]


@spec_op("composite", classes=ALL_CLASSES, section="composite")
def composite(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
              results: Sequence[TensorType]) -> Arrays:
    """spec #composite: "The composite op can be replaced with its decomposition without changing program
    semantics": the results are the decomposition's (attributes["decomposition"]: one function of the
    operands a and b per result)."""
    a, b = operands
    return [BINARY[name](a, b) for name in attributes["decomposition"]]


@spec_op("after_all", classes=ALL_CLASSES, section="after_all")
def after_all(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
              results: Sequence[TensorType]) -> Arrays:
    """spec #after_all: "Execution of this operation does nothing": the program's tensors (returned through an
    optimization_barrier together with the token) are its arguments unchanged."""
    return [np.asarray(x).copy() for x in operands]


@spec_op("create_token", classes=ALL_CLASSES, section="after_all")
def create_token(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                 results: Sequence[TensorType]) -> Arrays:
    """Legacy `create_token` (Deprecated Operations: "can be expressed using existing ops", i.e. `after_all()`
    with no inputs): produces a token and does nothing else."""
    return [np.asarray(x).copy() for x in operands]


# ---------------------------------------------------------------------------------------------------------
# The process grid (spec "Execution > Parallel execution") and collectives on a grid of one process.

Process = tuple[int, int]  # (replica_id, partition_id)


def process_groups(strategy: str, groups: Sequence[Sequence[int]], num_replicas: int,
                   num_partitions: int) -> list[list[Process]]:
    """The spec's process grouping strategies (cross_replica, cross_partition, cross_replica_and_partition,
    flattened_ids), each as the spec's Python definition describes."""
    replica_ids, partition_ids = range(num_replicas), range(num_partitions)
    out: list[list[Process]] = []
    if strategy == "cross_replica":
        for group in groups:
            for p in partition_ids:
                out.append([(r, p) for r in group])
    elif strategy == "cross_partition":
        for group in groups:
            for r in replica_ids:
                out.append([(r, p) for p in group])
    elif strategy == "cross_replica_and_partition":
        for group in groups:
            out.append([(r, p) for p in partition_ids for r in group])
    elif strategy == "flattened_ids":
        for group in groups:
            out.append([(f // num_partitions, f % num_partitions) for f in group])
    else:
        raise ValueError(f"unknown grouping strategy {strategy!r}")
    return out


def _grid(attributes: Mapping[str, Any]) -> tuple[int, int]:
    grid = int(attributes.get("num_replicas", 1)), int(attributes.get("num_partitions", 1))
    if grid != (1, 1):
        raise NotImplementedError("the reference evaluates collectives on a process grid of one")
    return grid


def _strategy(attributes: Mapping[str, Any], *, with_global_ids: bool) -> str:
    """Which grouping strategy the op uses: channel_id <= 0 -> cross_replica; channel_id > 0 ->
    cross_replica_and_partition (or flattened_ids with use_global_device_ids) for all_gather/all_reduce/
    reduce_scatter, cross_partition for all_to_all/collective_permute/collective_broadcast."""
    channel_id = int(attributes.get("channel_id", 0))
    if channel_id <= 0:
        return "cross_replica"
    if not with_global_ids:
        return "cross_partition"
    return "flattened_ids" if attributes.get("use_global_device_ids", False) else "cross_replica_and_partition"


def _my_group(attributes: Mapping[str, Any], *, with_global_ids: bool, key: str = "replica_groups") -> list[Process]:
    """The process group of process (0, 0), which must be that process alone on a grid of one."""
    num_replicas, num_partitions = _grid(attributes)
    groups = process_groups(_strategy(attributes, with_global_ids=with_global_ids), attributes[key],
                            num_replicas, num_partitions)
    mine = [g for g in groups if (0, 0) in g]
    if len(mine) != 1 or mine[0] != [(0, 0)]:
        raise ValueError(f"process (0, 0) is in groups {mine}: not a valid grouping of a one-process grid")
    return mine[0]


def to_destination_type(x: np.ndarray, name: str) -> np.ndarray:
    """spec `to_destination_type` for a promotion (`is_promotable`: same class, at least as wide): exact."""
    cls = class_of(name)
    if cls == "float":
        return round_to(to_f64(x), name)
    return np.asarray(x).astype(np_dtype(name))


@spec_op("all_reduce", classes=ALL_CLASSES, section="all_reduce")
def all_reduce(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
               results: Sequence[TensorType]) -> Arrays:
    """spec #all_reduce: `results...@process[result_index] = exec(schedule)`, a binary tree whose in-order
    traversal is the group's operands converted to the computation's type. A group of one process has one
    leaf, so `exec(leaf) = leaf.value`: the result is the operand (promoted), `computation` is never applied."""
    _my_group(attributes, with_global_ids=True)
    return [to_destination_type(x, r.dtype) for x, r in zip(operands, results)]


@spec_op("all_gather", classes=ALL_CLASSES, section="all_gather")
def all_gather(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
               results: Sequence[TensorType]) -> Arrays:
    """spec #all_gather: `results...@process = concatenate(operands...@process, all_gather_dim)` over the
    group's senders: one sender here."""
    group = _my_group(attributes, with_global_ids=True)
    dim = int(attributes["all_gather_dim"])
    return [np.concatenate([np.asarray(x)] * len(group), axis=dim) for x in operands]


@spec_op("reduce_scatter", classes=ALL_CLASSES, section="reduce_scatter")
def reduce_scatter(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                   results: Sequence[TensorType]) -> Arrays:
    """spec #reduce_scatter: `reduced_value = all_reduce(...)`, `parts = split(reduced_value,
    dim(process_groups, 1), scatter_dimension)`, `result = parts[receiver_index]`."""
    group = _my_group(attributes, with_global_ids=True)
    reduced = all_reduce(operands, attributes, results)[0]
    parts = np.split(reduced, len(group), axis=int(attributes["scatter_dimension"]))
    return [parts[group.index((0, 0))]]


@spec_op("all_to_all", classes=ALL_CLASSES, section="all_to_all")
def all_to_all(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
               results: Sequence[TensorType]) -> Arrays:
    """spec #all_to_all: `split_parts = split(operand, split_count, split_dimension)`; the receiver gathers
    `split_parts@sender[receiver_index]` from each sender and concatenates them along `concat_dimension`."""
    group = _my_group(attributes, with_global_ids=False)
    count = int(attributes["split_count"])
    if count != len(group):  # (C8) dim(replica_groups, 1) = split_count
        raise ValueError("split_count must equal the group size")
    receiver = group.index((0, 0))
    out = []
    for x in operands:
        parts = np.split(np.asarray(x), count, axis=int(attributes["split_dimension"]))
        scattered = [parts[receiver] for _sender in group]  # every sender is this process
        out.append(np.concatenate(scattered, axis=int(attributes["concat_dimension"])))
    return out


@spec_op("collective_permute", classes=ALL_CLASSES, section="collective_permute")
def collective_permute(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                       results: Sequence[TensorType]) -> Arrays:
    """spec #collective_permute: `result@process = operand@process_groups[i, 0]` if some pair has
    `process_groups[i, 1] = process`, else zeros (`broadcast_in_dim(constant(0, ...))`)."""
    num_replicas, num_partitions = _grid(attributes)
    pairs = process_groups(_strategy(attributes, with_global_ids=False), attributes["source_target_pairs"],
                           num_replicas, num_partitions)
    x = np.asarray(operands[0])
    for source, target in pairs:
        if target == (0, 0):
            if source != (0, 0):
                raise ValueError(f"no process {source} on a one-process grid")
            return [x.copy()]
    return [np.zeros_like(x)]


@spec_op("collective_broadcast", classes=ALL_CLASSES, section="collective_broadcast")
def collective_broadcast(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                         results: Sequence[TensorType]) -> Arrays:
    """spec #collective_broadcast: `result@process = operand@process_groups[i, 0]` for the group holding the
    process, else zeros."""
    group = _my_group(attributes, with_global_ids=False)
    if group[0] != (0, 0):
        raise ValueError("the source is not on the grid")
    return [np.asarray(operands[0]).copy()]


def _current_process(attributes: Mapping[str, Any]) -> Process:
    _grid(attributes)
    return (0, 0)


@spec_op("replica_id", classes=("unsigned",), section="replica_id")
def replica_id(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
               results: Sequence[TensorType]) -> Arrays:
    """spec #replica_id: "Produces replica_id of the current process" (ui32): 0 on a grid of one."""
    return [np.asarray(_current_process(attributes)[0], dtype=np.uint32)]


@spec_op("partition_id", classes=("unsigned",), section="partition_id")
def partition_id(operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
                 results: Sequence[TensorType]) -> Arrays:
    """spec #partition_id: "Produces partition_id of the current process" (ui32): 0 on a grid of one."""
    return [np.asarray(_current_process(attributes)[1], dtype=np.uint32)]


# ---------------------------------------------------------------------------------------------------------
# rng: defined bits only where the interval holds one value.


def values_in_interval(a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    """The numbers x of the element type with a <= x < b, in order; at most two (enough to tell "one")."""
    name = dtypes.name_of(np.asarray(a).dtype)
    cls = class_of(name)
    if cls == "bool":
        return [np.asarray(v) for v in (False, True) if bool(a) <= v < bool(b)]
    if cls in ("signed", "unsigned"):
        lo, hi = int(np.asarray(a).astype(object)), int(np.asarray(b).astype(object))
        lo_t, hi_t = int_range(name)
        return [np.asarray(v).astype(np_dtype(name)) for v in range(max(lo, lo_t), min(hi, hi_t + 1))][:2]
    if cls != "float":
        raise ValueError(f"rng has no {cls} type")
    low, high = float(to_f64(a)), float(to_f64(b))
    dtype = np_dtype(name)
    if name in ("f32", "f64"):  # walk up from a by one ulp
        values: list[np.ndarray] = []
        x = np.asarray(low, dtype=dtype)
        while float(x) < high and len(values) < 2:
            values.append(x)
            x = np.nextafter(x, dtype.type(np.inf))
        return values
    bits = bit_width(name)  # narrow types: every encoding
    with np.errstate(invalid="ignore"):
        every = np.arange(2 ** bits, dtype=np.uint8 if bits <= 8 else np.uint16).view(dtype)
    numbers = sorted({float(v) for v in every.astype(np.float64) if low <= v < high})  # -0 and +0: one number
    return [round_to(np.asarray(v), name) for v in numbers[:2]]


@spec_op("rng", classes=("bool", "signed", "unsigned", "float"), section="rng")
def rng(operands: Sequence[np.ndarray], attributes: Mapping[str, Any], results: Sequence[TensorType]) -> Arrays:
    """spec #rng with `rng_distribution = UNIFORM`: numbers "following the uniform distribution over the
    interval [a, b)"; which numbers is implementation-defined, so the result is defined only when [a, b) holds
    exactly one value of the element type (then every element is that value). NORMAL: never defined."""
    a, b = operands
    if attributes.get("rng_distribution", "UNIFORM") != "UNIFORM":
        raise UndefinedResult("NORMAL numbers are implementation-defined")
    inside = values_in_interval(a, b)
    if len(inside) != 1:
        raise UndefinedResult(f"[a, b) holds {len(inside)} values: the numbers are implementation-defined")
    shape = tuple(int(d) for d in attributes["shape"])
    return [np.full(shape, inside[0], dtype=np_dtype(results[0].dtype))]
