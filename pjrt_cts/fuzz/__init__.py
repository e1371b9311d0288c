"""Seeded StableHLO mutation fuzzer with a crash-isolating child-process harness.

- `seeds`: the programs mutated (golden corpus when shipped, else a built-in set).
- `mutate`: deterministic mutations; input n of seed s is `mutant(programs, s, n)`.
- `harness`: runs inputs in `python -m pjrt_cts.fuzz.child`, restarts it after a crash or hang and
  saves each such input (`fuzz-<seed>-<n>.mlir` / `fuzz-bc-<seed>-<n>.mlirbc` + `.json`).
- `isolate`: run one risky call in a child script and classify answered / crashed / hung.
"""
import os

from pjrt_cts.fuzz.harness import FuzzSummary, Finding, plugin_child_command, reproduce_command, run_inputs
from pjrt_cts.fuzz.mutate import BYTECODE_MUTATIONS, MUTATIONS, Mutant, mutant, mutants

ENV_SEED = "PJRT_CTS_FUZZ_SEED"
DEFAULT_SEED = 20260701


def fuzz_seed() -> int:
    """The run's seed: $PJRT_CTS_FUZZ_SEED, else a fixed default (runs are reproducible by default)."""
    value = os.environ.get(ENV_SEED, "").strip()
    return int(value, 0) if value else DEFAULT_SEED


__all__ = [
    "BYTECODE_MUTATIONS", "DEFAULT_SEED", "ENV_SEED", "Finding", "FuzzSummary", "MUTATIONS", "Mutant", "fuzz_seed", "mutant", "mutants",
    "plugin_child_command", "reproduce_command", "run_inputs",
]
