"""`run --shard K/N`: the split is deterministic, covers every test once, keeps golden cases together and
balances by recorded durations."""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from pjrt_cts.cli.main import main
from pjrt_cts.runner.files.shard import ShardSpec, group_key, plan, plan_digest
from runner_cli import FIXTURE_SUITES, REPO_ROOT

CASES = ["special.cbrt.f64", "add.f32.r1", "reduce.max_with_nan.f32", "convert.s32_f16", "dot.bf16.r2"]
GOLDEN_IDS = [f"{prefix}[{case}]" for case in CASES for prefix in (
    "compile.golden_programs.test_golden_program_compiles_from_text",
    "compile.golden_programs.test_golden_program_compiles",
    "execute.golden_cases.test_case_matches_reference",
)] + [f"multidevice.golden.test_golden_multidevice_case[{case}]" for case in CASES]
PLAIN_IDS = [f"client.devices.test_lookup_device_round_trips[{n}]" for n in range(40)] + [
    f"transfer.round_trip.test_round_trip[f32-{n}]" for n in range(40)]
ALL_IDS = GOLDEN_IDS + PLAIN_IDS


def test_shard_spec_parses_k_of_n_and_names_what_is_wrong() -> None:
    assert ShardSpec.parse("2/3") == ShardSpec(2, 3) and str(ShardSpec.parse(" 1/1 ")) == "1/1"
    for bad, complaint in [("0/3", "1 <= K <= N"), ("4/3", "1 <= K <= N"), ("3", "whole numbers"),
                           ("a/b", "whole numbers"), ("1/0", "1 <= K <= N")]:
        with pytest.raises(ValueError, match=complaint):
            ShardSpec.parse(bad)


@pytest.mark.parametrize("count", [1, 2, 3, 7])
@pytest.mark.parametrize("durations", [None, {test_id: (n % 9) * 0.5 for n, test_id in enumerate(ALL_IDS)}])
def test_every_test_is_in_exactly_one_shard(count: int, durations: dict[str, float] | None) -> None:
    assignment = plan(ALL_IDS, count, durations)
    assert set(assignment) == set(ALL_IDS)
    assert set(assignment.values()) <= set(range(1, count + 1))


def test_golden_case_tests_share_a_shard() -> None:
    assignment = plan(ALL_IDS, 4)
    for case in CASES:
        shards = {shard for test_id, shard in assignment.items() if test_id.endswith(f"[{case}]")}
        assert len(shards) == 1, (case, shards)
    assert group_key("execute.golden_cases.test_case_matches_reference[special.cbrt.f64]") == "golden:special.cbrt.f64"
    plain = "client.devices.test_lookup_device_round_trips[0]"
    assert group_key(plain) == plain


def test_tests_of_one_grouped_program_share_a_shard() -> None:
    """The compile test of a grouped program and the execute tests of its cases are one unit."""
    units = {"dot.matmul.f32": "dot.cases_f32_0", "dot.bf16.r2": "dot.cases_f32_0", "dot.cases_f32_0": "dot.cases_f32_0"}
    ids = ["compile.golden_programs.test_golden_program_compiles[dot.cases_f32_0]",
           "execute.golden_cases.test_case_matches_reference[dot.matmul.f32]",
           "execute.golden_cases.test_case_matches_reference[dot.bf16.r2]"] + PLAIN_IDS
    for count in (2, 3, 7):
        assignment = plan(ids, count, None, units)
        assert len({assignment[test_id] for test_id in ids[:3]}) == 1
    assert group_key(ids[1], units) == "golden:dot.cases_f32_0"
    assert group_key(ids[1]) == "golden:dot.matmul.f32"  # without the corpus: by case


def test_hash_split_does_not_depend_on_order_or_on_other_tests() -> None:
    whole = plan(ALL_IDS, 3)
    assert plan(list(reversed(ALL_IDS)), 3) == whole
    part = plan(PLAIN_IDS[:10], 3)  # a test's shard is its own hash: a smaller selection moves nothing
    assert all(part[test_id] == whole[test_id] for test_id in part)
    assert len(set(whole.values())) == 3  # 85 tests over 3 shards: none is empty


def test_split_is_identical_in_another_process() -> None:
    """Shards are separate processes (and machines): nothing process-specific (hash seed) may enter the plan."""
    code = ("import json, sys; from pjrt_cts.runner.files.shard import plan; "
            "print(json.dumps(plan(json.loads(sys.stdin.read()), 3), sort_keys=True))")
    outputs = [subprocess.run([sys.executable, "-c", code], input=json.dumps(ALL_IDS), capture_output=True, text=True,
                              cwd=REPO_ROOT, env={"PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO_ROOT)},
                              check=True, timeout=60).stdout for seed in ("1", "2")]
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0]) == plan(ALL_IDS, 3)


def test_durations_balance_the_shards() -> None:
    durations = {test_id: 0.01 for test_id in PLAIN_IDS}
    durations.update({PLAIN_IDS[0]: 30.0, PLAIN_IDS[1]: 29.0, PLAIN_IDS[2]: 28.0})  # three long tests
    assignment = plan(PLAIN_IDS, 3, durations)
    assert sorted(assignment[test_id] for test_id in PLAIN_IDS[:3]) == [1, 2, 3]  # one long test per shard
    load = Counter()
    for test_id, shard in assignment.items():
        load[shard] += durations[test_id]
    assert max(load.values()) == 30.0  # no shard waits longer than the longest test
    assert plan(PLAIN_IDS, 3, durations) == assignment  # deterministic


def test_golden_groups_are_balanced_as_one_unit_and_unknown_ids_count_as_the_median() -> None:
    durations = {test_id: 1.0 for test_id in ALL_IDS if "special.cbrt.f64" not in test_id}
    assignment = plan(ALL_IDS + ["abi.new.test_added_since"], 2, durations)
    cbrt = {shard for test_id, shard in assignment.items() if test_id.endswith("[special.cbrt.f64]")}
    assert len(cbrt) == 1
    load = Counter(assignment.values())  # every test costs the median, 1.0: shards hold about as many tests
    assert abs(load[1] - load[2]) <= 4  # one golden group (4 tests) is the largest indivisible unit


def test_plan_digest_tells_splits_apart() -> None:
    assert plan_digest(plan(ALL_IDS, 3)) == plan_digest(plan(list(reversed(ALL_IDS)), 3))
    assert plan_digest(plan(ALL_IDS, 3)) != plan_digest(plan(ALL_IDS[:-1], 3))
    assert plan_digest(plan(ALL_IDS, 3)) != plan_digest(plan(ALL_IDS, 3, {ALL_IDS[0]: 5.0}))


@pytest.mark.parametrize(("extra", "complaint"), [
    (["--shard", "4/3"], "1 <= K <= N"),
    (["--shard", "x"], "whole numbers"),
    (["--shard-durations", "results.json"], "--shard-durations needs --shard"),
    (["--shard", "1/2", "--shard-durations", "/nonexistent/results.json"], "--shard-durations: cannot read"),
])
def test_shard_usage_errors_exit_2(fake_plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   extra: list[str], complaint: str) -> None:
    suites = FIXTURE_SUITES / "mixed" / "suites"
    assert main(["run", str(fake_plugin), "--suites-dir", str(suites), "--out", str(tmp_path), *extra]) == 2
    assert complaint in capsys.readouterr().err
    assert not (tmp_path / "results.jsonl").exists()
