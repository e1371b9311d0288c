"""Malformed StableHLO: a seeded mutation fuzzer over the golden (or built-in) programs.

Clause (PJRT_Client_Compile): a program the plugin cannot read must be rejected with an error. Each
batch compiles its inputs in a child process (`python -m pjrt_cts.fuzz.child`); a crash or hang is
a FAIL naming the saved input ($PJRT_CTS_OUT/robustness/fuzz-<seed>-<n>.mlir + .json), and the
batch carries on in a fresh child. The seed is recorded (override: PJRT_CTS_FUZZ_SEED).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pjrt_cts.fuzz import fuzz_seed, mutants, plugin_child_command, reproduce_command, run_inputs
from pjrt_cts.fuzz.seeds import seed_programs

BATCHES = 10
INPUTS_PER_BATCH = 100  # 1,000 inputs per run
INPUT_TIMEOUT = 30.0


@pytest.fixture(scope="module")
def fuzz_corpus() -> list[tuple[str, bytes]]:
    return [(seed.name, seed.text.encode()) for seed in seed_programs()]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("batch", range(BATCHES), ids=lambda b: f"batch{b:02d}")
def test_malformed_programs_are_rejected_cleanly(plugin_path: Any, create_options: dict[str, Any], repro_dir: Path,
                                                 fuzz_corpus: list[tuple[str, bytes]], batch: int,
                                                 record: Any) -> None:
    seed = fuzz_seed()
    inputs = mutants(fuzz_corpus, seed, batch * INPUTS_PER_BATCH, INPUTS_PER_BATCH)
    summary = run_inputs(
        inputs, plugin_child_command(plugin_path, create_options), repro_dir, input_timeout=INPUT_TIMEOUT,
        context={"plugin": str(plugin_path), "create_options": create_options},
        reproduce=lambda path: reproduce_command(plugin_path, create_options, path),
    )
    record.details(summary.as_details(), corpus=[name for name, _ in fuzz_corpus])
    assert len(summary.results) == len(inputs), f"fuzz batch {batch}: {len(summary.results)} of {len(inputs)} inputs ran"
    if summary.findings:
        first = summary.findings[0]
        raise AssertionError(
            f"PJRT_Client_Compile must reject malformed MLIR with an error: {len(summary.findings)} of {len(inputs)} "
            f"inputs (seed {seed}) crashed or hung; first: {first.one_line()}")
