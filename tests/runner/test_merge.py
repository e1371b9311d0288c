"""`pjrt-cts merge`: shards of one run become one results.json; anything else is a usage error (exit 2)."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pjrt_cts.cli.main import main
from pjrt_cts.runner.binding import judge_digest
from pjrt_cts.runner.files.merge import MergeError, ShardResults, merge_shards
from pjrt_cts.judgment.results import build_results
from pjrt_cts.schema import Results, TestRecord
from pjrt_cts.judgment.verdict import judge_results

PREFLIGHT = {"id": "client.preflight.test_client_create_survives", "outcome": "CRASH",
             "nodeid": "suites/client/test_preflight.py::test_client_create_survives"}
COLLECTION_ERROR = {"id": "execute.broken.<collection>", "outcome": "ERROR", "nodeid": "suites/execute/test_broken.py"}


def record(test_id: str, outcome: str = "PASS", nodeid: str | None = None, **extra: Any) -> dict[str, Any]:
    layer, area, name = test_id.split(".", 2)
    return {"id": test_id, "nodeid": nodeid or f"suites/{layer}/test_{area}.py::{name}", "layer": layer,
            "outcome": outcome, "duration": 0.5, "message": "", "details": {}, "tags": [], "expected": None,
            "repro": "", **extra}


def shard_results(index: int, count: int, tests: list[dict[str, Any]], *, sha256: str = "abc", profile: str = "cpu",
                  version: str = "0.1.0", digest: str = "d1", started: str = "2026-01-01T10:00:00+00:00",
                  wall: float = 10.0, entries: list[dict[str, Any]] | None = None,
                  expectations_sha256: str = "e1", binding: dict[str, Any] | None = None) -> dict[str, Any]:
    results = build_results(
        tool_version=version, started_at=started, finished_at="2026-01-01T10:05:00+00:00", wall_seconds=wall,
        command=["pjrt-cts", "run", "--shard", f"{index}/{count}"], profile=profile, plugin={"sha256": sha256},
        environment={}, expectations={"file": None, "sha256": expectations_sha256, "unknown_patterns": [],
                                      "entries": entries or []},
        compatibility={f"from_shard_{index}": True}, tests=[TestRecord.from_json(test) for test in tests],
        facts={"binding": binding or {"create_options": "{}", "suites_sha256": "s1", "corpus_sha256": "c1"}})
    return replace(results, shard={"index": index, "count": count, "strategy": "hash", "tests_in_split": 9,
                                   "plan_digest": digest}).to_json()


def shard(name: str, data: dict[str, Any]) -> ShardResults:
    return ShardResults(name, Results.from_json(data))


def with_tests(part: ShardResults, *tests: dict[str, Any]) -> ShardResults:
    """`part` with more test records."""
    added = tuple(TestRecord.from_json(test) for test in tests)
    return ShardResults(part.name, replace(part.results, tests=part.results.tests + added))


def three_shards(**overrides: Any) -> list[ShardResults]:
    return [
        shard("a.json", shard_results(1, 3, [record("abi.plugin.test_a"), record("client.devices.test_b")],
                                             started="2026-01-01T10:00:03+00:00", wall=12.0)),
        shard("b.json", shard_results(2, 3, [record("abi.plugin.test_c", "SKIP")],
                                             started="2026-01-01T09:59:58+00:00", wall=30.5)),
        shard("c.json", shard_results(3, 3, [record("transfer.round_trip.test_d")], **overrides)),
    ]


def test_merge_is_the_union_with_a_recomputed_summary() -> None:
    merged = merge_shards(list(reversed(three_shards()))).to_json()
    ids = [test["id"] for test in merged["tests"]]
    assert sorted(ids) == ["abi.plugin.test_a", "abi.plugin.test_c", "client.devices.test_b",
                           "transfer.round_trip.test_d"]
    assert merged["summary"]["totals"] == {"PASS": 3, "SKIP": 1} and merged["summary"]["complete"] is True
    assert merged["summary"]["verdict"] == judge_results(Results.from_json(merged)).verdict
    assert merged["started_at"] == "2026-01-01T09:59:58+00:00" and merged["wall_seconds"] == 30.5
    assert merged["compatibility"] == {"from_shard_1": True, "from_shard_2": True, "from_shard_3": True}
    assert [part["shard"]["index"] for part in merged["merged_from"]] == [1, 2, 3]
    assert "shard" not in merged


@pytest.mark.parametrize(("override", "complaint"), [
    ({"sha256": "other"}, "plugin sha256"),
    ({"profile": "cuda"}, "profile"),
    ({"version": "0.2.0"}, "pjrt-cts version"),
    ({"digest": "d2"}, "split different test sets"),
    ({"expectations_sha256": "e2"}, "expectations file"),  # judged by another waiver list: not one verdict
    ({"binding": {"create_options": '{"x": 1}', "suites_sha256": "s1", "corpus_sha256": "c1"}}, "client create options"),
    ({"binding": {"create_options": "{}", "suites_sha256": "s2", "corpus_sha256": "c1"}}, "suites"),
    ({"binding": {"create_options": "{}", "suites_sha256": "s1", "corpus_sha256": "c2"}}, "golden corpus"),
])
def test_shards_of_different_runs_are_refused(override: dict[str, Any], complaint: str) -> None:
    with pytest.raises(MergeError, match=complaint) as caught:
        merge_shards(three_shards(**override))
    assert "c.json" in str(caught.value)


BOUND = {"create_options": "{}", "suites_sha256": "s1", "corpus_sha256": "c1",
         "judge_sha256": judge_digest({"pjrt_cts/golden/compare.py": "1" * 64}),
         "judge_files": {"pjrt_cts/golden/compare.py": "1" * 64}, "plugin_environment": {"XLA_FLAGS": "--xla_a"},
         "user_settings": {"fuzz_seed": 0, "num_nodes": 2, "kv_backend": "auto", "timeout": 120.0}}
EDITED_JUDGE = {"pjrt_cts/golden/compare.py": "2" * 64}


def bound_shards(**last: Any) -> list[ShardResults]:
    """Three shards whose bindings hold the judge and the conditions; the last one's changed by `last`."""
    shards = [shard(name, shard_results(index, 3, [record(f"abi.plugin.test_{index}")], binding=dict(BOUND)))
              for index, name in ((1, "a.json"), (2, "b.json"))]
    return shards + [shard("c.json", shard_results(3, 3, [record("abi.plugin.test_3")], binding={**BOUND, **last}))]


@pytest.mark.parametrize(("last", "complaint"), [
    ({"judge_files": EDITED_JUDGE, "judge_sha256": judge_digest(EDITED_JUDGE)},
     "judging code: pjrt_cts/golden/compare.py differs"),
    ({"plugin_environment": {"XLA_FLAGS": "--xla_b"}}, "plugin environment: XLA_FLAGS '--xla_a' in a.json, '--xla_b' in c.json"),
    ({"plugin_environment": {}}, "plugin environment: XLA_FLAGS '--xla_a' in a.json, unset in c.json"),
    ({"user_settings": {**BOUND["user_settings"], "timeout": 30.0}}, "user settings: timeout 120.0 in a.json, 30.0 in c.json"),
    ({"user_settings": {**BOUND["user_settings"], "fuzz_seed": 5}}, "user settings: fuzz_seed 0 in a.json, 5 in c.json"),
    ({"user_settings": {**BOUND["user_settings"], "num_nodes": 4}}, "user settings: num_nodes 2 in a.json, 4 in c.json"),
    ({"user_settings": {**BOUND["user_settings"], "kv_backend": "loopback"}}, "user settings: kv_backend 'auto'"),
    ({"judge_files": None, "judge_sha256": None, "plugin_environment": None, "user_settings": None},
     "judge: no hashes of the code, suites, golden corpus and profiles that judged the records (in c.json)"),
])
def test_shards_judged_by_other_code_or_under_other_conditions_are_refused(last: dict[str, Any], complaint: str) -> None:
    assert merge_shards(bound_shards()).binding == BOUND
    with pytest.raises(MergeError) as caught:
        merge_shards(bound_shards(**last))
    assert str(caught.value).startswith("c.json is bound to other facts than a.json (")
    assert complaint in str(caught.value)


def test_the_merged_run_keeps_the_shards_check_of_the_mandatory_lists() -> None:
    def with_contract(*checks: dict[str, Any] | None) -> Results:
        return merge_shards([ShardResults(part.name, replace(part.results, contract=check))
                             for part, check in zip(three_shards(), checks)])

    agree = {"checked": True, "problems": []}
    disagree = {"checked": True, "problems": ["Core: the tree no longer matches the committed list: 1 added"]}
    assert with_contract(agree, agree, agree).contract == agree
    assert with_contract(agree, disagree, disagree).contract == disagree
    assert with_contract(None, None, None).contract is None
    assert with_contract(agree, None, agree).contract == {
        "checked": False, "error": "a shard did not check the mandatory lists against the suites"}


def test_missing_shard_is_an_error_unless_partial_is_allowed() -> None:
    shards = three_shards()
    with pytest.raises(MergeError, match=r"shard\(s\) 2/3 missing; pass --allow-partial"):
        merge_shards([shards[0], shards[2]])
    merged = merge_shards([shards[0], shards[2]], allow_partial=True).to_json()
    assert merged["missing_shards"] == [2] and merged["summary"]["complete"] is False
    assert merged["summary"]["verdict"] == "INCOMPLETE"


def test_a_shard_given_twice_or_of_another_count_is_refused() -> None:
    shards = three_shards()
    with pytest.raises(MergeError, match="shard 1/3 given twice: a.json and a2.json"):
        merge_shards([*shards, ShardResults("a2.json", shards[0].results)])
    other = shard("d.json", shard_results(1, 2, []))
    with pytest.raises(MergeError, match="shards of different splits"):
        merge_shards([*shards, other])


def test_an_unsharded_run_is_refused() -> None:
    plain = replace(three_shards()[0].results, shard=None)
    with pytest.raises(MergeError, match="plain.json is not a shard"):
        merge_shards([ShardResults("plain.json", plain)])


def test_a_test_recorded_by_two_shards_is_an_error() -> None:
    shards = three_shards()
    shards[2] = with_tests(shards[2], record("abi.plugin.test_a", "FAIL"))
    with pytest.raises(MergeError, match=r"abi.plugin.test_a \(in a.json \(shard 1/3\) and c.json \(shard 3/3\)\)"):
        merge_shards(shards)


def test_run_level_records_of_every_shard_are_kept_once() -> None:
    shards = three_shards()
    shards = [with_tests(part, record(PREFLIGHT["id"], "CRASH", PREFLIGHT["nodeid"]),
                         record(COLLECTION_ERROR["id"].replace("<collection>", "x"), "ERROR", COLLECTION_ERROR["nodeid"]))
              for part in shards]
    merged = merge_shards(shards).to_json()
    ids = [test["id"] for test in merged["tests"]]
    assert ids.count(PREFLIGHT["id"]) == 1 and ids.count("execute.broken.x") == 1
    assert merged["summary"]["verdict"] == "NON_CONFORMANT"


def test_expectation_usage_is_counted_over_the_merged_records() -> None:
    entry = {"pattern": "abi.*", "outcome": "FAIL", "cause": "x", "reason": "r", "waived": 9, "passed": 9,
             "other_failure": 9, "matched": 9}
    expected = {"pattern": "abi.*", "outcome": "FAIL", "cause": "x", "reason": "r", "url": None, "actual": "FAIL"}
    shards = [shard("a.json", shard_results(1, 2, [record("abi.plugin.test_a", "XFAIL", expected=expected)],
                                                   entries=[entry])),
              shard("b.json", shard_results(2, 2, [record("abi.plugin.test_b", "XFAIL", expected=expected)],
                                                   entries=[entry]))]
    merged = merge_shards(shards).to_json()
    assert merged["expectations"]["entries"][0] | {} == {**entry, "waived": 2, "passed": 0, "other_failure": 0,
                                                          "matched": 2}
    assert merged["summary"]["waivers"] == 2


def write(path: Path, results: Results | dict[str, Any]) -> Path:
    path.write_text(json.dumps(results.to_json() if isinstance(results, Results) else results), encoding="utf-8")
    return path


def test_cli_writes_the_merged_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(write(tmp_path / part.name, part.results)) for part in three_shards()]
    out = tmp_path / "merged" / "results.json"
    assert main(["merge", *paths, "-o", str(out)]) == 0
    assert "merged 3 shard(s), 4 tests" in capsys.readouterr().out
    assert len(json.loads(out.read_text())["tests"]) == 4
    assert main(["badge", str(out), "-o", str(tmp_path / "badge.svg")]) == 0


@pytest.mark.parametrize("case", ["missing shard", "mismatched plugin", "output is an input", "not results"])
def test_cli_errors_exit_2_and_say_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 case: str) -> None:
    shards = three_shards(sha256="other") if case == "mismatched plugin" else three_shards()
    paths = [str(write(tmp_path / part.name, part.results)) for part in shards]
    out = str(tmp_path / "merged.json")
    args, complaint = {
        "missing shard": (paths[:2], "shard(s) 3/3 missing"),
        "mismatched plugin": (paths, "plugin sha256"),
        "output is an input": (paths, "is one of the inputs"),
        "not results": ([*paths, str(write(tmp_path / "x.json", {"tests": "?"}))], "not a pjrt-cts results file"),
    }[case]
    if case == "output is an input":
        out = paths[0]
    assert main(["merge", *args, "-o", out]) == 2
    assert complaint in capsys.readouterr().err
