"""The spec reference's control-flow, token, process-id, collective and rng ops, checked against the examples of
the StableHLO spec's sections (literals copied by hand) and hand-computed edge cases."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from pjrt_cts.golden.spec import evaluate
from pjrt_cts.golden.spec.numeric import UndefinedResult
from pjrt_cts.golden.spec.ops import control
from pjrt_cts.golden.spec.registry import TensorType


def s32(v: int) -> np.ndarray:
    return np.asarray(v, dtype=np.int32)


def test_while_spec_example() -> None:
    # spec #while's example: init_i 1, init_sum 0; while i < 10: (i + 1, sum + 1). The body runs 9 times
    # (i = 1..9), so the formula gives (10, 9); the example's comment prints 10 for %results1 (an erratum).
    out = control.run_while([np.asarray(1, np.int64), np.asarray(0, np.int64)],
                            lambda i, total: control.less_than(i, np.asarray(10, np.int64)),
                            lambda i, total: (control.add(i, np.asarray(1, np.int64)),
                                              control.add(total, np.asarray(1, np.int64))))
    assert [int(x) for x in out] == [10, 9]


def test_while_zero_trips_returns_operands() -> None:
    init = np.array([1.5, -0.0], np.float32)
    count, acc = evaluate("while", [init, np.array([1, 1], np.float32)], {"loop": "counted", "trip_count": 0},
                          [TensorType((), "s32"), TensorType((2,), "f32")])
    assert int(count) == 0 and acc.tobytes() == init.tobytes()


def test_while_counted_rounds_every_iteration() -> None:
    # bf16: 256 + 1 = 257 is a tie between 256 and 258: even 256; five iterations stay at 256 (not 261 -> 260)
    bf16 = ml_dtypes.bfloat16
    count, acc = evaluate("while", [np.array([256.0], bf16), np.array([1.0], bf16)],
                          {"loop": "counted", "trip_count": 5}, [TensorType((), "s32"), TensorType((1,), "bf16")])
    assert int(count) == 5 and float(acc[0]) == 256.0


def test_while_counted_integers_and_overflow() -> None:
    count, acc = evaluate("while", [np.array([4], ml_dtypes.int4), np.array([1], ml_dtypes.int4)],
                          {"loop": "counted", "trip_count": 3}, [TensorType((), "s32"), TensorType((1,), "s4")])
    assert int(acc[0]) == 7
    with pytest.raises(UndefinedResult):  # 7 + 3 = 10 leaves si4: an overflow is implementation-defined
        evaluate("while", [np.array([7], ml_dtypes.int4), np.array([1], ml_dtypes.int4)],
                 {"loop": "counted", "trip_count": 3}, [TensorType((), "s32"), TensorType((1,), "s4")])


def test_while_until_f32() -> None:
    # 0.1f added until the sum is >= 1: the tenth rounded sum is 1.0000001192092896 (> 1), after 10 trips
    count, acc = evaluate("while", [np.float32(0.0), np.float32(0.1), np.float32(1.0)], {"loop": "until"},
                          [TensorType((), "s32"), TensorType((), "f32")])
    assert int(count) == 10 and float(acc) == 1.0000001192092896


def test_while_infinite_loop_is_undefined() -> None:
    bf16 = ml_dtypes.bfloat16
    with pytest.raises(UndefinedResult):  # 256 + 1 rounds back to 256: never reaches 300
        evaluate("while", [np.asarray(256.0, bf16), np.asarray(1.0, bf16), np.asarray(300.0, bf16)],
                 {"loop": "until"}, [TensorType((), "s32"), TensorType((), "bf16")])


def test_if_spec_example() -> None:
    # spec #if: true branch 10, false branch 11, pred true -> 10 (and the program's not(pred) copy -> 11)
    r0, r1 = evaluate("if", [np.asarray(True), s32(10), s32(11)], {"true_branch": "lhs", "false_branch": "rhs"},
                      [TensorType((), "s32"), TensorType((), "s32")])
    assert int(r0) == 10 and int(r1) == 11


def test_if_add_branch() -> None:
    r0, r1 = evaluate("if", [np.asarray(False), np.array([2, 3], np.int8), np.array([100, 1], np.int8)],
                      {"true_branch": "add", "false_branch": "rhs"}, [TensorType((2,), "s8")] * 2)
    assert r0.tolist() == [100, 1] and r1.tolist() == [102, 4]


def test_case_spec_example() -> None:
    # spec #case: index -1 with two branches returns branches[N-1]: [1, 1]
    (result,) = evaluate("case", [np.array([-1], np.int32), np.array([0, 0], np.int64), np.array([1, 1], np.int64)],
                         {"branches": ["lhs", "rhs"]}, [TensorType((2,), "s64")])
    assert result.tolist() == [1, 1]


def test_case_branch_selection() -> None:
    assert [control.case_branch(i, 3) for i in (-1, 0, 1, 2, 3, -2 ** 31, 2 ** 31 - 1)] == [2, 0, 1, 2, 2, 2, 2]
    assert control.case_branch(5, 1) == 0


def test_composite_is_its_decomposition() -> None:
    r0, r1 = evaluate("composite", [np.array([1.0, -0.0], np.float32), np.array([2.0, 0.0], np.float32)],
                      {"decomposition": ["add", "rhs"]}, [TensorType((2,), "f32")] * 2)
    assert r0.tolist() == [3.0, 0.0] and not np.signbit(r0[1]) and r1.tolist() == [2.0, 0.0]


def test_process_groups_spec_examples() -> None:
    assert control.process_groups("cross_replica", [[0, 1], [2, 3]], 4, 2) == [
        [(0, 0), (1, 0)], [(0, 1), (1, 1)], [(2, 0), (3, 0)], [(2, 1), (3, 1)]]
    assert control.process_groups("cross_partition", [[0, 1]], 4, 2) == [
        [(0, 0), (0, 1)], [(1, 0), (1, 1)], [(2, 0), (2, 1)], [(3, 0), (3, 1)]]
    assert control.process_groups("cross_replica_and_partition", [[0, 1], [2, 3]], 4, 2) == [
        [(0, 0), (1, 0), (0, 1), (1, 1)], [(2, 0), (3, 0), (2, 1), (3, 1)]]
    assert control.process_groups("flattened_ids", [[0, 1, 2, 3], [4, 5, 6, 7]], 4, 2) == [
        [(0, 0), (0, 1), (1, 0), (1, 1)], [(2, 0), (2, 1), (3, 0), (3, 1)]]


ONE = {"replica_groups": [[0]], "channel_id": 0, "num_replicas": 1, "num_partitions": 1}


def test_all_reduce_group_of_one_is_the_operand() -> None:
    x = np.array([-0.0, np.nan, 1.5], np.float32)
    (r,) = evaluate("all_reduce", [x], {**ONE, "computation": "multiply"}, [TensorType((3,), "f32")])
    assert r.tobytes() == x.tobytes()
    (wide,) = evaluate("all_reduce", [np.array([-128, 127], np.int8)], ONE, [TensorType((2,), "s32")])
    assert wide.dtype == np.int32 and wide.tolist() == [-128, 127]


def test_collectives_need_a_grid_of_one() -> None:
    with pytest.raises(NotImplementedError):
        evaluate("all_reduce", [np.zeros(2, np.float32)], {**ONE, "num_replicas": 2, "replica_groups": [[0, 1]]},
                 [TensorType((2,), "f32")])


def test_reduce_scatter_keeps_negative_zero() -> None:
    x = np.array([[-0.0, 1.0], [2.0, -0.0]], np.float32)
    (r,) = evaluate("reduce_scatter", [x], {**ONE, "scatter_dimension": 0}, [TensorType((2, 2), "f32")])
    assert r.tobytes() == x.tobytes()


def test_all_gather_and_all_to_all_of_one() -> None:
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    (g,) = evaluate("all_gather", [x], {**ONE, "all_gather_dim": 1}, [TensorType((2, 3), "s32")])
    (a,) = evaluate("all_to_all", [x], {**ONE, "split_dimension": 0, "concat_dimension": 1, "split_count": 1},
                    [TensorType((2, 3), "s32")])
    assert g.tolist() == x.tolist() and a.tolist() == x.tolist()


def test_collective_permute_without_a_source_gives_zeros() -> None:
    x = np.array([1, 2], np.int32)
    attrs = {"channel_id": 0, "num_replicas": 1, "num_partitions": 1}
    (none,) = evaluate("collective_permute", [x], {**attrs, "source_target_pairs": []}, [TensorType((2,), "s32")])
    (self_,) = evaluate("collective_permute", [x], {**attrs, "source_target_pairs": [[0, 0]]},
                        [TensorType((2,), "s32")])
    assert none.tolist() == [0, 0] and self_.tolist() == [1, 2]


def test_ids_on_a_grid_of_one() -> None:
    for op in ("replica_id", "partition_id"):
        (r,) = evaluate(op, [], {"num_replicas": 1, "num_partitions": 1}, [TensorType((), "u32")])
        assert r.dtype == np.uint32 and int(r) == 0


def test_rng_interval_of_one_value() -> None:
    (r,) = evaluate("rng", [s32(5), s32(6)], {"rng_distribution": "UNIFORM", "shape": [3]}, [TensorType((3,), "s32")])
    assert r.tolist() == [5, 5, 5]
    nxt = np.nextafter(np.float32(1.0), np.float32(2.0))
    (f,) = evaluate("rng", [np.float32(1.0), nxt], {"shape": [2]}, [TensorType((2,), "f32")])
    assert f.tolist() == [1.0, 1.0]
    f8 = ml_dtypes.float8_e4m3fn  # 1.0 and 1.125 are neighbours in e4m3fn
    (n,) = evaluate("rng", [np.asarray(1.0, f8), np.asarray(1.125, f8)], {"shape": [2]}, [TensorType((2,), "f8e4m3fn")])
    assert n.astype(np.float64).tolist() == [1.0, 1.0]
    with pytest.raises(UndefinedResult):
        evaluate("rng", [np.asarray(1.0, f8), np.asarray(1.25, f8)], {"shape": [2]}, [TensorType((2,), "f8e4m3fn")])
    (p,) = evaluate("rng", [np.asarray(False), np.asarray(True)], {"shape": [2]}, [TensorType((2,), "pred")])
    assert p.tolist() == [False, False]
    with pytest.raises(UndefinedResult):
        evaluate("rng", [s32(0), s32(2)], {"shape": [2]}, [TensorType((2,), "s32")])
    with pytest.raises(UndefinedResult):
        evaluate("rng", [np.float32(0.0), np.float32(1.0)], {"rng_distribution": "NORMAL", "shape": [2]},
                 [TensorType((2,), "f32")])


def test_tokens_do_nothing() -> None:
    x = np.array([np.nan, -0.0], np.float64)
    for op in ("after_all", "create_token"):
        (r,) = evaluate(op, [x], {}, [TensorType((2,), "f64")])
        assert r.tobytes() == x.tobytes()
