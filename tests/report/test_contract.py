"""The frozen level contracts (pjrt_cts/judgment/mustpass) agree with the tree: a contract changes only on purpose; and no
mandatory test needs more devices than its level's minimum (a 2-GPU host can reach Multi-device)."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from pjrt_cts.judgment import contract
from pjrt_cts.cli.main import main
from pjrt_cts.judgment.levels import AOT, CORE, FULL, LEVELS, MULTI_DEVICE, MandatoryEntry
from pjrt_cts.resources import golden_dir, suites_dir

THREE_DEVICE_COPY = "transfer.device_copies.test_copy_to_device[0->2]"


@pytest.fixture(scope="module")
def collected() -> dict[str, int]:
    """The real tree with each test's declared device count (one collection for the module: ~5 s)."""
    return contract.collect_tests(suites_dir())


@pytest.fixture(scope="module")
def cases() -> list[dict[str, object]]:
    return contract.golden_cases(golden_dir())


def test_committed_mandatory_lists_match_the_tree(collected: dict[str, int], cases: list[dict[str, object]]) -> None:
    contracts = contract.build_contracts(collected, cases)
    assert contract.check(contracts, collected) == [], "run `pjrt-cts contract --write` and review the diff"
    assert [c.level.name for c in contracts] == [level.name for level in (*LEVELS, AOT)]


def test_a_removed_mandatory_test_is_reported(collected: dict[str, int], cases: list[dict[str, object]]) -> None:
    dropped = LEVELS[0].mandatory_ids()[0]
    tree = {test_id: devices for test_id, devices in collected.items() if test_id != dropped}
    problems = contract.check(contract.build_contracts(tree, cases), tree)
    assert problems and problems[0].startswith("Core: the tree no longer matches the committed list: 1 removed")


def test_levels_state_their_minimum_device_count() -> None:
    assert [(level.name, level.min_devices) for level in LEVELS] == [("Core", 1), ("Full", 1), ("Multi-device", 2)]
    assert MULTI_DEVICE.admits(2) and not MULTI_DEVICE.admits(3) and FULL.admits(0) and not CORE.admits(2)


def test_collection_sees_every_declared_device_count(collected: dict[str, int]) -> None:
    """Parametrize marks (copies, golden cases: num_replicas * num_partitions) and module marks (placement)."""
    assert collected[THREE_DEVICE_COPY] == 3
    assert collected["transfer.device_copies.test_copy_to_device[3->0]"] == 4
    assert collected["multidevice.golden.test_golden_multidevice_case[spmd.all_gather.f32.d2]"] == 2
    assert collected["multidevice.golden.test_golden_multidevice_case[spmd.all_gather.f32.d4]"] == 4
    assert collected["multidevice.placement.test_device_assignment_is_reported_back"] == 2
    assert collected["client.client_create.test_client_creates_with_profile_options"] == 0


def test_tests_for_more_devices_than_the_minimum_stay_informative(collected: dict[str, int],
                                                                   cases: list[dict[str, object]]) -> None:
    multi = next(c for c in contract.build_contracts(collected, cases) if c.level is MULTI_DEVICE)
    assert THREE_DEVICE_COPY in multi.informative and THREE_DEVICE_COPY not in multi.ids
    assert "transfer.device_copies.test_copy_to_device[0->1]" in multi.ids
    for level in LEVELS:
        assert all(level.admits(collected[test_id]) for test_id in level.mandatory_ids() if test_id in collected)


def test_a_list_needing_three_devices_fails_even_when_it_matches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The device rule is checked on its own: a committed list identical to the generated one still fails."""
    monkeypatch.setattr(contract, "MUSTPASS_DIR", tmp_path)
    needing_three = contract.LevelContract(MULTI_DEVICE, [MandatoryEntry("multidevice.placement.test_ok"),
                                                          MandatoryEntry(THREE_DEVICE_COPY)])
    contract.write([needing_three])
    problems = contract.check([needing_three], {"multidevice.placement.test_ok": 2, THREE_DEVICE_COPY: 3})
    assert problems == [f"Multi-device: {THREE_DEVICE_COPY} requires 3 devices, more than the level's minimum of 2: "
                        "a test for more devices is informative, never mandatory"]


def test_a_committed_list_needing_three_devices_fails(collected: dict[str, int], cases: list[dict[str, object]],
                                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    contracts = contract.build_contracts(collected, cases)
    monkeypatch.setattr(contract, "MUSTPASS_DIR", tmp_path)
    contract.write(contracts)
    listed = tmp_path / "multi_device.txt"
    listed.write_text(listed.read_text(encoding="utf-8") + THREE_DEVICE_COPY + "\n", encoding="utf-8")
    problems = contract.check(contracts, collected)
    assert f"Multi-device: {THREE_DEVICE_COPY} requires 3 devices, more than the level's minimum of 2: " \
           "a test for more devices is informative, never mandatory" in problems


def test_check_command_names_each_offending_id(collected: dict[str, int], cases: list[dict[str, object]],
                                               tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    contracts = contract.build_contracts(collected, cases)
    monkeypatch.setattr(contract, "MUSTPASS_DIR", tmp_path)
    monkeypatch.setattr(contract, "collect_tests", lambda _suites: collected)
    contract.write(contracts)
    assert main(["contract", "--check"]) == 0
    listed = tmp_path / "multi_device.txt"
    listed.write_text(listed.read_text(encoding="utf-8") + THREE_DEVICE_COPY + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["contract", "--check"]) == 1
    out = capsys.readouterr().out
    assert f"contract: Multi-device: {THREE_DEVICE_COPY} requires 3 devices, more than the level's minimum of 2" in out


def test_collection_merges_module_class_and_parameter_marks(tmp_path: Path) -> None:
    """The collector reads the same merged `requires` markers the setup hook resolves, without a plugin."""
    suites = tmp_path / "suites"
    (suites / "demo").mkdir(parents=True)
    (suites / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (suites / "demo" / "test_marks.py").write_text(textwrap.dedent("""
        import pytest
        from pjrt_cts.testing import requires

        pytestmark = requires(devices=2)

        def test_module_mark():
            pass

        @requires(devices=3)
        class TestClass:
            def test_class_mark(self):
                pass

        @pytest.mark.parametrize("n", [pytest.param(n, id=f"n{n}", marks=requires(devices=n)) for n in (1, 4)])
        def test_param_mark(n):
            pass
    """), encoding="utf-8")
    assert contract.collect_tests(suites) == {
        "demo.marks.TestClass.test_class_mark": 3, "demo.marks.test_module_mark": 2,
        "demo.marks.test_param_mark[n1]": 2, "demo.marks.test_param_mark[n4]": 4}


def test_core_and_full_can_be_reached_with_one_device() -> None:
    """Tests parametrized over a second device (`[device1]`, multidevice.*) belong to Multi-device: a single-GPU
    plugin must be able to reach Full."""
    for level in LEVELS[:2]:
        needs_more = [test_id for test_id in level.mandatory_ids()
                      if test_id.startswith(("multidevice.", "multiprocess.")) or re.search(r"\[device[1-9]", test_id)]
        assert needs_more == [], f"{level.name} requires a second device: {needs_more[:3]}"
