"""`run --quick`: a deterministic, stratified sample of the mandatory contract, at most 10% of the tests."""
from __future__ import annotations

from pjrt_cts.runner.worker.quick import sample, stratum

GOLDEN = [f"execute.golden_cases.test_case_matches_reference[{family}.case{n}.f32]"
          for family in ("dot", "conv", "gather") for n in range(100)]
PLAIN = [f"transfer.dtypes.test_round_trip_is_bit_exact[{dtype}]" for dtype in ("f32", "s8", "u8", "bf16")] + [
    "client.devices.test_devices_are_non_empty", "abi.plugin.test_plugin_initialize_succeeds"]
OPTIONAL = [f"robustness.fuzz.test_batch[{n}]" for n in range(500)]


def test_sample_is_bounded_mandatory_and_deterministic() -> None:
    collected = GOLDEN + PLAIN + OPTIONAL
    chosen = sample(collected, GOLDEN + PLAIN)
    assert len(chosen) <= len(collected) // 10
    assert chosen <= set(GOLDEN + PLAIN)  # only mandatory tests
    assert chosen == sample(list(reversed(collected)), list(reversed(GOLDEN + PLAIN)))


def test_every_stratum_is_represented_before_any_gets_a_second_test() -> None:
    collected = GOLDEN + PLAIN + OPTIONAL
    chosen = sample(collected, GOLDEN + PLAIN)
    strata = {stratum(test_id) for test_id in GOLDEN + PLAIN}
    assert strata == {stratum(test_id) for test_id in chosen}
    assert {stratum(GOLDEN[0]), stratum(GOLDEN[150])} == {
        "execute.golden_cases.test_case_matches_reference[dot", "execute.golden_cases.test_case_matches_reference[conv"}
    counts = [sum(stratum(t) == s for t in chosen) for s in strata]
    assert max(counts) - min(counts) <= max(1, max(counts) - 1)


def test_mandatory_tests_that_were_not_collected_are_not_sampled() -> None:
    assert sample(PLAIN + OPTIONAL, GOLDEN + PLAIN) <= set(PLAIN)
