"""The frozen level contracts (pjrt_cts/mustpass) agree with the tree: a contract changes only on purpose."""
from __future__ import annotations

from pjrt_cts import contract
from pjrt_cts.levels import LEVELS
from pjrt_cts.resources import golden_dir, suites_dir


def test_committed_mandatory_lists_match_the_tree() -> None:
    contracts = contract.build_contracts(contract.collect_test_ids(suites_dir()), contract.golden_cases(golden_dir()))
    assert contract.check(contracts) == [], "run `pjrt-cts contract --write` and review the diff"
    assert [c.level.name for c in contracts] == [level.name for level in LEVELS]


def test_a_removed_mandatory_test_is_reported() -> None:
    collected = contract.collect_test_ids(suites_dir())
    cases = contract.golden_cases(golden_dir())
    dropped = LEVELS[0].mandatory_ids()[0]
    problems = contract.check(contract.build_contracts([i for i in collected if i != dropped], cases))
    assert problems and problems[0].startswith("Core: the tree no longer matches the committed list: 1 removed")


def test_core_and_full_can_be_reached_with_one_device() -> None:
    """Tests parametrized over a second device (`[device1]`, multidevice.*) belong to Multi-device: a single-GPU
    plugin must be able to reach Full."""
    import re

    for level in LEVELS[:2]:
        needs_more = [test_id for test_id in level.mandatory_ids()
                      if test_id.startswith(("multidevice.", "multiprocess.")) or re.search(r"\[device[1-9]", test_id)]
        assert needs_more == [], f"{level.name} requires a second device: {needs_more[:3]}"
