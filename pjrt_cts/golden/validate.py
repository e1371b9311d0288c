"""Run every golden case through pjrt_cts.runtime on a plugin and list the failures.

Cases run in a worker subprocess: a plugin that crashes on one case costs that case (CRASH) and
a worker restart, not the run.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import dataclasses
import fnmatch
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from pjrt_cts.golden.compare import compare
from pjrt_cts.golden.corpus import GoldenCase, load_manifest

PROGRAM_FORMS = ("text", "current", "intermediate", "minimum")


@dataclasses.dataclass
class CaseResult:
    id: str
    outcome: str  # PASS | FAIL | ERROR (PjrtError etc.) | NOT_SUPPORTED | CRASH
    message: str = ""
    details: dict[str, Any] = dataclasses.field(default_factory=dict)
    compile_seconds: float = 0.0
    execute_seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _program(case: GoldenCase, form: str) -> str | bytes:
    return case.program_text() if form == "text" else case.portable_bytecode(form)


def run_case(client: Any, case: GoldenCase, form: str = "text") -> CaseResult:
    """Compile and execute one case on `client`; compare every output with the expected one."""
    from pjrt_cts.runtime import PjrtError, MissingFunction
    from pjrt_cts.runtime.readback import UnwrittenHostBytes

    devices = client.addressable_devices
    if len(devices) < case.num_devices:
        return CaseResult(case.id, "NOT_SUPPORTED", f"needs {case.num_devices} devices, client has {len(devices)}")
    if form != "text" and f"mlirbc.{form}" not in case.files:
        return CaseResult(case.id, "NOT_SUPPORTED", f"no {form} bytecode: {case.bytecode_skipped.get(form, '')}")
    started = time.perf_counter()
    try:
        executable = client.compile(_program(case, form), "mlir", num_replicas=case.num_replicas,
                                    num_partitions=case.num_partitions,
                                    use_spmd_partitioning=case.use_spmd_partitioning)
    except (PjrtError, MissingFunction) as exc:
        return CaseResult(case.id, "ERROR", f"compile: {exc}", compile_seconds=time.perf_counter() - started)
    compiled = time.perf_counter()
    input_rows, expected_rows = case.input_rows(), case.expected_rows()
    input_layouts = (case.layouts or {}).get("inputs") or [None] * len(case.input_specs)
    output_layouts = (case.layouts or {}).get("outputs") or [None] * len(case.output_specs)
    try:
        argument_rows = [[_to_device(client, array, devices[d], layout) for array, layout in zip(row, input_layouts)]
                         for d, row in enumerate(input_rows)]
        if case.is_multi_device:
            output_rows, _ = executable.execute_sharded(argument_rows)
        else:
            output_rows = [executable.execute(argument_rows[0])]
        # Outputs with a program-fixed layout are read back row-major explicitly.
        actual_rows = [[buffer.to_numpy(list(range(len(buffer.dims)))[::-1]) if layout else buffer.to_numpy()
                        for buffer, layout in zip(row, output_layouts)] for row in output_rows]
    except (PjrtError, MissingFunction) as exc:
        return CaseResult(case.id, "ERROR", f"execute: {exc}", compile_seconds=compiled - started,
                          execute_seconds=time.perf_counter() - compiled)
    except UnwrittenHostBytes as exc:  # the plugin's readback is wrong: a failure, not a harness error
        return CaseResult(case.id, "FAIL", f"readback: {exc}", compile_seconds=compiled - started,
                          execute_seconds=time.perf_counter() - compiled)
    finally:
        executable.delete() if hasattr(executable, "delete") else None
    executed = time.perf_counter()
    compile_seconds, execute_seconds = compiled - started, executed - compiled
    for d, (actual_row, expected_row) in enumerate(zip(actual_rows, expected_rows)):
        if len(actual_row) != len(expected_row):
            return CaseResult(case.id, "FAIL", f"device {d}: {len(actual_row)} outputs, expected {len(expected_row)}",
                              compile_seconds=compile_seconds, execute_seconds=execute_seconds)
        for i, (actual, expected) in enumerate(zip(actual_row, expected_row)):
            mismatch = compare(actual, expected, case.tolerance)
            if mismatch is not None:
                where = f"device {d} output {i}" if case.is_multi_device else f"output {i}"
                details = dict(mismatch.details(), case_id=case.id, op=",".join(case.ops))
                return CaseResult(case.id, "FAIL", f"{where}: {mismatch}", details,
                                  compile_seconds=compile_seconds, execute_seconds=execute_seconds)
    return CaseResult(case.id, "PASS", compile_seconds=compile_seconds, execute_seconds=execute_seconds)


def _to_device(client: Any, array: Any, device: Any, minor_to_major: list[int] | None) -> Any:
    """A device buffer of `array`, in the layout the program's parameter asks for (if it fixes one)."""
    if minor_to_major is None:
        return client.buffer_from_numpy(array, device)
    from pjrt_cts.runtime import MemoryLayout

    return client.buffer_from_numpy(array, device, device_layout=MemoryLayout.tiled(minor_to_major))


def _select(cases: Sequence[GoldenCase], only: Sequence[str]) -> list[GoldenCase]:
    if not only:
        return list(cases)
    return [c for c in cases if any(fnmatch.fnmatchcase(c.id, pattern) for pattern in only)]


def _worker(plugin_path: str, corpus: str | None, form: str, create_options: dict, case_ids: list[str]) -> None:
    """Subprocess side: one JSON line when a case starts and one with its result."""
    from pjrt_cts.runtime import Plugin

    manifest = load_manifest(corpus)
    by_id = manifest.by_id()
    plugin = Plugin.load(plugin_path)
    client = plugin.create_client(create_options)
    for case_id in case_ids:
        print(json.dumps({"start": case_id}), flush=True)
        try:
            result = run_case(client, by_id[case_id], form)
        except Exception as exc:  # a bug in the harness or runtime: report it, keep going
            result = CaseResult(case_id, "ERROR", f"{type(exc).__name__}: {exc}")
        print(json.dumps({"result": result.to_json()}), flush=True)


def validate(plugin_path: str | Path, corpus: str | Path | None = None, *, only: Sequence[str] = (),
             form: str = "text", create_options: dict | None = None) -> Iterator[CaseResult]:
    """Yield one result per selected case, running them in (restarted as needed) worker processes."""
    manifest = load_manifest(corpus)
    remaining = [case.id for case in _select(manifest.cases, only)]
    options = create_options if create_options is not None else {"cpu_device_count": 4}
    while remaining:
        command = [sys.executable, "-c",
                   "import json, sys; from pjrt_cts.golden.validate import _worker; "
                   "_worker(*json.loads(sys.stdin.readline()))"]
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                   stderr=subprocess.DEVNULL, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps([str(plugin_path), str(corpus) if corpus else None, form, options, remaining]) + "\n")
        process.stdin.close()
        current: str | None = None
        done: set[str] = set()
        for line in process.stdout:
            message = json.loads(line)
            if "start" in message:
                current = message["start"]
            else:
                result = CaseResult(**message["result"])
                done.add(result.id)
                current = None
                yield result
        code = process.wait()
        remaining = [case_id for case_id in remaining if case_id not in done]
        if current is not None:
            yield CaseResult(current, "CRASH", f"plugin process died (exit status {code}) while running the case")
            remaining.remove(current)
        elif remaining:
            # The worker died before starting a case (plugin load/client creation failed).
            for case_id in remaining:
                yield CaseResult(case_id, "ERROR", f"worker exited with status {code} before running the case")
            return
