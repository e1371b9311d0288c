"""One `pjrt-cts run`: prepare out/, start xdist workers through pytest, write the results.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why)."""
from __future__ import annotations

import functools
import gc
import json
import os
import shlex
import shutil
import signal
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, TextIO

import pytest

from pjrt_cts import __version__
from pjrt_cts.judgment.defects import UNCLASSIFIED
from pjrt_cts.judgment.outcomes import Outcome, test_id_from_nodeid
from pjrt_cts.runner import crashlog, identity
from pjrt_cts.runner.controller import terminal
from pjrt_cts.runner.binding import RunBinding, aot_settings, bind, plugin_environment
from pjrt_cts.runner.blocks import BlockFile, blocked_summary
from pjrt_cts.runner.files.bundle import BundleError, pack_bundle
from pjrt_cts.runner.controller.confirmation import (ConfirmationSummary, apply_confirmations, needs_confirmation,
                                          twin_observations)
from pjrt_cts.runner.controller.consistency import apply_consistency
from pjrt_cts.runner.controller.contract_check import ContractCheck
from pjrt_cts.runner.controller.recorder import Controller
from pjrt_cts.runner.controller.expectations import Expectations, apply_expectation
from pjrt_cts.runner.files.junit import write_junit
from pjrt_cts.runner.controller.preflight import DEVICE_LESS_STEPS, Preflight, run_preflight
from pjrt_cts.runner.probe_child import STEPS
from pjrt_cts.runner.controller.progress import Progress
from pjrt_cts.runner.records import PhaseResult, layer_of_nodeid, make_record, result_of_phases
from pjrt_cts.judgment.api_coverage import stored_line
from pjrt_cts.judgment.results import JsonlWriter, build_results, read_jsonl, write_results
from pjrt_cts.judgment.summary import run_summary, write_summary
from pjrt_cts.schema import RunContext, TopologySpec, UserSettings, context_environment
from pjrt_cts.runner.worker.quick import NOTE as QUICK_NOTE
from pjrt_cts.runner.files.shard import DURATIONS_STRATEGY, HASH_STRATEGY, ShardSpec
from pjrt_cts.runner.spec import RunSpec
from pjrt_cts.runner.files.child_reports import CONFIRMATIONS_SUFFIX, read_child_events
from pjrt_cts.schema import Results, TestRecord
from pjrt_cts.judgment.defects import attribute_blocked
from pjrt_cts.judgment.verdict import EXIT_USAGE, RunVerdict, aot_note, judge_results

WORKER_PLUGIN = "pjrt_cts.runner.worker.plugin"
BLOCKING_PLUGIN = "pjrt_cts.runner.worker.blocking"
EXIT_INTERRUPTED = 130  # the verdict's own exit codes: pjrt_cts.judgment.verdict (0, 1, 3)
_OUTPUT_FILES = ("results.jsonl", "results.json", "junit.xml", "report.html")
# Above this many findings to confirm, failures beyond it are not rerun (the verdict is NON_CONFORMANT on confirmed
# ones already); waivers and UNIMPLEMENTED answers, which decide between verdicts, always are.
CONFIRM_ALL_LIMIT = 400


@dataclass
class RunOptions:
    plugin_path: Path
    suites_dir: Path
    layers: list[str]
    out_dir: Path
    profile: str | None = None
    create_options: dict[str, Any] = field(default_factory=dict)
    user_create_options: list[str] = field(default_factory=list)  # as typed, for repro lines
    worker_env: dict[str, str] = field(default_factory=dict)  # what the plugin's runtime needs (library paths)
    profile_environment: frozenset[str] = frozenset()  # the names the profile's [environment] sets (bound)
    no_device_codes: frozenset[str] = frozenset()  # the profile's "no device" PJRT_Client_Create error codes
    settings: UserSettings = field(default_factory=UserSettings)  # the user's knobs (UserSettings.from_environment)
    keyword: str | None = None
    ids: list[str] = field(default_factory=list)
    workers: int = 2
    timeout: float = 120.0
    expectations: Expectations = field(default_factory=Expectations)
    resume: bool = False
    command: list[str] = field(default_factory=list)
    suites_dir_given: bool = False
    show_progress: bool = True
    shard: ShardSpec | None = None  # `--shard K/N`: run only shard K's tests (pjrt_cts.runner.files.shard)
    shard_durations: dict[str, float] = field(default_factory=dict)  # balance shards by these (test id -> s)
    quick: bool = False  # `--quick`: a stratified sample of the mandatory contract (pjrt_cts.runner.worker.quick)
    confirm: bool = True  # rerun every finding before the verdict (runner/controller/confirmation.py); off: never CONFORMANT
    report: bool = True  # write report.html (off for the selftest's mutant runs, read through results.json)
    bundle: Path | None = None  # `--bundle FILE`: pack a submission bundle at the end (runner/files/bundle.py)
    topologies: tuple[TopologySpec, ...] = ()  # what the aot layer compiles for (profile's, or `--topology`)
    device_less: bool = False  # `--aot`: no client is created, as on a host without the plugin's device

    def context(self, blocks_file: Path | None) -> RunContext:
        """The run context every process of the run reads (pjrt_cts.schema.run_context); a bare pytest run
        (pjrt_cts.cli.pytest_plugin) has no preflight, so no blocks file."""
        return RunContext(plugin_path=str(self.plugin_path), create_options=dict(self.create_options),
                          profile=self.profile or "", out_dir=str(self.out_dir), no_device_codes=self.no_device_codes,
                          blocks_file=str(blocks_file) if blocks_file is not None else None, settings=self.settings,
                          topologies=self.topologies, device_less=self.device_less)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Run:
    def __init__(self, options: RunOptions, stream: TextIO | None = None) -> None:
        self.options = options
        self.stream = stream or sys.stdout
        self.out = options.out_dir
        self.run_dir = self.out / ".run"
        self.log_dir = self.out / "logs"
        self.jsonl_path = self.out / "results.jsonl"
        self.confirmation = ConfirmationSummary()
        self.unconfirmed: list[str] = []  # bad results not rerun (CONFIRM_ALL_LIMIT)
        self._records_read: tuple[tuple[int, int], list[TestRecord]] | None = None
        self._contract_check: ContractCheck | None = None

    # -- entry point ----------------------------------------------------------------------------

    def execute(self) -> int:
        options = self.options
        began = time.monotonic()
        binding = self._binding()
        refusal = self._resume_refusal(binding)
        if refusal is not None:
            self._say(f"pjrt-cts run: error: --resume refused: {refusal}")
            return EXIT_USAGE
        meta = self._prepare_out_dir(binding)
        if self._may_be_conformant():
            from pjrt_cts.resources import golden_dir

            self._contract_check = ContractCheck(options.suites_dir, golden_dir(), binding.judge_sha256)
        done = read_jsonl(self.jsonl_path) if options.resume else []
        if done:
            self._say(f"resuming: {len(done)} tests already recorded in {self.jsonl_path}")
        spec_path = self.run_dir / "spec.json"
        self.spec(done).write(spec_path)
        self._context().write(self.context_path)

        worker_env = self._worker_environment()
        writer = JsonlWriter(self.jsonl_path)
        preflight = self._preflight(worker_env, writer, {r.nodeid for r in done}, binding.plugin_sha256)
        progress = Progress(self.stream, enabled=options.show_progress)
        controller = Controller(
            log_dir=self.log_dir, writer=writer, expectations=options.expectations, progress=progress,
            repro=self.repro, timeout=options.timeout, workers=options.workers,
            done_nodeids={r.nodeid for r in done}, done_ids=[r.id for r in done],
            blocks=BlockFile.read(self.run_dir / "blocks.json"), out_dir=self.out, reruns_in_workers=options.confirm,
        )
        interrupted = False
        try:
            with _environment(worker_env), _sigterm_as_interrupt():
                exit_status = pytest.main(self._pytest_args(spec_path), plugins=[controller])
            interrupted = int(exit_status) == int(pytest.ExitCode.INTERRUPTED) and controller.stop_reason is None
            if int(exit_status) in (int(pytest.ExitCode.INTERNAL_ERROR), int(pytest.ExitCode.USAGE_ERROR)):
                controller.incidents.append(f"pytest ended with {pytest.ExitCode(exit_status).name}")
        except KeyboardInterrupt:
            interrupted = True
        finally:
            progress.finish()
        if not interrupted and controller.stop_reason is None:
            writer.close()
            interrupted = self._confirm(worker_env, controller.config)
            writer = JsonlWriter(self.jsonl_path)
        if not interrupted:
            for nodeid in sorted(controller.pending_nodeids):
                reason = controller.stop_reason or "the run ended before this test ran"
                writer.write(apply_expectation(
                    make_record(nodeid, PhaseResult(Outcome.ERROR, message=f"not run: {reason}", details={"not_run": True}),
                            self.repro(nodeid)),
                    options.expectations))
        writer.close()
        meta["wall_seconds"] = meta.get("wall_seconds_before", 0.0) + (time.monotonic() - began)
        with _cyclic_gc_paused():
            return self._finish(meta, preflight, controller, interrupted)

    # -- setup ------------------------------------------------------------------------------------

    def _binding(self) -> RunBinding:
        from pjrt_cts.resources import golden_dir

        options = self.options
        return bind(plugin_path=options.plugin_path, profile=options.profile, create_options=options.create_options,
                    expectations_sha256=options.expectations.fingerprint(), suite_version=__version__,
                    suites_dir=options.suites_dir, corpus_dir=golden_dir(),
                    plugin_environment=plugin_environment(os.environ, options.worker_env, options.profile_environment),
                    user_settings={**options.settings.to_json(), "timeout": options.timeout,
                                   **aot_settings(options.device_less, options.topologies)})

    def _may_be_conformant(self) -> bool:
        """Whether this run's selection could earn CONFORMANT (alone, or as a shard of one that could): every
        layer, no --id, -k or --quick. Only such a run checks its mandatory lists (runner/controller/contract_check.py)."""
        from pjrt_cts.judgment.outcomes import LAYERS

        options = self.options
        return set(LAYERS) <= set(options.layers) and not options.ids and not options.keyword and not options.quick

    def _resume_refusal(self, binding: RunBinding) -> str | None:
        """Why --resume may not continue the recorded run (None: it may, or there is nothing to resume)."""
        if not self.options.resume or not read_jsonl(self.jsonl_path):
            return None
        try:
            recorded = RunBinding.from_dict(json.loads((self.run_dir / "run.json").read_text(encoding="utf-8"))
                                            .get("binding") or {})
        except (OSError, json.JSONDecodeError, AttributeError):
            recorded = None
        if recorded is None:
            return (f"{self.out} holds results that do not say which plugin binary, suite and corpus produced them; "
                    "start a fresh run (without --resume) or use another --out")
        differences = recorded.differences(binding)
        if not differences:
            return None
        return (f"the recorded run in {self.out} is bound to other facts than this one (" + "; ".join(differences)
                + "): its records cannot be judged as this run's. Start a fresh run (without --resume) or use another --out")

    def _prepare_out_dir(self, binding: RunBinding) -> dict[str, Any]:
        self.out.mkdir(parents=True, exist_ok=True)
        meta_path = self.run_dir / "run.json"
        previous: dict[str, Any] = {}
        if self.options.resume and meta_path.is_file():
            try:
                previous = json.loads(meta_path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                previous = {}
        if self.options.resume and not self.jsonl_path.is_file():
            self._say(f"nothing to resume in {self.out}: starting a fresh run")
        if not self.options.resume:
            for name in _OUTPUT_FILES:
                (self.out / name).unlink(missing_ok=True)
            shutil.rmtree(self.log_dir, ignore_errors=True)
            shutil.rmtree(self.run_dir, ignore_errors=True)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        for stale in self.log_dir.glob("*.collection.json"):
            stale.unlink()
        meta = {
            "started_at": previous.get("started_at") or now_iso(),
            "command": previous.get("command") or self.options.command,
            "plugin_path": str(self.options.plugin_path),
            "wall_seconds_before": float(previous.get("wall_seconds", 0.0) or 0.0),
            "binding": binding.to_dict(),
        }
        meta_path.write_text(json.dumps(meta, indent=1), encoding="utf-8")
        return meta

    # -- confirmation -----------------------------------------------------------------------------

    @property
    def confirmations_path(self) -> Path:
        return self.run_dir / "confirmations.jsonl"

    def _confirm(self, worker_env: dict[str, str], config: pytest.Config | None) -> bool:
        """Rerun every finding observed once (pjrt_cts.runner.controller.confirmation) in fresh worker processes; their
        records go to .run/confirmations.jsonl and are folded in by _finish. Returns True when interrupted."""
        began = time.monotonic()
        if self.options.confirm and config is not None:
            self._fold_worker_reruns(config)
        chosen, self.unconfirmed = self._to_confirm()
        if not chosen:
            self.confirmation.seconds = time.monotonic() - began
            return False
        if not self.options.confirm:
            self.confirmation.skipped = len(chosen)
            self.unconfirmed = []
            return False
        self._say(f"confirming {len(chosen)} non-PASS result(s) in fresh processes")
        log_dir = self.log_dir / "confirmation"
        spec_path = self.run_dir / "confirmation-spec.json"
        spec = self.spec([])
        spec.log_dir = str(log_dir)
        spec.select_ids, spec.expectation_skips, spec.shard, spec.quick = [], [], None, False
        spec.only_nodeids = sorted(chosen)
        spec.confirm_in_workers = False  # these workers are the confirmation
        root = self.options.suites_dir.parent
        spec.suite_paths = sorted({str(root / nodeid.split("::", 1)[0]) for nodeid in chosen})
        spec.write(spec_path)
        log_dir.mkdir(parents=True, exist_ok=True)
        writer = JsonlWriter(self.confirmations_path)
        progress = Progress(self.stream, enabled=self.options.show_progress)
        controller = Controller(
            log_dir=log_dir, writer=writer, expectations=Expectations(), progress=progress, repro=self.repro,
            timeout=self.options.timeout, workers=max(1, min(self.options.workers, len(chosen))),
            done_nodeids=set(), done_ids=[], blocks=None, out_dir=self.out,
        )
        interrupted = False
        try:
            with _environment(worker_env), _sigterm_as_interrupt():
                args = self._pytest_args(spec_path)
                if "-k" in args:  # the selection is the chosen node ids, nothing else
                    del args[args.index("-k"):args.index("-k") + 2]
                args[args.index("-n") + 1] = str(controller.workers)
                exit_status = pytest.main(args, plugins=[controller])
            interrupted = int(exit_status) == int(pytest.ExitCode.INTERRUPTED) and controller.stop_reason is None
        except KeyboardInterrupt:
            interrupted = True
        finally:
            progress.finish()
            writer.close()
        self.confirmation.seconds = time.monotonic() - began
        return interrupted

    def _fold_worker_reruns(self, config: pytest.Config) -> None:
        """Each worker reran its own findings after its last test, in a process forked from its collected copy
        (worker/reruns.py): every rerun that finished becomes its finding's second
        observation in .run/confirmations.jsonl, as the confirmation pass's would; the rest is left to that pass.
        `config`: the main session's, whose hooks turn the reports back into pytest's."""
        paths = sorted(self.log_dir.glob(f"*{CONFIRMATIONS_SUFFIX}"))
        if not paths:
            return
        records = {r.nodeid: r for r in self._run_records()}
        done = {r.nodeid for r in read_jsonl(self.confirmations_path)}
        writer = JsonlWriter(self.confirmations_path)
        try:
            for path in paths:
                events = read_child_events(path, config)
                for nodeid in events.finished():
                    record = records.get(nodeid)
                    if record is None or nodeid in done or not needs_confirmation(record):
                        continue
                    reports = events.reports[nodeid]
                    rerun = make_record(nodeid, result_of_phases(reports), self.repro(nodeid))
                    writer.write(apply_expectation(rerun, Expectations()))
                    done.add(nodeid)
                    self.confirmation.in_workers += 1
                path.unlink()
        finally:
            writer.close()

    def _to_confirm(self) -> tuple[set[str], list[str]]:
        """(node ids to rerun, node ids of bad results left unconfirmed because of CONFIRM_ALL_LIMIT)."""
        records = self._run_records()
        done = {r.nodeid for r in read_jsonl(self.confirmations_path)} | set(twin_observations(records))
        candidates = [r for r in records if needs_confirmation(r) and r.nodeid not in done]
        deciding = [r.nodeid for r in candidates if r.outcome in (Outcome.XFAIL, Outcome.NOT_SUPPORTED)]
        bad = [r.nodeid for r in candidates if r.outcome not in (Outcome.XFAIL, Outcome.NOT_SUPPORTED)]
        room = max(0, CONFIRM_ALL_LIMIT - len(deciding))
        return set(deciding) | set(bad[:room]), bad[room:]

    def _run_records(self) -> list[TestRecord]:
        """results.jsonl's records, read again only when the file has changed (the run's end reads them three
        times)."""
        try:
            stat = self.jsonl_path.stat()
        except FileNotFoundError:
            return []
        version = (stat.st_size, stat.st_mtime_ns)
        if self._records_read is None or self._records_read[0] != version:
            self._records_read = (version, read_jsonl(self.jsonl_path))
        return list(self._records_read[1])

    def _judged_records(self) -> list[TestRecord]:
        """The records of results.jsonl with their confirmations folded in, the consistency rules applied and
        the expectations applied last (they waive what the record finally is)."""
        summary = self.confirmation
        second = {r.nodeid: r for r in read_jsonl(self.confirmations_path)}
        records = apply_confirmations(self._run_records(), second, summary)
        left_out = set(self.unconfirmed)
        summary.rerun = len(second)
        if not summary.skipped:
            summary.missing = [r.id for r in records if needs_confirmation(r) and r.confirmation is None
                               and r.nodeid not in left_out]
        records = apply_consistency(records)
        return attribute_blocked(apply_expectation(r, self.options.expectations) for r in records)

    @property
    def context_path(self) -> Path:
        return self.run_dir / "context.json"

    def _context(self) -> RunContext:
        return self.options.context(blocks_file=self.run_dir / "blocks.json")

    def _ini_file(self) -> Path:
        own = self.options.suites_dir / "pytest.ini"
        if own.is_file():
            return own
        ini = self.run_dir / "pytest.ini"
        ini.write_text("[pytest]\n", encoding="utf-8")
        return ini

    def _common_args(self) -> list[str]:
        suites = self.options.suites_dir
        return [
            "-p", WORKER_PLUGIN,
            "-p", BLOCKING_PLUGIN,
            "--rootdir", str(suites.parent),
            "-c", str(self._ini_file()),
            "--confcutdir", str(suites),
            "--capture=no",  # the plugin's own stderr must reach the worker log, crash or not
            "-o", "faulthandler_timeout=0",  # the runner's per-test timer must not be replaced
            "-p", "no:cacheprovider",
            "-p", "no:terminal",
            "-p", "no:timeout",
            "-p", "no:randomly",
            "-p", "no:unraisableexception",  # its two full garbage collections at each process's end
        ]

    def spec(self, done: list[TestRecord]) -> RunSpec:
        """What the run's workers and isolated children read (at run_dir/spec.json; a bare pytest run's isolated
        tests too: pjrt_cts.cli.pytest_plugin)."""
        spec_path = self.run_dir / "spec.json"
        child_args = self._common_args() + ["--pjrt-cts-spec", str(spec_path), "-p", "no:xdist"]
        skips = [[pattern, reason] for pattern, reason in self.options.expectations.skip_patterns()]
        return RunSpec(
            out_dir=str(self.out), log_dir=str(self.log_dir), rootdir=str(self.options.suites_dir.parent),
            timeout=self.options.timeout, child_args=child_args, select_ids=list(self.options.ids),
            done_nodeids=[r.nodeid for r in done], expectation_skips=skips, pythonpath=identity.package_root(),
            suite_paths=[str(self.options.suites_dir / layer) for layer in self.options.layers],
            shard=[self.options.shard.index, self.options.shard.count] if self.options.shard else None,
            shard_durations=dict(self.options.shard_durations) if self.options.shard else {},
            quick=self.options.quick, confirm_in_workers=self.options.confirm,
        )

    def _pytest_args(self, spec_path: Path) -> list[str]:
        options = self.options
        # Not the suites: the controller must not import suite code (a conftest could crash it).
        # Workers swap in spec.suite_paths before collecting (worker/selection.py).
        empty = self.run_dir / "controller-collects-nothing"
        empty.mkdir(parents=True, exist_ok=True)
        args = [str(empty)] + self._common_args()
        args += ["--pjrt-cts-spec", str(spec_path), "-n", str(options.workers), "--dist", "load",
                 "--max-worker-restart", "1000000", "--continue-on-collection-errors"]
        if options.keyword:
            args += ["-k", options.keyword]
        return args

    def _worker_environment(self) -> dict[str, str]:
        options = self.options
        pythonpath = os.pathsep.join(p for p in (identity.package_root(), os.environ.get("PYTHONPATH", "")) if p)
        env = dict(options.worker_env)
        env.update(context_environment(self.context_path))
        env["PYTHONPATH"] = pythonpath
        # numpy's OpenBLAS starts a thread per core at import, in every worker and child process, and those threads
        # spin; the suite's reference arrays are small, so one thread leaves the cores to the plugin.
        if "OPENBLAS_NUM_THREADS" not in os.environ:
            env["OPENBLAS_NUM_THREADS"] = "1"
        return env

    def _preflight(self, worker_env: dict[str, str], writer: JsonlWriter, done_nodeids: set[str],
                   plugin_sha256: str | None) -> Preflight:
        """The shared steps, probed once in a child before workers start (pjrt_cts.runner.controller.preflight): a step
        that crashes or hangs is recorded once and blocks the tests that depend on it. The plugin's digest comes
        from the run's binding (hashed once per run)."""
        options = self.options
        result = run_preflight(options.plugin_path, options.create_options, {**os.environ, **worker_env},
                               step_timeout=options.timeout, repro=self.preflight_repro(), sha256=plugin_sha256,
                               steps=DEVICE_LESS_STEPS if options.device_less else STEPS)
        result.write_blocks(self.run_dir / "blocks.json")
        if result.finding is not None:
            self._say(result.announcement())
            if result.finding.nodeid not in done_nodeids:
                writer.write(apply_expectation(result.finding, options.expectations))
        return result

    def preflight_repro(self) -> str:
        """The command that reruns the preflight's steps: `pjrt-cts info` on the same plugin, profile, options and
        step timeout."""
        options = self.options
        parts = ["pjrt-cts", "info", *self._plugin_arguments(), "--no-sha256"]
        if options.timeout != RunOptions.timeout:
            parts += ["--timeout", f"{options.timeout:g}"]
        return shlex.join(parts)

    def repro(self, nodeid: str) -> str:
        """The command that reruns one test (each record's `repro`): `pjrt-cts run` of that test alone, on the
        same plugin, profile, options, suites and timeout."""
        if "::" in nodeid:
            return f"{self._repro_prefix} {shlex.join(['-n', '1', '--id', test_id_from_nodeid(nodeid)])}"
        return f"{self._repro_prefix} {shlex.join(['-n', '1', '--layers', layer_of_nodeid(nodeid)])}"

    @functools.cached_property
    def _repro_prefix(self) -> str:
        """`pjrt-cts run` with the options every test's repro shares (made once: a run makes ~17,000 repros)."""
        options = self.options
        parts = ["pjrt-cts", "run", *self._plugin_arguments()]
        if options.suites_dir_given:
            parts += ["--suites-dir", str(options.suites_dir)]
        if options.timeout != RunOptions.timeout:
            parts += ["--timeout", f"{options.timeout:g}"]
        return shlex.join(parts)

    def _plugin_arguments(self) -> list[str]:
        """PATH [--plugin PROFILE] [--create-option K=V ...] as the user gave them (`info` and `run` take the same)."""
        parts = [str(self.options.plugin_path)]
        if self.options.profile:
            parts += ["--plugin", self.options.profile]
        for option in self.options.user_create_options:
            parts += ["--create-option", option]
        return parts

    # -- the end ----------------------------------------------------------------------------------

    def _finish(self, meta: dict[str, Any], preflight: Preflight, controller: Controller, interrupted: bool) -> int:
        options = self.options
        plugin = dict(preflight.identity, distribution=identity.plugin_distribution(meta["plugin_path"]))
        records = self._judged_records()
        compatibility: dict[str, Any] = {}
        for record in records:
            compatibility.update(record.compatibility)
        seen_ids = controller.collected_ids | {r.id for r in records}  # other shards' tests included
        unknown = options.expectations.unknown_patterns(seen_ids, options.layers) if seen_ids else []
        expectations_summary = options.expectations.describe(unknown, records)
        ran_something = bool(records) or (options.shard is not None and bool(seen_ids))  # a shard may be empty
        complete = not interrupted and ran_something and not controller.pending_nodeids
        results = build_results(
            tool_version=__version__, started_at=meta["started_at"], finished_at=now_iso(),
            wall_seconds=meta["wall_seconds"], command=meta["command"], profile=options.profile, plugin=plugin,
            environment=identity.environment(), expectations=expectations_summary,
            compatibility=compatibility, tests=records, complete=complete,
            facts={"binding": meta["binding"], "selection": self._selection_record(),
                   "contract": self._contract_check.result() if self._contract_check and not interrupted else None,
                   "confirmation": dict(self.confirmation.to_dict(), not_rerun=len(self.unconfirmed)),
                   "shard": self._shard_record(controller.collection) if options.shard is not None else None,
                   "quick": dict(controller.collection.get("quick") or {}, note=QUICK_NOTE) if options.quick else None},
        )
        report = self._start_report(results) if options.report else None
        write_results(results, self.out / "results.json")
        write_summary(run_summary(results), self.out / "summary.json")  # what `pjrt-cts matrix` tabulates
        write_junit(results.tests, self.out / "junit.xml")
        meta_out = {"started_at": meta["started_at"], "command": meta["command"], "plugin_path": meta["plugin_path"],
                    "wall_seconds": meta["wall_seconds"], "binding": meta["binding"]}
        (self.run_dir / "run.json").write_text(json.dumps(meta_out, indent=1), encoding="utf-8")
        report_note = report() if report is not None else ""

        self._say("")
        self._say(terminal.summary_table(results.summary or {}))
        for pattern in unknown:
            self._say(f"warning: expectation pattern matches no test: {pattern}")
        if self.confirmation.skipped:
            self._say(f"confirmation: skipped (--no-confirmation): {self.confirmation.skipped} finding(s) observed once")
        else:
            self._say(self.confirmation.line() + (f"; {len(self.unconfirmed)} further bad result(s) not rerun (more than "
                      f"{CONFIRM_ALL_LIMIT} findings: the verdict rests on those confirmed)" if self.unconfirmed else ""))
        for incident in controller.incidents:
            self._say(f"warning: {incident}")
        if plugin.get("error"):
            self._say(f"warning: plugin identity unavailable: {plugin['error']}")
        for line in blocked_summary(records):
            self._say(line)
        altered = corpus_alterations(records)
        if altered:
            self._say(f"error: {len(altered)} test(s) read a golden corpus file that is not the one its manifest "
                      f"records, first {altered[0].id}: {altered[0].message}")
        if controller.stop_reason:
            self._say(f"error: run stopped: {controller.stop_reason}")
        if options.shard is not None:
            shard = results.shard or {}
            self._say(f"shard {options.shard}: {len(records)} of {shard['tests_in_split']} tests "
                      f"(split by {shard['strategy']}); combine the shards with `pjrt-cts merge`")
        if options.quick:
            sample = results.quick or {}
            self._say(f"--quick: {sample.get('tests_in_sample', '?')} of {sample.get('collected', '?')} tests, "
                      f"{QUICK_NOTE}")
        if not records and not ran_something:
            self._say("error: no tests were collected or run" + self._first_log_tail())
        self._say(f"results: {self.out / 'results.json'}  junit: {self.out / 'junit.xml'}{report_note}")
        if options.bundle is not None:
            self._say(self._bundle(options.bundle, interrupted))
        for entry in expectations_summary["entries"]:
            if entry["passed"]:
                self._say(f"warning: expectation {entry['pattern']} matches {entry['passed']} passing test(s) (XPASS): "
                          "stale or matching too much")
        judged = judge_results(results)
        if (reached := stored_line(results.api_coverage)) is not None:
            self._say(reached)
        self._say_verdict(judged, len(records), meta["wall_seconds"], aot_note(records))
        if interrupted:
            self._say(f"interrupted: rerun the same command with --resume to finish ({self.jsonl_path})")
            return EXIT_INTERRUPTED
        return judged.exit_code

    def _bundle(self, path: Path, interrupted: bool) -> str:
        """Pack the finished run into a submission bundle; the line that says where, or why not."""
        if interrupted:
            return f"bundle: not written (the run was interrupted; `--resume --bundle {path}` finishes it)"
        try:
            digest = pack_bundle(self.out, path)
        except BundleError as exc:
            return f"error: bundle not written: {exc}"
        return f"bundle: {path} (manifest SHA-256 {digest}; `pjrt-cts verify {path}` checks it)"

    def _selection_record(self) -> dict[str, Any]:
        """results.json `selection`: what the user asked to run (the verdict reads `layers`; deselected tests
        are SKIP records with `details.deselected_by`)."""
        from pjrt_cts.judgment.outcomes import LAYERS

        options = self.options
        return {"layers": list(options.layers), "all_layers": set(LAYERS) <= set(options.layers),
                "ids": list(options.ids), "keyword": options.keyword,
                "expectation_skips": len(options.expectations.skip_patterns())}

    def _shard_record(self, collection: dict[str, Any]) -> dict[str, Any]:
        """results.json `shard`: which part of which split this run is (`pjrt-cts merge` checks the set)."""
        shard = self.options.shard
        assert shard is not None
        split = collection.get("shard") or {}
        return {"index": shard.index, "count": shard.count,
                "strategy": DURATIONS_STRATEGY if self.options.shard_durations else HASH_STRATEGY,
                "tests_in_split": split.get("tests_in_split"), "plan_digest": split.get("plan_digest")}

    def _say_verdict(self, judged: RunVerdict, count: int, wall_seconds: float, note: str | None = None) -> None:
        if judged.waivers:
            by_defect: dict[str, list[dict[str, Any]]] = {}
            for waiver in judged.waivers:  # a waived test no catalogued defect explains is a defect of its own
                named = waiver.get("defect") not in (None, "", UNCLASSIFIED)
                by_defect.setdefault(str(waiver["defect"] if named else waiver["id"]), []).append(waiver)
            self._say(f"waived defects ({len(by_defect)} defects, {len(judged.waivers)} XFAIL tests accepted by the "
                      "expectations file; `pjrt-cts triage` lists every defect):")
            for defect, waivers in by_defect.items():
                more = f" (+{len(waivers) - 1} more)" if len(waivers) > 1 else ""
                self._say(f"  - {defect}: {waivers[0]['id']}{more}: {str(waivers[0]['reason'])[:160]}")
        for reason in judged.reasons[1:]:
            self._say(f"  also: {reason}")
        if note:
            self._say(note)
        self._say(f"verdict: {judged.line()}  ({count} tests, {wall_seconds:.1f}s)")

    def _start_report(self, results: Results) -> Callable[[], str]:
        """Start writing report.html in a forked copy of this process, beside the other files this one writes: the
        run's end is serial, and the report is its longest write (docs/bench.md). Returns what waits for
        it and gives `_write_report`'s line; a copy that could not write it leaves it to this process."""
        fork = getattr(os, "fork", None)
        try:
            pid = fork() if fork is not None else -1
        except OSError:
            pid = -1
        if pid == 0:  # the copy: write, and leave without this process's exit handlers or buffered output
            code = 1
            try:
                from pjrt_cts.report.html import write_report

                write_report(results, self.out / "report.html")
                code = 0
            finally:
                os._exit(code)
        if pid < 0:
            return lambda: self._write_report(results)

        def finish() -> str:
            _, status = os.waitpid(pid, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                return self._write_report(results)  # the copy failed: here, where a failure is reported
            return f"  report: {self.out / 'report.html'}"
        return finish

    def _write_report(self, results: Results) -> str:
        try:
            from pjrt_cts.report.html import write_report
        except Exception:  # noqa: BLE001 - report package not available: results.json is the product anyway
            return ""
        try:
            write_report(results, self.out / "report.html")
        except Exception as exc:  # noqa: BLE001 - never fail a conformance run because of its report
            self._say(f"warning: could not write report.html: {type(exc).__name__}: {exc}")
            return ""
        return f"  report: {self.out / 'report.html'}"

    def _first_log_tail(self) -> str:
        logs = sorted(self.log_dir.glob("*.log"))
        if not logs:
            return ""
        lines = crashlog.read_segment(logs[0], "").tail(30)
        return f"\n--- {logs[0]} (last lines) ---\n" + "\n".join(lines)

    def _say(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()


def corpus_alterations(records: list[TestRecord]) -> list[TestRecord]:
    """The ERROR records of tests that read a golden corpus file other than the one its manifest records
    (pjrt_cts.golden.archive.MemberAltered, named in the record by pjrt_cts.testing.corpus.read_case)."""
    errors = [record for record in records if record.outcome is Outcome.ERROR]
    if not errors:
        return []
    from pjrt_cts.golden.archive import MemberAltered  # numpy comes with the golden package: only when needed

    return [record for record in errors if MemberAltered.__name__ in record.message]


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """Workers inherit these (xdist starts them, and restarts crashed ones, from this process's environment; the
    dynamic loader reads library paths at process start); the controller itself never reads them."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """The end of a run reads, judges and writes tens of thousands of records that live until it returns: the cyclic
    collector's passes over them find nothing to free, at a run's end where nothing else runs."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops the run like Ctrl-C (workers torn down, results written), not mid-line."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run(options: RunOptions, stream: TextIO | None = None) -> int:
    return Run(options, stream).execute()

