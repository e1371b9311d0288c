"""Malformed StableHLO: a seeded mutation fuzzer over the golden (or built-in) programs.

Clause (PJRT_Client_Compile, format "mlir" = MLIR text or bytecode): a program the plugin cannot read
must be rejected with an error. Each batch compiles its inputs in a child process
(`python -m pjrt_cts.fuzz.child`); a crash or hang is a FAIL naming the saved input
(<out>/robustness/fuzz-<seed>-<n>.mlir or fuzz-bc-<seed>-<n>.mlirbc, + .json), and the batch
carries on in a fresh child. Text batches mutate StableHLO assembly (tokens, types, attributes,
truncation); bytecode batches mutate portable artifacts (bytes, varints, truncation). The seed is
recorded (override: PJRT_CTS_FUZZ_SEED).
"""
from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from pjrt_cts.fuzz import CpuBound, Mutant, fuzz_seed, mutants, plugin_child_command, reproduce_command, run_inputs
from pjrt_cts.fuzz.isolate import last_words
from pjrt_cts.judgment.outcomes import HardeningFinding
from pjrt_cts.fuzz.seeds import bytecode_corpus, seed_programs
from pjrt_cts.testing import BlockedByFailure, environment_lacks

TEXT_BATCHES = 10
BYTECODE_BATCHES = 5
INPUTS_PER_BATCH = 100  # 1,000 text + 500 bytecode inputs per run
INPUT_TIMEOUT = 10.0  # a tiny program compiles in ~50 ms; no answer in 10 s is a hang
# Known inputs: 20x the CPU of compiling the valid program they come from (at least 1 CPU-s) is a hang too.
HANG_CPU_FACTOR = 20.0
HANG_CPU_FLOOR = 1.0


@pytest.fixture(autouse=True)
def _needs_a_client(client: Any) -> None:
    """The fuzz child compiles with a client: a plugin that cannot create one (no device) is NOT_SUPPORTED."""


@pytest.fixture(scope="module")
def text_corpus() -> list[tuple[str, bytes]]:
    return [(seed.name, seed.text.encode()) for seed in seed_programs()]


@pytest.fixture(scope="module")
def bytecode_seeds(plugin: Any) -> list[tuple[str, bytes]]:
    """Portable artifacts at the plugin's stablehlo_current_version (what JAX sends), or the newest below."""
    current = plugin.attributes.get("stablehlo_current_version")
    if not isinstance(current, list) or len(current) != 3:
        raise BlockedByFailure("blocked: PJRT_Plugin_Attributes has no stablehlo_current_version to target "
                               "(see abi.plugin.test_standard_attribute_is_present)")
    try:
        return bytecode_corpus(seed_programs(), tuple(current))
    except LookupError as error:  # no stored artifact and no jaxlib to serialize one
        environment_lacks(str(error))
        raise


@pytest.mark.own_process  # the inputs compile in fuzz children (pjrt_cts.fuzz.harness)
@pytest.mark.nondeterministic("a fuzz input that hangs under load may finish on a quiet machine")
@pytest.mark.timeout(600)
@pytest.mark.parametrize("batch", range(TEXT_BATCHES), ids=lambda b: f"batch{b:02d}")
def test_malformed_program_text_is_rejected_cleanly(plugin_path: Any, create_options: dict[str, Any],
                                                    repro_dir: Path, text_corpus: list[tuple[str, bytes]], batch: int,
                                                    record: Any) -> None:
    _run_batch(plugin_path, create_options, repro_dir, text_corpus, batch, "text", record)


@pytest.mark.own_process  # the inputs compile in fuzz children (pjrt_cts.fuzz.harness)
@pytest.mark.nondeterministic("a fuzz input that hangs under load may finish on a quiet machine")
@pytest.mark.timeout(600)
@pytest.mark.parametrize("batch", range(BYTECODE_BATCHES), ids=lambda b: f"batch{b:02d}")
def test_malformed_program_bytecode_is_rejected_cleanly(plugin_path: Any, create_options: dict[str, Any],
                                                        repro_dir: Path, bytecode_seeds: list[tuple[str, bytes]],
                                                        batch: int, record: Any) -> None:
    _run_batch(plugin_path, create_options, repro_dir, bytecode_seeds, batch, "bytecode", record)


def _run_batch(plugin_path: Any, create_options: dict[str, Any], repro_dir: Path, corpus: list[tuple[str, bytes]],
               batch: int, family: str, record: Any) -> None:
    seed = fuzz_seed()
    inputs = mutants(corpus, seed, batch * INPUTS_PER_BATCH, INPUTS_PER_BATCH, family=family)
    summary = run_inputs(
        inputs, plugin_child_command(plugin_path, create_options), repro_dir, input_timeout=INPUT_TIMEOUT,
        context={"plugin": str(plugin_path), "create_options": create_options},
        reproduce=lambda path: reproduce_command(plugin_path, create_options, path), may_fork=True,
    )
    record.details(summary.as_details(), family=family, corpus=[name for name, _ in corpus])
    assert len(summary.results) == len(inputs), (
        f"fuzz {family} batch {batch}: {len(summary.results)} of {len(inputs)} inputs ran")
    # A crash is evidence on its own; a hang only when it recurs with the input alone in a fresh process
    # (a batch input that answers alone may only have been slow while the machine was loaded).
    confirmed = [f for f in summary.findings if not (f.status == "hang" and f.reproduces_alone is False)]
    unconfirmed = [f for f in summary.findings if f not in confirmed]
    if confirmed:
        first = confirmed[0]
        record.details(repro_file=str(first.input_file), repro_report=str(first.report_file))
        words = last_words(first.stderr_tail)
        raise AssertionError(
            f"PJRT_Client_Compile must reject malformed MLIR {family} with an error: {len(confirmed)} of "
            f"{len(inputs)} inputs (seed {seed}) crashed or hung; first: {first.one_line()}"
            + (f"; plugin said: {words[:200]}" if words else "")
            + f"; all: {', '.join(str(f.input_file.name) for f in confirmed)}")
    if unconfirmed:
        record.details(unconfirmed_hangs=[f.one_line() for f in unconfirmed])
        raise HardeningFinding(
            f"PJRT_Client_Compile gave no answer within {INPUT_TIMEOUT:g} s for {len(unconfirmed)} malformed "
            f"{family} input(s) of batch {batch} (seed {seed}) but answered each alone in a fresh process: slow "
            f"under load or dependent on earlier inputs; first: {unconfirmed[0].one_line()}")


class KnownInput(NamedTuple):
    seed: int  # the fuzz seed that found it
    mutant_index: int  # its index among that seed's bytecode mutants
    digest: str  # sha256 prefix of the input (a differing one means another serializer: not the input found)
    found: str  # what it did to the XLA CPU plugins when found


# Inputs that longer fuzz runs found (seed 20260701, bytecode family, over the built-in seed programs
# serialized at StableHLO 1.17.0 by jaxlib 0.10.2): replayed on every run so the findings stay visible.
# name -> the input
REGRESSION_BYTECODE: dict[str, KnownInput] = {
    "bc-20260701-934": KnownInput(20260701, 934, "5a47f1ae7a2c3474",
                                  "one flipped bit in add_mul: 0.115 hangs, 0.81 SIGSEGV"),
    "bc-20260701-1044": KnownInput(20260701, 1044, "cada4eab1b8e7e77",
                                   "duplicated bytes in convert_iota: SIGSEGV on both"),
}
REGRESSION_VERSION = (1, 17, 0)


@pytest.mark.own_process  # the control and the input compile in a fuzz child
@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", sorted(REGRESSION_BYTECODE))
def test_known_malformed_bytecode_is_rejected_cleanly(plugin_path: Any, create_options: dict[str, Any],
                                                      repro_dir: Path, name: str, record: Any) -> None:
    import hashlib

    from pjrt_cts.fuzz import mutant
    from pjrt_cts.fuzz.seeds import BUILTIN_SEEDS

    known = REGRESSION_BYTECODE[name]
    try:
        corpus = bytecode_corpus(BUILTIN_SEEDS, REGRESSION_VERSION)
    except LookupError as error:  # no stored artifact and no jaxlib to serialize one
        environment_lacks(str(error))
        raise
    case = mutant(corpus, known.seed, known.mutant_index, family="bytecode")
    if hashlib.sha256(case.data).hexdigest()[:16] != known.digest:
        environment_lacks(f"{name}: the regenerated input differs from the one found (another jaxlib serializer?)")
    # Control: the artifact the input was mutated from compiles, in the same child, first. Its CPU also calibrates
    # the hang bound: an input that spins is stopped after HANG_CPU_FACTOR x that CPU, not after INPUT_TIMEOUT.
    control = Mutant(seed=case.seed, index=-1, program=case.program, mutations=(), data=dict(corpus)[case.program],
                     family="bytecode")
    summary = run_inputs([control, case], plugin_child_command(plugin_path, create_options), repro_dir,
                         input_timeout=INPUT_TIMEOUT, context={"plugin": str(plugin_path), "found": known.found},
                         cpu_bound=CpuBound(HANG_CPU_FACTOR, HANG_CPU_FLOOR), may_fork=True)
    record.details(summary.as_details(), found=known.found)
    control_result = next(result for result in summary.results if result.index == control.index)
    assert control_result.status == "compiled", (
        f"control: PJRT_Client_Compile of {case.program} as a StableHLO {'.'.join(map(str, REGRESSION_VERSION))} "
        f"portable artifact (the input {name} was mutated from) must succeed; got {control_result.status}"
        + (f" {control_result.code}: {control_result.message[:300]}" if control_result.code else ""))
    if summary.findings:
        finding = summary.findings[0]
        command = reproduce_command(plugin_path, create_options, finding.input_file)
        record.details(repro_file=str(finding.input_file), repro_command=shlex.join(command))
        words = last_words(finding.stderr_tail)
        raise AssertionError(
            f"PJRT_Client_Compile must reject malformed MLIR bytecode with an error: {finding.one_line()}"
            + (f"; plugin said: {words[:200]}" if words else "") + f"; reproduce: {shlex.join(command)}")
