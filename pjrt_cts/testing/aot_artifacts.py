"""Ahead-of-time artifacts that run: compile golden programs where there is no device, run them where there is.

    python -m pjrt_cts.testing.aot_artifacts REQUEST_JSON      # what `pjrt-cts aot ...` runs in a child process

The request (written by pjrt_cts.cli.aot) names the plugin, the libraries to preload, and one command:

- `export-target`: PJRT_TopologyDescription_Create with no options on a host with the device, and the topology's
  `target_config` attribute (XLA's GPU plugins: the text-format GpuTargetConfigProto describing the device) written
  to a file, with a header saying how it was made: the target file a profile's `[[topology]]` reads
  (`target_config_file`), so that a machine without the device can create the same topology (docs/levels.md, "The
  AOT tier");
- `export`: a sample of single-device golden programs compiled by PJRT_Compile for a topology (no client), each
  serialized (PJRT_Executable_Serialize) to `<DIR>/<program>.pjrt`, with `<DIR>/manifest.json` naming each file's
  program, its cases, the artifact compiled and the bytes' SHA-256 (and the programs the plugin rejected);
- `check`: on a host with the device, every file of such a directory loaded by PJRT_Executable_DeserializeAndLoad and
  executed on the golden inputs, each case's outputs compared with its golden reference (the execute layer's
  tolerances): one line per program, PASS or FAIL with the first mismatch or the PJRT error and the catalogue's
  defect that explains it (its rules name a program's outcome `aot.check[<program id>]`); exit 1 when any fails.

Everything runs in the child (a plugin that aborts takes the child, not the CLI) with the profile's environment.
"""
from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

MANIFEST = "manifest.json"
FORMAT = "pjrt-cts aot artifacts"
FORMAT_VERSION = 1
TARGET_ATTRIBUTE = "target_config"  # the topology attribute XLA's GPU plugins describe their device with
# The default sample: the cheapest program of each family (one_program_per_family) and the first f32-bearing pack
# of these families, as long as the files fit the budget (the directory travels to the GPU host with the tree).
SAMPLE_PACK_FAMILIES = ("elementwise", "compare", "movement", "reduce", "dot", "conv", "gather", "scatter", "control",
                        "sort")
DEFAULT_BUDGET_BYTES = 40 * 1024 * 1024
CHECK_ID = "aot.check[{}]"  # the id the defect catalogue's rules name a program's `check` outcome by


@dataclass(frozen=True)
class Outcome:
    program: str
    status: str  # PASS, FAIL, ERROR
    detail: str = ""
    defect: str | None = None  # a FAIL's: the catalogue defect that explains it, or "unclassified"

    def line(self) -> str:
        return (f"{self.status:<5} {self.program}" + (f": {self.detail}" if self.detail else "")
                + (f" [defect: {self.defect}]" if self.defect else ""))

    def named(self) -> Outcome:
        """A FAIL with the defect the catalogue attributes it to, as a run's record of it would be."""
        if self.status != "FAIL":
            return self
        from pjrt_cts.judgment.defects.diagnosis import attribute
        from pjrt_cts.judgment.outcomes import Outcome as Result
        from pjrt_cts.schema import TestRecord

        record = TestRecord(id=CHECK_ID.format(self.program), outcome=Result.FAIL, message=self.detail)
        return replace(self, defect=attribute(record))


def main(argv: list[str]) -> int:
    request = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    from pjrt_cts.runtime import Plugin

    plugin = Plugin.load(request["plugin"], preload=request.get("preload", ()))
    command = request["command"]
    if command == "export-target":
        return export_target(plugin, Path(request["output"]), request.get("distribution") or "")
    if command == "export":
        return export(plugin, request["topology"], Path(request["directory"]), request.get("programs") or [],
                      int(request.get("budget_bytes") or DEFAULT_BUDGET_BYTES))
    if command == "check":
        return check(plugin, dict(request.get("create_options") or {}), Path(request["directory"]))
    print(f"aot: unknown command {command!r}", file=sys.stderr)
    return 2


# ---- export-target ---------------------------------------------------------------------------------------------


def export_target(plugin: Any, output: Path, distribution: str) -> int:
    """The device's target description, as the plugin reports it for the topology it creates with no options."""
    from pjrt_cts.runtime import PjrtError, Topology

    try:
        topology = Topology.create(plugin, "", {})
    except PjrtError as error:
        print(f"aot export-target: PJRT_TopologyDescription_Create with no options failed: {error.code}: "
              f"{error.message} (run it on a host with the device)", file=sys.stderr)
        return 1
    with topology:
        attributes = dict(topology.attribute_items())
        kinds = sorted({description.kind for description in topology.device_descriptions})
        platform = (topology.platform_name, topology.platform_version)
    target = attributes.get(TARGET_ATTRIBUTE)
    if not isinstance(target, str) or not target.strip():
        print(f"aot export-target: the topology has no string attribute {TARGET_ATTRIBUTE!r} (its attributes: "
              f"{sorted(attributes)})", file=sys.stderr)
        return 1
    header = [
        f"# Made by `pjrt-cts aot export-target` on {datetime.now(timezone.utc).date().isoformat()} from {distribution or plugin.path}",
        f"# (PJRT API {plugin.version_string}, platform {platform[0]} {platform[1]}) on a host with {', '.join(kinds)}:",
        f"# the topology attribute {TARGET_ATTRIBUTE!r} of PJRT_TopologyDescription_Create with no options, as the plugin",
        "# reports it (text-format GpuTargetConfigProto). A profile's [[topology]] target_config_file reads it back as the",
        "# create option target_config, which describes this device to a host without one. Do not edit: export again.",
    ]
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text("\n".join(header) + "\n" + target.rstrip("\n") + "\n", encoding="utf-8")
    print(f"aot export-target: wrote {output} ({len(target)} characters; devices {', '.join(kinds)})")
    return 0


# ---- export ------------------------------------------------------------------------------------------------------


def sample_programs(patterns: list[str]) -> list[Any]:
    """The programs to export: those whose id matches a pattern (fnmatch), else the default sample."""
    import fnmatch

    from pjrt_cts.testing.corpus import one_program_per_family, single_device_programs

    programs = single_device_programs()
    if patterns:
        return [program for program in programs if any(fnmatch.fnmatchcase(program.id, p) for p in patterns)]
    packs = []
    for family in SAMPLE_PACK_FAMILIES:
        first = next((program for program in programs if program.grouped and program.family == family
                      and "f32" in program.dtypes), None)
        if first is not None:
            packs.append(first)
    return one_program_per_family() + packs


def export(plugin: Any, topology_spec: dict[str, Any], directory: Path, patterns: list[str], budget: int) -> int:
    from pjrt_cts.runtime import PjrtError, Topology
    from pjrt_cts.schema import TopologySpec
    from pjrt_cts.testing.corpus import compiled_for_topology

    spec = TopologySpec.from_json(topology_spec)
    try:
        topology = Topology.create(plugin, spec.name, spec.options)
    except PjrtError as error:
        print(f"aot export: PJRT_TopologyDescription_Create({spec.name!r}) of topology {spec.label!r} failed: "
              f"{error.code}: {error.message}", file=sys.stderr)
        return 1
    directory.mkdir(parents=True, exist_ok=True)
    entries: list[dict[str, Any]] = []
    rejected: list[dict[str, str]] = []
    used = 0
    with topology:
        identity = {"label": spec.label, "name": spec.name, "platform_name": topology.platform_name,
                    "platform_version": topology.platform_version,
                    "devices": [description.kind for description in topology.device_descriptions],
                    "options": {key: _option_shown(value) for key, value in spec.options.items()}}
        for program in sample_programs(patterns):
            try:
                executable, version = compiled_for_topology(topology, program)
            except Exception as error:  # noqa: BLE001 - any failure (PJRT error, NOT_SUPPORTED, unreadable file) is listed
                rejected.append({"id": program.id, "error": f"{type(error).__name__}: {error}"})
                print(f"rejected {program.id}: {error}")
                continue
            with executable:
                entry = write_executable(directory, program, version, executable, budget - used)
            if entry is None:
                continue
            used += entry["bytes"]
            entries.append(entry)
            print(f"exported {program.id} ({version} artifact, {entry['bytes']} bytes)")
    write_manifest(directory, plugin, identity, entries, rejected)
    print(f"aot export: {len(entries)} programs ({used} bytes) in {directory}; {len(rejected)} rejected")
    return 0 if entries else 1


def write_executable(directory: Path, program: Any, version: str, executable: Any, room: int) -> dict[str, Any] | None:
    """`executable` (of golden `program`, compiled from its `version` artifact) serialized to DIR/<program>.pjrt: its
    manifest entry, or None (said) when its bytes pass the `room` left in the budget."""
    data = executable.serialize()
    if len(data) > room:
        print(f"left out {program.id}: {len(data)} bytes would pass the byte budget ({room} left)")
        return None
    name = f"{program.id}.pjrt"
    (directory / name).write_bytes(data)
    return {"id": program.id, "cases": [case.id for case in program.cases], "source": version, "file": name,
            "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), "num_outputs": executable.num_outputs}


def write_manifest(directory: Path, plugin: Any, topology: dict[str, Any], entries: list[dict[str, Any]],
                   rejected: list[dict[str, str]]) -> None:
    manifest = {"format": FORMAT, "format_version": FORMAT_VERSION, "plugin": str(plugin.path),
                "api_version": plugin.version_string, "topology": topology, "programs": entries, "rejected": rejected}
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _option_shown(value: Any) -> Any:
    """A long option value (a target description) recorded by its digest, not its text."""
    text = str(value)
    return value if len(text) <= 80 else f"sha256:{hashlib.sha256(text.encode()).hexdigest()} ({len(text)} characters)"


# ---- check ---------------------------------------------------------------------------------------------------------


def check(plugin: Any, create_options: dict[str, Any], directory: Path) -> int:
    manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    if manifest.get("format") != FORMAT:
        print(f"aot check: {directory / MANIFEST} is no {FORMAT} manifest", file=sys.stderr)
        return 2
    outcomes: list[Outcome] = []
    with plugin.create_client(create_options) as client:
        for outcome in map(Outcome.named, _check_each(client, directory, manifest["programs"])):
            print(outcome.line(), flush=True)
            outcomes.append(outcome)
    failed = [outcome for outcome in outcomes if outcome.status != "PASS"]
    print(f"aot check: {len(outcomes) - len(failed)} of {len(outcomes)} programs compiled for topology "
          f"{manifest['topology']['label']!r} without a device ran and matched the golden references"
          + (f"; {len(failed)} did not" if failed else ""))
    return 1 if failed else 0


def _check_each(client: Any, directory: Path, entries: list[dict[str, Any]]) -> Iterator[Outcome]:
    from pjrt_cts.golden.corpus import GoldenProgram
    from pjrt_cts.runtime import PjrtError
    from pjrt_cts.testing.corpus import golden_manifest, single_device_cases

    # A manifest entry names a program of the corpus (a pack, a case's own) or a case compiled alone (the sample).
    programs = {case.id: GoldenProgram.of_case(case) for case in single_device_cases()}
    programs.update({program.id: program for program in golden_manifest().programs})
    for entry in entries:
        program = programs.get(entry["id"])
        data = (directory / entry["file"]).read_bytes()
        if program is None or hashlib.sha256(data).hexdigest() != entry["sha256"]:
            yield Outcome(entry["id"], "ERROR", "not in this corpus" if program is None else "file altered (SHA-256)")
            continue
        try:
            with client.deserialize_executable(data) as loaded:
                yield Outcome(program.id, *_compare(client, loaded, program))
        except PjrtError as error:
            yield Outcome(program.id, "FAIL", f"{error.function}: {error.code}: {error.message.splitlines()[0]}")


def _compare(client: Any, loaded: Any, program: Any) -> tuple[str, str]:
    from pjrt_cts.testing.corpus import read_case, run_golden
    from pjrt_cts.testing.programs import run

    if program.grouped:
        outputs = run(loaded, client, read_case(program, "inputs", program.inputs))
    else:
        outputs = run_golden(loaded, client, program.cases[0])
    for case in program.cases:
        message = _case_mismatch(case, [outputs[index] for index in program.output_range(case)])
        if message is not None:
            return "FAIL", message
    return "PASS", f"{len(program.cases)} case(s)"


def _case_mismatch(case: Any, actual: list[Any]) -> str | None:
    from pjrt_cts.testing.corpus import case_expected
    from pjrt_cts.testing.programs import mismatch_message

    return mismatch_message(f"golden case {case.id}", actual, case_expected(case), lambda _dtype: case.tolerance)[0]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
