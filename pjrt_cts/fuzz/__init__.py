"""Seeded StableHLO mutation fuzzer with a crash-isolating child-process harness.

- `seeds`: the programs mutated (golden corpus when shipped, else a built-in set).
- `mutate`: deterministic mutations; input n of seed s is `mutant(programs, s, n)`.
- `harness`: runs inputs in `python -m pjrt_cts.fuzz.child`, restarts it after a crash or hang and
  saves each such input (`fuzz-<seed>-<n>.mlir` / `fuzz-bc-<seed>-<n>.mlirbc` + `.json`).
- `isolate`: run one risky call in a child script and classify answered / crashed / hung.
"""
from pjrt_cts.fuzz.harness import CpuBound, FuzzSummary, Finding, plugin_child_command, reproduce_command, run_inputs
from pjrt_cts.fuzz.mutate import BYTECODE_MUTATIONS, MUTATIONS, Mutant, mutant, mutants
from pjrt_cts.schema import DEFAULT_FUZZ_SEED as DEFAULT_SEED
from pjrt_cts.schema import run_context


def fuzz_seed() -> int:
    """The run's seed (the run context's user setting, PJRT_CTS_FUZZ_SEED; else a fixed default)."""
    return run_context().settings.fuzz_seed


__all__ = [
    "BYTECODE_MUTATIONS", "CpuBound", "DEFAULT_SEED", "Finding", "FuzzSummary", "MUTATIONS", "Mutant", "fuzz_seed", "mutant", "mutants",
    "plugin_child_command", "reproduce_command", "run_inputs",
]
