"""The mutation fuzzer is deterministic: input n of seed s is the same bytes on every run."""
from __future__ import annotations

import random
from typing import Any

import pytest

from pjrt_cts.fuzz import BYTECODE_MUTATIONS, DEFAULT_SEED, MUTATIONS, fuzz_seed, mutant, mutants
from pjrt_cts.fuzz.seeds import BUILTIN_SEEDS
from pjrt_cts.schema import CONTEXT_ENV, FUZZ_SEED_ENV, UserSettings

PROGRAMS = [(seed.name, seed.text.encode()) for seed in BUILTIN_SEEDS]


def test_same_seed_and_index_give_the_same_input() -> None:
    first = [mutant(PROGRAMS, 7, n) for n in range(200)]
    again = [mutant(PROGRAMS, 7, n) for n in range(200)]
    assert first == again


def test_a_batch_equals_its_inputs_made_one_by_one() -> None:
    assert mutants(PROGRAMS, 11, 50, 25) == [mutant(PROGRAMS, 11, n) for n in range(50, 75)]


def test_different_seeds_give_different_inputs() -> None:
    a = [mutant(PROGRAMS, 1, n).data for n in range(100)]
    b = [mutant(PROGRAMS, 2, n).data for n in range(100)]
    assert sum(x != y for x, y in zip(a, b)) > 50


def test_every_input_differs_from_its_seed_program_mostly() -> None:
    originals = {text for _, text in PROGRAMS}
    changed = sum(mutant(PROGRAMS, DEFAULT_SEED, n).data not in originals for n in range(500))
    assert changed >= 490


@pytest.mark.parametrize("kind", sorted(MUTATIONS))
def test_each_mutation_is_deterministic_and_returns_bytes(kind: str) -> None:
    mutate = MUTATIONS[kind]
    for name, text in PROGRAMS:
        one = mutate(text, random.Random(f"{kind}/{name}"))
        two = mutate(text, random.Random(f"{kind}/{name}"))
        assert isinstance(one, bytes) and one == two


def test_all_mutation_kinds_are_used_in_a_run() -> None:
    used = {kind for n in range(500) for kind in mutant(PROGRAMS, DEFAULT_SEED, n).mutations}
    assert used == set(MUTATIONS)


def test_mutant_names_carry_seed_and_index() -> None:
    assert mutant(PROGRAMS, 42, 17).name == "fuzz-42-17"


def test_seed_comes_from_the_environment_of_a_bare_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CONTEXT_ENV, raising=False)
    monkeypatch.delenv(FUZZ_SEED_ENV, raising=False)
    assert fuzz_seed() == DEFAULT_SEED
    monkeypatch.setenv(FUZZ_SEED_ENV, "0x10")
    assert fuzz_seed() == 16


def test_seed_comes_from_the_run_context(use_run_context: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FUZZ_SEED_ENV, "0x10")  # the controller read it when it made the context: not the worker
    use_run_context(settings=UserSettings(fuzz_seed=7))
    assert fuzz_seed() == 7


def test_empty_corpus_is_refused() -> None:
    with pytest.raises(ValueError):
        mutant([], 1, 0)


BYTES = [("blob", bytes(range(256)) * 2)]


def test_bytecode_family_is_deterministic_and_binary() -> None:
    first = mutants(BYTES, 3, 0, 200, family="bytecode")
    assert first == mutants(BYTES, 3, 0, 200, family="bytecode")
    assert {kind for m in first for kind in m.mutations} == set(BYTECODE_MUTATIONS)
    assert all(m.family == "bytecode" and m.name.startswith("fuzz-bc-3-") and m.suffix == ".mlirbc" for m in first)


def test_families_do_not_share_inputs() -> None:
    text = [mutant(BYTES, 3, n).data for n in range(50)]
    binary = [mutant(BYTES, 3, n, family="bytecode").data for n in range(50)]
    assert sum(a != b for a, b in zip(text, binary)) > 40
