"""Id patterns as the runner applies them: many at once (IdPatterns) and by module prefix (what a selection lets a
worker leave uncollected) agree with the one-pattern rule, id_matches."""
from __future__ import annotations

import itertools
import random

from pjrt_cts.judgment.outcomes import IdPatterns, id_matches, id_prefix_may_match, module_id_prefix

IDS = ["execute.golden_cases.test_case_matches_reference[spec.add.f32]",
       "execute.golden_cases.test_case_matches_reference[conv.pad.f16]",
       "execute.programs.test_program_matches_numpy[add_f32]",
       "client.devices.test_lookup[3]", "robustness.crashes.test_abort", "execute.a?b[*]", "x"]
PATTERNS = ["execute.*", "*add*", "execute.programs.test_program_matches_numpy[add_f32]", "client.devices.test_lookup[?]",
            "execute.golden_cases.test_case_matches_reference[conv.*]", "robustness.*abort", "execute.a?b[*]", "x", "",
            "*", "execute.golden_cases.test_case_matches_reference[spec.add.f32]"]


def test_many_patterns_match_as_each_does_alone() -> None:
    rng = random.Random(7)
    for size in (1, 2, 3, len(PATTERNS)):
        for _ in range(20):
            chosen = rng.sample(PATTERNS, size)
            patterns = IdPatterns(chosen)
            for test_id in IDS:
                assert patterns.matches(test_id) == any(id_matches(test_id, p) for p in chosen), (chosen, test_id)
    assert not IdPatterns([]) and IdPatterns(["x"])


def test_prefix_feasibility_is_exact() -> None:
    """A module is left uncollected only when no id of it can match: checked against every prefix of every id."""
    for pattern, test_id in itertools.product(PATTERNS, IDS):
        if id_matches(test_id, pattern):
            for cut in range(len(test_id) + 1):
                assert id_prefix_may_match(test_id[:cut], pattern), (pattern, test_id[:cut])
    assert not id_prefix_may_match("execute.golden_cases.", "execute.programs.*")
    assert not id_prefix_may_match("client.devices.", "execute.*")
    assert not id_prefix_may_match("execute.golden_cases.", "execute")  # matches `execute` only
    assert id_prefix_may_match("execute.golden_cases.", "execute.golden_?ases.x")


def test_module_prefixes_are_the_id_prefixes_of_their_tests() -> None:
    assert module_id_prefix("/src/suites/client/test_devices.py") == "client.devices."
    assert module_id_prefix("suites/multiprocess/nodes/test_launch.py") == "multiprocess.nodes.launch."
    assert module_id_prefix("suites/conftest.py") is None
    assert module_id_prefix("tests/runner/test_merge.py") is None
