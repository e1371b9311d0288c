"""Spec-reference cases of control flow, tokens, composites, process ids, single-process collectives and rng
(pjrt_cts.golden.spec.ops.control).

Control-flow programs have multi-op bodies (a counted loop with an accumulator, a loop whose condition reads
the data, `if` on a runtime predicate, `case` on runtime indices including out-of-range ones) written in
generic form; the reference evaluates the same bodies from the case's attributes. Carried values are every
representative element type with edge values (NaN, ±0, ±inf, integer extremes), so a value that is only carried
must come back bit-exact. Collectives run on a process grid of one (num_replicas = num_partitions = 1,
replica_groups = [[0]]), where the spec still defines their value.
"""
from __future__ import annotations

from typing import Any, Iterator, Sequence

import ml_dtypes
import numpy as np

from pjrt_cts.golden.generator.core import CaseSpec
from pjrt_cts.golden.generator.spec_cases import edges, spec_case, type_of
from pjrt_cts.golden.spec import mlir
from pjrt_cts.golden.spec.numeric import UndefinedResult
from pjrt_cts.golden.spec.registry import TensorType
from pjrt_cts.golden.spec.types import REPRESENTATIVES, class_of, int_range, np_dtype

S32 = TensorType((), "s32")
PRED = TensorType((), "pred")
TOKEN = "!stablehlo.token"
ALL_TYPES = tuple(name for names in REPRESENTATIVES.values() for name in names)
ONE_PER_CLASS = ("pred", "s8", "u64", "f8e4m3fn", "bf16", "c64")


# ---------------------------------------------------------------------------------------------------------
# Program text helpers


def t(x: TensorType) -> str:
    return mlir.tensor(x)


def const_s32(result: str, value: int) -> str:
    return f'{result} = "stablehlo.constant"() {{value = dense<{value}> : tensor<i32>}} : () -> tensor<i32>'


def compare(result: str, lhs: str, rhs: str, operand: TensorType, compare_type: str) -> str:
    attrs = (f"comparison_direction = #stablehlo<comparison_direction LT>, "
             f"compare_type = #stablehlo<comparison_type {compare_type}>")
    return mlir.generic_op("compare", [lhs, rhs], [operand, operand], [PRED], attrs, results=result)


def compare_type_of(name: str) -> str:
    return {"bool": "UNSIGNED", "signed": "SIGNED", "unsigned": "UNSIGNED", "float": "FLOAT",
            "complex": "FLOAT"}[class_of(name)]


def branch_region(lines: Sequence[str], returned: Sequence[str], types: Sequence[TensorType]) -> str:
    """A region without arguments (if/case branches): its ops, then `stablehlo.return`."""
    body = "".join(f"\n      {line}" for line in lines)
    ret = f'"stablehlo.return"({", ".join(returned)}) : ({", ".join(t(x) for x in types)}) -> ()'
    return "{" + body + f"\n      {ret}\n    }}"


def binary_lines(kind: str, a: str, b: str, ty: TensorType, result: str) -> tuple[list[str], str]:
    """Ops computing BINARY[kind](a, b) (the reference's branch functions) and the value returned."""
    if kind == "lhs":
        return [], a
    if kind == "rhs":
        return [], b
    if kind == "add":
        return [mlir.generic_op("add", [a, b], [ty, ty], [ty], results=result)], result
    raise ValueError(kind)


def results_of(op_results: str, count: int) -> list[str]:
    return [f"{op_results}#{i}" for i in range(count)]


# ---------------------------------------------------------------------------------------------------------
# Inputs


def even_edges(name: str) -> np.ndarray:
    """The type's edge values, an even number of them (for 2-D operands)."""
    x = edges(name)
    return x if len(x) % 2 == 0 else np.concatenate([x, x[:1]])


def keep_defined(op: str, inputs: Sequence[np.ndarray], attributes: dict[str, Any],
                 results: Sequence[TensorType], elementwise: Sequence[int]) -> list[np.ndarray]:
    """Drop the elements (along axis 0 of the `elementwise` inputs) whose result the spec leaves undefined."""
    from pjrt_cts.golden.spec.registry import lookup

    fn = lookup(op).evaluate
    n = len(inputs[elementwise[0]])
    keep = []
    for i in range(n):
        part = [x[i:i + 1] if k in elementwise else x for k, x in enumerate(inputs)]
        part_results = [TensorType((1,) + r.shape[1:], r.dtype) if r.shape else r for r in results]
        try:
            with np.errstate(all="ignore"):
                fn(part, attributes, part_results)
            keep.append(i)
        except UndefinedResult:
            pass
    return [x[keep] if k in elementwise else x for k, x in enumerate(inputs)]


def pair_inputs(name: str, shift: int = 3, *, arithmetic: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """a = the edge values, b = the same rotated: every edge value meets a few others. For bodies that add
    (`arithmetic`), pairs with a subnormal are left out: XLA's CPU add flushes subnormals (an `add` finding,
    reported by the elementwise cases), which would hide what these cases probe (the control flow)."""
    a = edges(name)
    b = np.roll(a, shift % max(len(a), 1))
    if not arithmetic or class_of(name) not in ("float", "complex"):
        return a, b
    keep = ~(subnormal(a) | subnormal(b))
    return a[keep], b[keep]


def subnormal(x: np.ndarray) -> np.ndarray:
    """Which elements (or complex parts) are nonzero and below the smallest normal magnitude."""
    parts = [x.real, x.imag] if np.iscomplexobj(x) else [x]
    out = np.zeros(x.shape, dtype=bool)
    for part in parts:
        mag = np.abs(part.astype(np.float64))
        tiny = float(ml_dtypes.finfo(part.dtype).tiny)
        out |= (mag > 0) & (mag < tiny)
    return out


# ---------------------------------------------------------------------------------------------------------
# while


def counted_while_program(acc: TensorType, trip_count: int, *, token: bool = False) -> str:
    """`(i, acc, step) = (0, init, step); while i < trip_count: (i + 1, acc + step, step)`; returns (i, acc).
    With `token`, a token made by after_all is carried too and renewed by after_all in the body."""
    types = [S32, acc, acc] + ([TOKEN] if token else [])
    type_text = [x if isinstance(x, str) else t(x) for x in types]
    args = ", ".join(f"%ra{i}: {ty}" for i, ty in enumerate(type_text))
    cond = ("{\n    ^bb0(" + args + "):\n      " + const_s32("%lim", trip_count) + "\n      "
            + compare("%lt", "%ra0", "%lim", S32, "SIGNED") + '\n      "stablehlo.return"(%lt) : (tensor<i1>) -> ()\n    }')
    body_lines = [const_s32("%one", 1),
                  mlir.generic_op("add", ["%ra0", "%one"], [S32, S32], [S32], results="%next"),
                  mlir.generic_op("add", ["%ra1", "%ra2"], [acc, acc], [acc], results="%sum")]
    returned = ["%next", "%sum", "%ra2"]
    if token:
        body_lines.append(f'%tok = "stablehlo.after_all"(%ra3) : ({TOKEN}) -> {TOKEN}')
        returned.append("%tok")
    body = ("{\n    ^bb0(" + args + "):\n      " + "\n      ".join(body_lines) + "\n      "
            + f'"stablehlo.return"({", ".join(returned)}) : ({", ".join(type_text)}) -> ()' + "\n    }")
    lines = [const_s32("%zero", 0)]
    operands = ["%zero", "%arg0", "%arg1"]
    if token:
        lines.append(f'%t0 = "stablehlo.after_all"() : () -> {TOKEN}')
        operands.append("%t0")
    lines.append(f'%w:{len(types)} = "stablehlo.while"({", ".join(operands)}) ({cond}, {body}) : '
                 f'({", ".join(type_text)}) -> ({", ".join(type_text)})')
    return mlir.module([acc, acc], [S32, acc], lines, ["%w#0", "%w#1"])


def swap_while_program(ty: TensorType, trip_count: int) -> str:
    """`(i, a, b) = (0, a, b); while i < trip_count: (i + 1, b, a)`; returns (i, a, b)."""
    types = [S32, ty, ty]
    cond = mlir.region(types, [const_s32("%lim", trip_count), compare("%lt", "%ra0", "%lim", S32, "SIGNED")],
                       ["%lt"], [PRED])
    body = mlir.region(types, [const_s32("%one", 1),
                               mlir.generic_op("add", ["%ra0", "%one"], [S32, S32], [S32], results="%next")],
                       ["%next", "%ra2", "%ra1"], types)
    line = mlir.generic_op("while", ["%zero", "%arg0", "%arg1"], types, types, regions=[cond, body], results="%w:3")
    return mlir.module([ty, ty], types, [const_s32("%zero", 0), line], results_of("%w", 3))


def until_while_program(ty: TensorType) -> str:
    """`(n, acc, step, limit) = (0, acc0, step, limit); while acc < limit: (n + 1, acc + step, step, limit)`."""
    types = [S32, ty, ty, ty]
    cond = mlir.region(types, [compare("%lt", "%ra1", "%ra3", ty, compare_type_of(ty.dtype))], ["%lt"], [PRED])
    body = mlir.region(types, [const_s32("%one", 1),
                               mlir.generic_op("add", ["%ra0", "%one"], [S32, S32], [S32], results="%next"),
                               mlir.generic_op("add", ["%ra1", "%ra2"], [ty, ty], [ty], results="%sum")],
                       ["%next", "%sum", "%ra2", "%ra3"], types)
    line = mlir.generic_op("while", ["%zero", "%arg0", "%arg1", "%arg2"], types, types, regions=[cond, body],
                           results="%w:4")
    return mlir.module([ty, ty, ty], [S32, ty], [const_s32("%zero", 0), line], ["%w#0", "%w#1"])


def counted_case(name: str, trip_count: int, *, token: bool = False) -> CaseSpec:
    init, step = pair_inputs(name)
    attrs = {"loop": "counted", "trip_count": trip_count}
    acc = TensorType(init.shape, name)
    results = [S32, acc]
    init, step = keep_defined("while", [init, step], attrs, results, elementwise=(0, 1))
    acc = TensorType(init.shape, name)
    suffix = f"counted_{trip_count}{'_token' if token else ''}.{name}"
    return spec_case("while", suffix, [init, step], [S32, acc], attributes=attrs,
                     program=counted_while_program(acc, trip_count, token=token),
                     rule="while: loop while cond is true; each iteration's add rounds (or wraps) on its own",
                     features=["control_flow"])


def swap_case(name: str, trip_count: int) -> CaseSpec:
    a, b = pair_inputs(name, shift=1, arithmetic=False)
    ty = TensorType(a.shape, name)
    return spec_case("while", f"swap_{trip_count}.{name}", [a, b], [S32, ty, ty],
                     attributes={"loop": "swap", "trip_count": trip_count}, program=swap_while_program(ty, trip_count),
                     rule="while: carried values come back unchanged (bit-exact) after an odd number of swaps",
                     features=["control_flow"])


UNTIL_INPUTS: dict[str, tuple[float, float, float]] = {
    "s32": (-7, 3, 20), "u8": (250, 1, 255), "f32": (0.0, 0.1, 1.0), "bf16": (1.0, 0.0625, 3.0),
    "f8e5m2": (0.0, 0.25, 2.0), "f64": (0.0, 0.1, 1.0),
}


def until_case(name: str) -> CaseSpec:
    dtype = np_dtype(name)
    acc0, step, limit = (np.asarray(v).astype(dtype) for v in UNTIL_INPUTS[name])
    ty = TensorType((), name)
    return spec_case("while", f"until_lt.{name}", [acc0, step, limit], [S32, ty],
                     attributes={"loop": "until"}, program=until_while_program(ty),
                     rule="while: the trip count is decided by cond on the rounded accumulator (acc < limit)",
                     features=["control_flow"])


def while_cases() -> Iterator[CaseSpec]:
    for name in ALL_TYPES:
        yield counted_case(name, 5)
    for name in ("s32", "f32"):
        yield counted_case(name, 0)
    yield counted_case("s32", 3, token=True)
    for name in ONE_PER_CLASS:
        yield swap_case(name, 3)
    for name in UNTIL_INPUTS:
        yield until_case(name)


# ---------------------------------------------------------------------------------------------------------
# if, case, composite


def if_program(ty: TensorType, true_kind: str, false_kind: str) -> str:
    """r1 = if p {true(a, b)} else {false(a, b)}; r2 = the same on not(p): both branches run in one case."""
    lines = [mlir.generic_op("not", ["%arg0"], [PRED], [PRED], results="%np")]
    for k, pred in enumerate(("%arg0", "%np")):
        regions = []
        for kind, tag in ((true_kind, "t"), (false_kind, "f")):
            body, value = binary_lines(kind, "%arg1", "%arg2", ty, f"%{tag}{k}")
            regions.append(branch_region(body, [value], [ty]))
        lines.append(mlir.generic_op("if", [pred], [PRED], [ty], regions=regions, results=f"%r{k}"))
    return mlir.module([PRED, ty, ty], [ty, ty], lines, ["%r0", "%r1"])


def if_cases() -> Iterator[CaseSpec]:
    attrs = {"true_branch": "add", "false_branch": "rhs"}
    for k, name in enumerate(ALL_TYPES):
        a, b = pair_inputs(name)
        pred = np.asarray(k % 2 == 0)
        ty = TensorType(a.shape, name)
        _, a, b = keep_defined("if", [pred, a, b], attrs, [ty, ty], elementwise=(1, 2))
        ty = TensorType(a.shape, name)
        yield spec_case("if", f"add_else_rhs.{name}", [pred, a, b], [ty, ty], attributes=attrs,
                        program=if_program(ty, "add", "rhs"), zero_inputs_ok=(0,), features=["control_flow"],
                        rule="if: result = pred ? true_branch() : false_branch() (branches capture a and b)")


CASE_INDICES = (-1, 0, 1, 2, 3, int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max))


def case_program(ty: TensorType, branches: Sequence[str], count: int) -> str:
    """For each j < count: r_j = case(indices[j]) {branches...} on the captured a and b."""
    vec = TensorType((count,), "s32")
    lines: list[str] = []
    for j in range(count):
        lines.append(mlir.generic_op("slice", ["%arg0"], [vec], [TensorType((1,), "s32")],
                                     f"start_indices = array<i64: {j}>, limit_indices = array<i64: {j + 1}>, "
                                     f"strides = array<i64: 1>", results=f"%ix{j}"))
        lines.append(mlir.generic_op("reshape", [f"%ix{j}"], [TensorType((1,), "s32")], [S32], results=f"%i{j}"))
        regions = []
        for k, kind in enumerate(branches):
            body, value = binary_lines(kind, "%arg1", "%arg2", ty, f"%b{j}_{k}")
            regions.append(branch_region(body, [value], [ty]))
        lines.append(mlir.generic_op("case", [f"%i{j}"], [S32], [ty], regions=regions, results=f"%r{j}"))
    return mlir.module([vec, ty, ty], [ty] * count, lines, [f"%r{j}" for j in range(count)])


def case_case(name: str, branches: Sequence[str]) -> CaseSpec:
    indices = np.array(CASE_INDICES, dtype=np.int32)
    a, b = pair_inputs(name)
    attrs = {"branches": list(branches)}
    ty = TensorType(a.shape, name)
    _, a, b = keep_defined("case", [indices, a, b], attrs, [ty] * len(indices), elementwise=(1, 2))
    ty = TensorType(a.shape, name)
    return spec_case("case", f"{len(branches)}_branches.{name}", [indices, a, b], [ty] * len(indices),
                     attributes=attrs, program=case_program(ty, branches, len(indices)), features=["control_flow"],
                     rule="case: branches[index] if 0 <= index < N-1, else branches[N-1] (negative and large too)")


def composite_program(ty: TensorType, decomposition: Sequence[str]) -> str:
    """`stablehlo.composite` whose decomposition is a private function returning decomposition[k](a, b)."""
    outs = [ty] * len(decomposition)
    out_text = ", ".join(t(x) for x in outs)
    line = (f'%c:{len(outs)} = "stablehlo.composite"(%arg0, %arg1) {{name = "pjrt_cts.pair", '
            f'composite_attributes = {{kinds = "{",".join(decomposition)}"}}, decomposition = @pair, '
            f'version = 1 : i32}} : ({t(ty)}, {t(ty)}) -> ({out_text})')
    main = mlir.module([ty, ty], outs, [line], results_of("%c", len(outs)))
    body: list[str] = []
    returned = []
    for k, kind in enumerate(decomposition):
        lines, value = binary_lines(kind, "%a", "%b", ty, f"%d{k}")
        body += lines
        returned.append(value)
    lines_text = "".join(f"\n    {line}" for line in body)
    private = (f"  func.func private @pair(%a: {t(ty)}, %b: {t(ty)}) -> ({out_text}) {{{lines_text}\n"
               f"    return {', '.join(returned)} : {out_text}\n  }}\n")
    head, tail = main.rstrip().rsplit("}", 1)
    return head + private + "}" + tail + "\n"


def composite_cases() -> Iterator[CaseSpec]:
    attrs = {"decomposition": ["add", "rhs"]}
    for name in ALL_TYPES:
        a, b = pair_inputs(name)
        ty = TensorType(a.shape, name)
        a, b = keep_defined("composite", [a, b], attrs, [ty, ty], elementwise=(0, 1))
        ty = TensorType(a.shape, name)
        yield spec_case("composite", f"add_rhs.{name}", [a, b], [ty, ty], attributes=attrs,
                        program=composite_program(ty, attrs["decomposition"]),
                        rule="composite: can be replaced with its decomposition without changing program semantics")


# ---------------------------------------------------------------------------------------------------------
# tokens


def token_program(ops: str, types: Sequence[TensorType]) -> str:
    """Make a token (after_all() and after_all(t, t), or create_token), pass it through an
    optimization_barrier with the arguments, return the arguments."""
    if ops == "after_all":
        lines = [f'%t0 = "stablehlo.after_all"() : () -> {TOKEN}',
                 f'%t1 = "stablehlo.after_all"(%t0, %t0) : ({TOKEN}, {TOKEN}) -> {TOKEN}']
    else:
        lines = [f'%t1 = "stablehlo.create_token"() : () -> {TOKEN}']
    args = [f"%arg{i}" for i in range(len(types))]
    all_types = ", ".join([TOKEN] + [t(x) for x in types])
    lines.append(f'%b:{len(types) + 1} = "stablehlo.optimization_barrier"(%t1, {", ".join(args)}) : '
                 f'({all_types}) -> ({all_types})')
    return mlir.module(types, types, lines, [f"%b#{i + 1}" for i in range(len(types))])


def token_cases() -> Iterator[CaseSpec]:
    inputs = [edges(name) for name in ("pred", "s32", "u8", "f32", "c64")]
    types = [type_of(x) for x in inputs]
    for op in ("after_all", "create_token"):
        yield spec_case(op, "barrier.pred_s32_u8_f32_c64", inputs, types, attributes={},
                        program=token_program(op, types),
                        rule=f"{op}: execution does nothing; the tensors next to the token are unchanged")


# ---------------------------------------------------------------------------------------------------------
# process ids and collectives on a grid of one


def id_cases() -> Iterator[CaseSpec]:
    u32 = TensorType((), "u32")
    for op in ("replica_id", "partition_id"):
        program = mlir.module([], [u32], [mlir.generic_op(op, [], [], [u32])], ["%0"])
        yield spec_case(op, "grid_1x1.u32", [], [u32], attributes={"num_replicas": 1, "num_partitions": 1},
                        program=program, rule=f"{op}: the current process's id, 0 on a one-process grid")


GROUP = "replica_groups = dense<[[0]]> : tensor<1x1xi64>"


def channel(channel_id: int) -> str:
    return f"channel_handle = #stablehlo.channel_handle<handle = {channel_id}, type = {1 if channel_id else 0}>"


STRATEGIES: dict[str, tuple[int, bool]] = {  # grouping strategy -> (channel_id, use_global_device_ids)
    "cross_replica": (0, False), "cross_replica_and_partition": (1, False), "flattened_ids": (1, True),
}


def collective_attrs(strategy: str) -> tuple[dict[str, Any], str]:
    channel_id, global_ids = STRATEGIES[strategy]
    attrs = {"replica_groups": [[0]], "channel_id": channel_id, "use_global_device_ids": global_ids,
             "num_replicas": 1, "num_partitions": 1}
    text = f"{GROUP}, {channel(channel_id)}" + (", use_global_device_ids" if global_ids else "")
    return attrs, text


def operand_2d(name: str) -> np.ndarray:
    x = even_edges(name)
    return x.reshape(2, len(x) // 2)


def all_reduce_case(name: str, strategy: str = "cross_replica", result_name: str | None = None,
                    body: str = "add") -> CaseSpec:
    x = operand_2d(name)
    e = result_name or name
    attrs, text = collective_attrs(strategy)
    attrs["computation"] = body
    out = TensorType(x.shape, e)
    program = mlir.single_op_module("all_reduce", [type_of(x)], [out], text, [mlir.binary_region(e, body)])
    suffix = f"{strategy}{'' if body == 'add' else '_' + body}{'' if e == name else '_to_' + e}.{name}"
    return spec_case("all_reduce", suffix, [x], [out], attributes=attrs, program=program,
                     rule="all_reduce: a group of one process has one leaf; exec(leaf) = leaf.value converted to "
                          "the computation's type (the computation is never applied)")


def gather_like_case(op: str, name: str, dim: int, strategy: str = "cross_replica") -> CaseSpec:
    x = operand_2d(name)
    attrs, text = collective_attrs(strategy)
    key = {"all_gather": "all_gather_dim", "reduce_scatter": "scatter_dimension"}[op]
    attrs[key] = dim
    text = f"{key} = {dim} : i64, {text}"
    if op == "reduce_scatter":
        attrs["computation"] = "add"
    regions = [mlir.binary_region(name, "add")] if op == "reduce_scatter" else []
    program = mlir.single_op_module(op, [type_of(x)], [type_of(x)], text, regions)
    rules = {"all_gather": "all_gather: concatenate of the group's operands (one) along all_gather_dim",
             "reduce_scatter": "reduce_scatter: all_reduce over a group of one, split into dim(process_groups, 1) "
                               "= 1 part"}
    return spec_case(op, f"{strategy}_dim{dim}.{name}", [x], [type_of(x)], attributes=attrs, program=program,
                     rule=rules[op])


def all_to_all_case(name: str, split_dim: int, concat_dim: int, channel_id: int = 0) -> CaseSpec:
    x = operand_2d(name)
    attrs = {"split_dimension": split_dim, "concat_dimension": concat_dim, "split_count": 1, "replica_groups": [[0]],
             "channel_id": channel_id, "num_replicas": 1, "num_partitions": 1}
    text = (f"split_dimension = {split_dim} : i64, concat_dimension = {concat_dim} : i64, split_count = 1 : i64, "
            f"{GROUP}" + (f", {channel(channel_id)}" if channel_id else ""))
    program = mlir.single_op_module("all_to_all", [type_of(x)], [type_of(x)], text)
    grouping = "cross_partition" if channel_id > 0 else "cross_replica"
    return spec_case("all_to_all", f"{grouping}_split{split_dim}_concat{concat_dim}.{name}", [x], [type_of(x)],
                     attributes=attrs, program=program,
                     rule="all_to_all: split into split_count = 1 part, scattered within the group of one, "
                          "concatenated: the operand")


def permute_case(name: str, pairs: list[list[int]], channel_id: int = 0) -> CaseSpec:
    x = operand_2d(name)
    attrs = {"source_target_pairs": pairs, "channel_id": channel_id, "num_replicas": 1, "num_partitions": 1}
    shape = f"{len(pairs)}x2"
    values = "" if not pairs else "[" + ", ".join(f"[{s}, {d}]" for s, d in pairs) + "]"
    text = f"source_target_pairs = dense<{values}> : tensor<{shape}xi64>, {channel(channel_id)}"
    program = mlir.single_op_module("collective_permute", [type_of(x)], [type_of(x)], text)
    label = "self" if pairs else "no_pairs"
    rule = ("collective_permute: result = operand of the source whose target is this process"
            if pairs else "collective_permute: a process that is no pair's target gets zeros")
    grouping = "cross_partition" if channel_id > 0 else "cross_replica"
    return spec_case("collective_permute", f"{grouping}_{label}.{name}", [x], [type_of(x)], attributes=attrs,
                     program=program, rule=rule)


def broadcast_case(name: str, channel_id: int = 0) -> CaseSpec:
    x = operand_2d(name)
    attrs = {"replica_groups": [[0]], "channel_id": channel_id, "num_replicas": 1, "num_partitions": 1}
    program = mlir.single_op_module("collective_broadcast", [type_of(x)], [type_of(x)],
                                    f"{GROUP}, {channel(channel_id)}")
    grouping = "cross_partition" if channel_id > 0 else "cross_replica"
    return spec_case("collective_broadcast", f"{grouping}.{name}", [x], [type_of(x)], attributes=attrs,
                     program=program, rule="collective_broadcast: result = operand@process_groups[i, 0] of the "
                                           "process's group (itself)")


def collective_cases() -> Iterator[CaseSpec]:
    for name in ALL_TYPES:
        yield all_reduce_case(name)
        yield gather_like_case("all_gather", name, 0)
        yield gather_like_case("reduce_scatter", name, 0)
        yield all_to_all_case(name, 0, 1)
        yield permute_case(name, [[0, 0]])
        yield broadcast_case(name)
    for name in ("s32", "f32"):
        for strategy in ("cross_replica_and_partition", "flattened_ids"):
            yield all_reduce_case(name, strategy)
            yield gather_like_case("all_gather", name, 1, strategy)
            yield gather_like_case("reduce_scatter", name, 1, strategy)
        yield all_to_all_case(name, 1, 0, channel_id=1)
        yield permute_case(name, [[0, 0]], channel_id=1)
        yield broadcast_case(name, channel_id=1)
        yield all_reduce_case(name, body="multiply")
    for name in ONE_PER_CLASS:
        yield permute_case(name, [])
    for name, wider in (("s8", "s32"), ("u4", "u64"), ("bf16", "f32"), ("f8e5m2", "f16"), ("c64", "c128")):
        yield all_reduce_case(name, result_name=wider)


# ---------------------------------------------------------------------------------------------------------
# rng


def rng_bounds(name: str) -> tuple[np.ndarray, np.ndarray]:
    """[a, b) holding exactly one value of the type: [false, true), [lo, lo + 1), [1, next float after 1)."""
    dtype = np_dtype(name)
    cls = class_of(name)
    if cls == "bool":
        return np.asarray(False), np.asarray(True)
    if cls in ("signed", "unsigned"):
        lo, _ = int_range(name)
        return np.asarray(lo).astype(dtype), np.asarray(lo + 1).astype(dtype)
    one = np.asarray(1.0).astype(dtype)
    bits = one.view(np.uint8 if one.dtype.itemsize == 1 else f"u{one.dtype.itemsize}")
    return one, (bits + 1).astype(bits.dtype).view(dtype)  # the next encoding above 1.0 is its successor


def rng_case(name: str, count: int = 64) -> CaseSpec:
    a, b = rng_bounds(name)
    out = TensorType((count,), name)
    lines = [f'%shape = "stablehlo.constant"() {{value = dense<[{count}]> : tensor<1xi64>}} : () -> tensor<1xi64>',
             mlir.generic_op("rng", ["%arg0", "%arg1", "%shape"], [type_of(a), type_of(b), TensorType((1,), "s64")],
                             [out], "rng_distribution = #stablehlo<rng_distribution UNIFORM>")]
    return spec_case("rng", f"uniform_one_value.{name}", [a, b], [out],
                     attributes={"rng_distribution": "UNIFORM", "shape": [count]},
                     program=mlir.module([type_of(a), type_of(b)], [out], lines, ["%0"]), zero_inputs_ok=(0,),
                     rule="rng UNIFORM: numbers in [a, b); an interval holding one value leaves no choice")


def rng_cases() -> Iterator[CaseSpec]:
    for cls in ("bool", "signed", "unsigned", "float"):
        for name in REPRESENTATIVES[cls]:
            yield rng_case(name)


def cases() -> Iterator[CaseSpec]:
    yield from while_cases()
    yield from if_cases()
    yield from (case_case(name, ("lhs", "rhs", "add")) for name in ALL_TYPES)
    yield case_case("s32", ("add",))
    yield case_case("f32", ("rhs", "add"))
    yield from composite_cases()
    yield from token_cases()
    yield from id_cases()
    yield from collective_cases()
    yield from rng_cases()

