"""`pjrt-cts golden regenerate|list|cat|extract|check|validate`: the golden corpus."""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("golden", help="build, list, check and validate the golden corpus")
    commands = parser.add_subparsers(dest="golden_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])

    regenerate = commands.add_parser("regenerate", help="rebuild the corpus from JAX on CPU (needs the golden extra)")
    regenerate.add_argument("--out", type=Path, default=None, help="output directory (default: the shipped golden/)")
    regenerate.add_argument("--only", action="append", default=[], metavar="GLOB", help="only case ids matching GLOB")
    regenerate.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    regenerate.set_defaults(func=_regenerate)

    listing = commands.add_parser("list", help="table of cases by op and element type")
    listing.add_argument("--corpus", type=Path, default=None)
    listing.add_argument("--by", choices=("op", "dtype", "case", "source", "spec-vs-xla"), default="op",
                         help="source: per op, where the expected values come from (spec reference, XLA, both); "
                              "spec-vs-xla: the cases where XLA differs from the spec, with the difference")
    listing.add_argument("--op", default=None, help="only cases using this op (e.g. add or stablehlo.add)")
    listing.add_argument("--dtype", default=None, help="only cases with this element type (e.g. bf16)")
    listing.add_argument("--family", default=None)
    listing.add_argument("-k", dest="pattern", default=None, metavar="GLOB", help="only case ids matching GLOB")
    listing.set_defaults(func=_list)

    regenerate.add_argument("--repack", action="store_true",
                            help="only pack the existing corpus's cases into programs again (no case is rebuilt)")

    cat = commands.add_parser("cat", help="print a corpus file (a case's or a pack's program text, bytecode, data)")
    cat.add_argument("path", help="logical path <family>/<member>, as the manifest names it "
                                  "(e.g. gather/take_rows.f32.mlir), or a case or program id (its program text)")
    cat.add_argument("--corpus", type=Path, default=None)
    cat.set_defaults(func=_cat)

    extract = commands.add_parser("extract", help="write a case's program and arrays as plain files (.mlir, .npy) "
                                                  "for other tools")
    extract.add_argument("case", metavar="CASE", help="a golden case id (`pjrt-cts golden list --by case`)")
    extract.add_argument("directory", metavar="DIR", type=Path, help="where to write them (created)")
    extract.add_argument("--corpus", type=Path, default=None)
    extract.set_defaults(func=_extract)

    check = commands.add_parser("check", help="verify the corpus files and hashes against the manifest")
    check.add_argument("--corpus", type=Path, default=None)
    check.add_argument("--no-data", action="store_true", help="hashes only; do not open the .npz files")
    check.set_defaults(func=_check)

    validate = commands.add_parser("validate", help="run every case through pjrt_cts.runtime on a plugin")
    from pjrt_cts.cli.plugin_arg import add_plugin_arguments

    add_plugin_arguments(validate)
    validate.add_argument("--corpus", type=Path, default=None)
    validate.add_argument("--form", choices=("text", "current", "intermediate", "minimum"), default="text",
                          help="program form: StableHLO text or portable bytecode at that version")
    validate.add_argument("--only", action="append", default=[], metavar="GLOB")
    validate.add_argument("--create-options", default=None,
                          help="client create options as a JSON object (default: the profile's; cpu_device_count 4)")
    validate.add_argument("--json", type=Path, default=None, help="write every result to this file")
    validate.set_defaults(func=_validate)


def _regenerate(args: argparse.Namespace) -> int:
    from pjrt_cts.cli.main import UsageError
    from pjrt_cts.resources import golden_dir

    if importlib.util.find_spec("jax") is None:
        raise UsageError("regenerate needs JAX on CPU: pip install 'pjrt-cts[golden]'")
    out = args.out if args.out is not None else golden_dir()
    # A fresh interpreter: the generator must configure JAX (4 host devices, x64) before it starts.
    command = [sys.executable, "-m", "pjrt_cts.golden.generator", "--out", str(out), "--jobs", str(args.jobs)]
    for pattern in args.only:
        command += ["--only", pattern]
    if args.repack:
        command.append("--repack")
    return subprocess.call(command)


def _cat(args: argparse.Namespace) -> int:
    from pjrt_cts.cli.main import UsageError
    from pjrt_cts.golden.archive import read_member

    manifest = _manifest(args.corpus)
    units = {case.id: case for case in manifest.cases}
    units.update({program.id: program for program in manifest.programs if program.grouped})
    try:
        data = units[args.path].read_bytes("mlir") if args.path in units else read_member(manifest.root, args.path)
    except (KeyError, ValueError) as error:
        raise UsageError(f"no corpus file or case {args.path!r} in {manifest.root}: {error}") from None
    sys.stdout.buffer.write(data)
    return 0


def _extract(args: argparse.Namespace) -> int:
    from pjrt_cts.cli.main import UsageError
    from pjrt_cts.golden.extract import CASE_FILE, extract_case

    manifest = _manifest(args.corpus)
    try:
        case = manifest.case(args.case)
    except KeyError as error:
        raise UsageError(f"{error.args[0]} in {manifest.root} (`pjrt-cts golden list --by case` lists them)") from None
    if args.directory.exists() and not args.directory.is_dir():
        raise UsageError(f"{args.directory}: exists and is not a directory")
    described = extract_case(case, args.directory)
    files = 1 + len(described["portable_artifacts"]) + len(described["inputs"]) + len(described["expected"])
    print(f"{case.id}: {files} files in {args.directory} ({CASE_FILE} and README.md say what each is)")
    return 0


def _list(args: argparse.Namespace) -> int:
    from tabulate import tabulate

    from pjrt_cts.golden.listing import filter_cases, table_by_dtype, table_by_op, table_by_source

    manifest = _manifest(args.corpus)
    cases = filter_cases(manifest, op=args.op, dtype=args.dtype, family=args.family, pattern=args.pattern)
    if args.by == "op":
        rows = table_by_op(cases)
        print(tabulate(rows, headers=["op", "cases", "element types"]))
    elif args.by == "dtype":
        print(tabulate(table_by_dtype(cases), headers=["element type", "cases", "ops"]))
    elif args.by == "source":
        print(tabulate(table_by_source(cases), headers=["op", "spec+xla", "spec only (XLA differs)", "xla (numpy-checked)",
                                                        "expected values from"]))
    elif args.by == "spec-vs-xla":
        deviations = [(c.id, (c.spec_vs_xla or {}).get("kind"), (c.spec_vs_xla or {}).get("explanation"))
                      for c in cases if c.spec_vs_xla]
        print(tabulate(deviations, headers=["case", "kind", "how XLA differs from the spec"], maxcolwidths=[None, None, 90]))
    else:
        case_rows = [(c.id, " ".join(o.removeprefix("stablehlo.") for o in c.ops), " ".join(c.dtypes), str(c.tolerance),
                 " ".join(c.features)) for c in cases]
        print(tabulate(case_rows, headers=["case", "ops", "element types", "tolerance", "features"]))
    stablehlo_ops = {op for c in cases for op in c.ops if op.startswith("stablehlo.")}
    print(f"\n{len(cases)} cases, {len(stablehlo_ops)} distinct StableHLO ops, "
          f"{len({d for c in cases for d in c.dtypes})} element types")
    return 0


def _manifest(corpus: Path | None):
    from pjrt_cts.cli.main import UsageError
    from pjrt_cts.golden import CorpusError, load_manifest

    try:
        return load_manifest(corpus)
    except CorpusError as exc:
        raise UsageError(str(exc)) from None


def _check(args: argparse.Namespace) -> int:
    from pjrt_cts.golden.check import check_corpus

    manifest, problems = check_corpus(args.corpus, verify_data=not args.no_data)
    for problem in problems:
        print(problem)
    if manifest is not None and not problems:
        print(f"corpus OK: {len(manifest.cases)} cases in {manifest.root}")
    return 1 if problems else 0


def _validate(args: argparse.Namespace) -> int:
    from pjrt_cts.cli.main import UsageError
    from pjrt_cts.cli.plugin_arg import resolve_plugin
    from pjrt_cts.golden.validate import validate

    resolved = resolve_plugin(args.path, args.plugin)  # PATH, --plugin PROFILE, or the bundled plugin + `cpu`
    plugin = resolved.path
    os.environ.update(resolved.worker_environment())  # the validate workers inherit the profile's runtime
    options = dict(resolved.create_options) or {"cpu_device_count": 4}
    if args.create_options is not None:
        try:
            options = json.loads(args.create_options)
        except json.JSONDecodeError as exc:
            raise UsageError(f"--create-options is not JSON: {exc}") from None
        if not isinstance(options, dict):
            raise UsageError("--create-options must be a JSON object")
    _manifest(args.corpus)
    started = time.monotonic()
    counts: dict[str, int] = {}
    results = []
    compile_seconds = execute_seconds = 0.0
    for result in validate(plugin, args.corpus, only=args.only, form=args.form, create_options=options):
        counts[result.outcome] = counts.get(result.outcome, 0) + 1
        compile_seconds += result.compile_seconds
        execute_seconds += result.execute_seconds
        results.append(result.to_json())
        if result.outcome != "PASS":
            print(f"{result.outcome} {result.id}: {result.message}")
    wall = time.monotonic() - started
    summary = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
    print(f"\n{plugin}: {summary} ({args.form}; {wall:.1f}s wall, compile {compile_seconds:.1f}s, "
          f"execute {execute_seconds:.1f}s)")
    if args.json:
        args.json.write_text(json.dumps({"plugin": str(plugin), "form": args.form, "wall_seconds": wall,
                                         "counts": counts, "results": results}, indent=1))
    return 0 if set(counts) <= {"PASS", "NOT_SUPPORTED"} else 1
