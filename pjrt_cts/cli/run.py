"""`pjrt-cts run [PATH]`: run the conformance suites against a plugin (see docs/runner.md)."""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from pjrt_cts.runner.layers import layer_dirs
from pjrt_cts.cli.main import UsageError
from pjrt_cts.cli.layer_arg import normalize_id_pattern, split_layers
from pjrt_cts.cli.plugin_arg import ResolvedPlugin, add_plugin_arguments, resolve_plugin
from pjrt_cts.judgment.outcomes import LAYERS
from pjrt_cts.runner.files.shard import ShardSpec
from pjrt_cts.schema import TopologySpec, UserSettings

if TYPE_CHECKING:
    from pjrt_cts.runner.controller.session import RunOptions


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run", help="run the conformance suites against a PJRT plugin",
        description="Run the conformance suites against a PJRT plugin. The plugin is loaded only in worker "
                    "processes; a test that crashes or hangs is recorded CRASH/TIMEOUT and the run goes on.")
    add_plugin_arguments(parser)
    parser.add_argument("--layers", metavar="LAYER,...",
                        help=f"comma-separated layers, `-` or `_` alike (default: all): {','.join(LAYERS)}")
    parser.add_argument("-k", dest="keyword", metavar="EXPR", help="pytest -k expression; deselected tests are SKIP")
    parser.add_argument("--id", dest="ids", action="append", default=[], metavar="PATTERN",
                        help="run only tests whose id matches this fnmatch pattern (repeatable)")
    parser.add_argument("-n", "--workers", type=_positive_int, default=max(1, min(4, os.cpu_count() or 1)),
                        metavar="WORKERS", help="parallel worker processes (default: min(4, CPUs))")
    parser.add_argument("--timeout", type=_positive_float, default=120.0, metavar="S",
                        help="per-test timeout in seconds (default: 120)")
    parser.add_argument("--expectations", metavar="FILE", help="expectations TOML (default: the profile's)")
    parser.add_argument("--out", default="out", metavar="DIR", help="output directory (default: ./out)")
    parser.add_argument("--create-option", dest="create_options", action="append", default=[], metavar="K=V",
                        help="client create option (value parsed as JSON when possible; repeatable)")
    parser.add_argument("--aot", action="store_true",
                        help="device-less run: no client is created (as on a host without the plugin's device); the "
                             "aot layer compiles for the topologies, the verdict can reach level AOT")
    parser.add_argument("--topology", dest="topologies", action="append", default=[], metavar="NAME",
                        help="a topology the aot layer compiles for: one of the profile's [[topology]] labels, else "
                             "the name PJRT_TopologyDescription_Create gets (repeatable; default: the profile's)")
    parser.add_argument("--topology-option", dest="topology_options", action="append", default=[], metavar="K=V",
                        help="a PJRT_TopologyDescription_Create option for every topology (value parsed as JSON when "
                             "possible; repeatable)")
    parser.add_argument("--resume", action="store_true",
                        help="finish an interrupted run in --out without rerunning recorded tests")
    parser.add_argument("--shard", metavar="K/N",
                        help="run only shard K of N (a deterministic split; `pjrt-cts merge` combines the shards)")
    parser.add_argument("--shard-durations", metavar="RESULTS_JSON",
                        help="balance the shards by the test durations recorded in an earlier results.json")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: a stratified sample (<= 10%% of the tests) of the mandatory contract; "
                             "never a conformance verdict (INCOMPLETE at best)")
    parser.add_argument("--bundle", metavar="FILE",
                        help="also pack a submission bundle (results, summary, hashes, machine) that "
                             "`pjrt-cts verify` checks (docs/bundles.md)")
    parser.add_argument("--no-progress", action="store_true", help="no progress display")
    parser.add_argument("--suites-dir", metavar="DIR", help=argparse.SUPPRESS)
    # For the selftest's mutant runs, judged by their records alone: a run that skips confirming its findings is
    # never CONFORMANT (pjrt_cts.judgment.verdict), so the option cannot earn a verdict.
    parser.add_argument("--no-confirmation", action="store_true", help=argparse.SUPPRESS)
    # For the selftest's mutant runs, read through results.json: rendering report.html is a run's slowest write
    # (docs/bench.md, figures behind the code).
    parser.add_argument("--no-report", action="store_true", help=argparse.SUPPRESS)
    parser.set_defaults(func=handle)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.runner.controller.session import run

    plugin = resolve_plugin(args.path, args.plugin)  # PATH, --plugin PROFILE, or the bundled plugin + `cpu`
    suites_dir = _suites_dir(args.suites_dir)
    shard = _shard(args.shard, args.shard_durations)
    options = run_options(
        plugin, args.create_options, args.expectations, topology_names=args.topologies,
        topology_options=args.topology_options,
        suites_dir=suites_dir,
        layers=_layers(args.layers, suites_dir),
        out_dir=Path(args.out).expanduser().resolve(),
        keyword=_keyword(args.keyword),
        ids=[normalize_id_pattern(pattern) for pattern in args.ids],
        workers=args.workers,
        timeout=args.timeout,
        resume=args.resume,
        command=["pjrt-cts", "run", *sys.argv[2:]] if _invoked_as_run() else ["pjrt-cts", *sys.argv[1:]],
        suites_dir_given=args.suites_dir is not None,
        show_progress=not args.no_progress,
        shard=shard,
        shard_durations=_shard_durations(args.shard_durations),
        quick=args.quick,
        confirm=not args.no_confirmation,
        report=not args.no_report,
        bundle=Path(args.bundle).expanduser().resolve() if args.bundle else None,
        device_less=args.aot,
    )
    return run(options)


def run_options(plugin: ResolvedPlugin, create_option_items: list[str], expectations_file: str | None, *,
                topology_names: Sequence[str] = (), topology_options: Sequence[str] = (), **rest: Any) -> RunOptions:
    """The options of a run of `plugin`: what `run` and a bare pytest run of the suites (pjrt_cts.cli.pytest_plugin)
    share -- the plugin, its create options (`--create-option K=V` over the profile's), its runtime's environment,
    the user settings, the expectations (FILE, else the profile's) and the topologies -- and `rest`."""
    from pjrt_cts.runner.controller.session import RunOptions

    profile = plugin.profile
    create_options = dict(plugin.create_options)
    create_options.update(_parse_create_options(create_option_items))
    return RunOptions(
        plugin_path=plugin.path,
        profile=getattr(profile, "name", None),
        create_options=create_options,
        user_create_options=list(create_option_items),
        worker_env=plugin.worker_environment(),
        profile_environment=frozenset(getattr(profile, "environment", None) or ()),
        no_device_codes=frozenset(getattr(profile, "no_device_error_codes", ()) or ()),
        settings=_user_settings(),
        expectations=_expectations(expectations_file, profile),
        topologies=run_topologies(profile, list(topology_names), list(topology_options)),
        **rest,
    )


def run_topologies(profile: Any, names: list[str], option_items: list[str]) -> tuple[TopologySpec, ...]:
    """The topologies the aot layer compiles for: those `--topology` names (a profile's label, else the name
    PJRT_TopologyDescription_Create gets), else the profile's whose target files exist (a missing one is a warning);
    each with the `--topology-option`s over its own options. None: the plugin's default topology."""
    from pjrt_cts.profiles import TopologyUnavailable

    extra = _parse_create_options(option_items, "--topology-option")
    known = getattr(profile, "topologies", ())
    chosen = ([(name, profile.find_topology(name) if known else None) for name in names] if names
              else [(topology.label, topology) for topology in known])
    specs: list[TopologySpec] = []
    for name, topology in chosen:
        if topology is None:  # not the profile's: the name PJRT_TopologyDescription_Create gets
            specs.append(TopologySpec(label=name, name=name))
            continue
        try:
            specs.append(profile.topology_spec(topology))
        except TopologyUnavailable as exc:
            if names:
                raise UsageError(str(exc)) from None
            print(f"pjrt-cts run: warning: {exc}; the aot layer leaves it out", file=sys.stderr)
    if extra and not specs:
        specs = [TopologySpec(label="default")]
    return tuple(dataclasses.replace(spec, options={**spec.options, **extra},
                                     multi_device_options=None if spec.multi_device_options is None
                                     else {**spec.multi_device_options, **extra}) for spec in specs)


def _user_settings() -> UserSettings:
    try:
        return UserSettings.from_environment()
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _invoked_as_run() -> bool:
    return len(sys.argv) > 1 and sys.argv[1] == "run"


def _parse_create_options(items: list[str], option: str = "--create-option") -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{option} expects KEY=VALUE, got {item!r}")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        options[key.strip()] = value
    return options


def _suites_dir(given: str | None) -> Path:
    if given:
        path = Path(given).expanduser().resolve()
        if not path.is_dir():
            raise UsageError(f"suites directory not found: {given}")
        return path
    from pjrt_cts.resources import suites_dir

    return suites_dir().resolve()


def _layers(requested: str | None, suites_dir: Path) -> list[str]:
    present = layer_dirs(suites_dir)
    if not requested:
        if not present:
            raise UsageError(f"no test suites found in {suites_dir}")
        return present
    given = split_layers(requested)  # `framework-jax` and `framework_jax` name the same layer
    names = [name for _typed, name in given]
    unknown = [typed for typed, name in given if name not in LAYERS and name not in present]
    if unknown:
        raise UsageError(f"unknown layer(s) {', '.join(unknown)}; known layers: {', '.join(LAYERS)}")
    if not names:
        raise UsageError(f"--layers names no layer; known layers: {', '.join(LAYERS)}")
    chosen = [name for name in names if name in present]
    for name in names:
        if name not in present:
            print(f"pjrt-cts run: warning: no suites for layer {name!r} yet", file=sys.stderr)
    if not chosen:
        raise UsageError(f"none of the requested layers has suites in {suites_dir}")
    return list(dict.fromkeys(chosen))


def _shard(text: str | None, durations_file: str | None) -> ShardSpec | None:
    if text is None:
        if durations_file:
            raise UsageError("--shard-durations needs --shard K/N")
        return None
    try:
        return ShardSpec.parse(text)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def _shard_durations(path: str | None) -> dict[str, float]:
    """test id -> seconds from an earlier run's results.json (the shards' balance)."""
    if not path:
        return {}
    from pjrt_cts.judgment.results import ResultsError, load_results
    from pjrt_cts.runner.files.shard import durations_from_results

    try:
        durations = durations_from_results(load_results(Path(path).expanduser()))
    except ResultsError as exc:
        raise UsageError(f"--shard-durations: {exc}") from exc
    if not durations:
        raise UsageError(f"--shard-durations: {path} records no test durations")
    return durations


def _keyword(expression: str | None) -> str | None:
    if not expression:
        return None
    try:
        from _pytest.mark.expression import Expression
    except ImportError:  # pytest moved it: let pytest judge
        return expression
    try:
        Expression.compile(expression)
    except Exception as exc:
        raise UsageError(f"bad -k expression {expression!r}: {exc}") from exc
    return expression


def _expectations(path: str | None, profile: Any) -> Any:
    from pjrt_cts.runner.controller.expectations import Expectations, ExpectationsError

    if path:
        file = Path(path).expanduser().resolve()
        if not file.is_file():
            raise UsageError(f"expectations file not found: {path}")
    else:
        profile_file = getattr(profile, "expectations_path", None)
        if not profile_file or not Path(profile_file).is_file():
            return Expectations()
        file = Path(profile_file)
    try:
        return Expectations.load(file)
    except ExpectationsError as exc:
        raise UsageError(str(exc)) from exc
