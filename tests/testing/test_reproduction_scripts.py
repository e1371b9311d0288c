"""Every kind of reproduction the suite hands a vendor, emitted by the function the suite itself uses and run as the
vendor would, against the default plugin (the inventory: docs/runner.md, "Reproducing a finding").

Scripts (written next to the results):
- robustness case scripts (`$OUT/robustness/<name>.py`, suites/robustness/conftest.py RiskyCall._write_script):
  every case the suites name is written, compiled, linted and run;
- the write-beyond-struct_size script (`$OUT/versioning/write-beyond-<fn>-<size>.py`,
  testing.struct_size_cases.reproduction_script): run on the default plugin (nothing written: exit 0) and on the
  API 0.81 plugin of the test extra (writes past struct_size: exit 1).
Command lines:
- a fuzz finding's / a saved program's `python -m pjrt_cts.fuzz.child reproduce ...` (fuzz.reproduce_command), run
  through a shell as printed;
- each record's `repro` (`pjrt-cts run ... -n 1 --id ID`, runner.session.Run.repro), run for real on one test;
- the preflight finding's `repro` (`pjrt-cts info ...`, Run.preflight_repro), run for real;
- the defect table's smallest reproduction (defects.defect_table): the example's `repro`, else
  `pjrt-cts run PLUGIN --id ID`, parsed with PLUGIN standing for the plugin's path.
"""
from __future__ import annotations

import ast
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pjrt_cts.abi import structs
from pjrt_cts.fuzz import reproduce_command
from pjrt_cts.fuzz.isolate import RESULT_PREFIX, child_environment, parse_result
from pjrt_cts.runtime import default_plugin_path, legacy_plugin_path
from pjrt_cts.testing import struct_size_cases
from robustness_suites import named_cases, suite_module

# the suite modules are imported here without their conftest (which registers the `isolated` mark)
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")

REPO = Path(__file__).resolve().parents[2]
ADD = """module @repro_add {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""
MEMORY_STATS = structs.PJRT_Executable_GetCompiledMemoryStats_Args
OLDER_SIZE = MEMORY_STATS.struct_size_at(71)  # before peak_memory_in_bytes (0.72)
ONE_TEST = "abi.api_slots.test_no_null_slot_within_struct_size"  # a fast test of the mandatory list


@pytest.fixture(scope="module")
def plugin() -> str:
    return str(default_plugin_path())


def _run_script(script: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python <script> [ARGS]` as a vendor runs it, from another directory."""
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=120,
                          cwd=script.parent, env=child_environment({}), stdin=subprocess.DEVNULL)


def _lint(scripts: list[Path]) -> None:
    """Each script compiles and ruff (the project's rules) finds nothing in it."""
    for script in scripts:
        compile(script.read_text(encoding="utf-8"), str(script), "exec")
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.fail("ruff is not installed: it comes with the test extra (pip install -e '.[test]')")
    done = subprocess.run([ruff, "check", "--no-cache", "--config", str(REPO / "pyproject.toml"),
                           *map(str, scripts)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def _cli(argv: list[str], *extra: str) -> subprocess.CompletedProcess[str]:
    """A `pjrt-cts ...` command line run by the console script's own function (pyproject: pjrt_cts.cli.main:main)."""
    assert argv[0] == "pjrt-cts", argv
    return subprocess.run([sys.executable, "-m", "pjrt_cts.cli.main", *argv[1:], *extra], capture_output=True,
                          text=True, timeout=240, env=child_environment(), stdin=subprocess.DEVNULL)


def _parsed(argv: list[str]) -> Any:
    """The namespace `pjrt-cts` makes of `argv` (argparse exits 2 on an argument it does not take)."""
    from pjrt_cts.cli.main import build_parser

    assert argv[0] == "pjrt-cts", argv
    return build_parser().parse_args(argv[1:])


# ---- scripts ---------------------------------------------------------------------------------------------------

def test_every_robustness_script_runs_its_case(plugin: str, tmp_path: Path) -> None:
    """Every case the robustness suites name, written as the suite writes it: the script runs the case and the
    plugin answers (exit 0, the answer on the last line) or dies in the call (a signal: the finding it shows).
    Never a Python error: that would be the script's own fault."""
    risky = suite_module("conftest").RiskyCall(plugin, {}, tmp_path, None)
    scripts = [(risky._write_script(f"{index:03d}-{case}", case, kwargs, title=f"{case}: every case"), case)
               for index, (case, kwargs) in enumerate(named_cases())]
    _lint([script for script, _ in scripts])
    answers = {}
    for script, case in scripts:
        done = _run_script(script)
        assert done.returncode == 0 or done.returncode < 0, f"{script.name}: exit {done.returncode}\n{done.stderr[-2000:]}"
        if done.returncode == 0:
            answers[case] = parse_result(done.stdout)
            assert answers[case] is not None and done.stdout.strip().splitlines()[-1].startswith(RESULT_PREFIX)
    assert answers["control_compile"] == {"status": "ok"}
    assert answers["compile_program"] is not None and answers["compile_program"]["status"] == "error"


def test_a_robustness_script_takes_another_plugin_from_its_runner(plugin: str, tmp_path: Path) -> None:
    """The script runs the plugin written into it unless its command line names others (PLUGIN OPTIONS_JSON)."""
    risky = suite_module("conftest").RiskyCall("/nonexistent/plugin.so", {"cpu_device_count": 99}, tmp_path, None)
    script = risky._write_script("lookup-device-out-of-range", "lookup_device_out_of_range", {}, title="t")
    done = _run_script(script, plugin, json.dumps({"cpu_device_count": 1}))
    assert done.returncode == 0, done.stderr[-2000:]
    assert (parse_result(done.stdout) or {}).get("status") == "error"


def _write_beyond_script(plugin: str, directory: Path) -> Path:
    path = directory / f"write-beyond-Executable_GetCompiledMemoryStats-{OLDER_SIZE}.py"
    path.write_text(struct_size_cases.reproduction_script(
        function="Executable_GetCompiledMemoryStats", struct_name=MEMORY_STATS.__name__, size=OLDER_SIZE,
        field="executable", path=path, plugin_path=plugin, options={"cpu_device_count": 1}, program=ADD),
        encoding="utf-8")
    return path


def test_the_write_beyond_script_finds_nothing_on_a_plugin_that_keeps_to_struct_size(plugin: str,
                                                                                      tmp_path: Path) -> None:
    script = _write_beyond_script(plugin, tmp_path)
    _lint([script])
    done = _run_script(script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == struct_size_cases.NOTHING_BEYOND


def test_the_write_beyond_script_reproduces_the_legacy_plugins_write_beyond_struct_size(tmp_path: Path) -> None:
    try:
        legacy = str(legacy_plugin_path())
    except Exception as error:  # noqa: BLE001 - the test extra's xla-cpu-pjrt is not installed
        pytest.skip(f"no API 0.81 plugin: {error}")
    done = _run_script(_write_beyond_script(legacy, tmp_path))
    # plugins/cpu-legacy: peak_memory_in_bytes (added in 0.72) is written at offset OLDER_SIZE
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == struct_size_cases.WRITTEN_BEYOND


# ---- command lines ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("program, status", [(b"func.func @main(", "error"), (ADD.encode(), "compiled")])
def test_the_fuzz_reproduce_command_runs_as_printed(plugin: str, tmp_path: Path, program: bytes, status: str) -> None:
    """A fuzz finding's report (`reproduce`), the known-bytecode regressions (`details.repro_command`) and the
    newer-StableHLO clause's message print this command; pasted into a shell it compiles the saved input alone."""
    saved = tmp_path / "input 1.mlir"  # a space: the printed line must quote it
    saved.write_bytes(program)
    line = shlex.join(reproduce_command(plugin, {"cpu_device_count": 1}, saved))
    done = subprocess.run(line, shell=True, capture_output=True, text=True, timeout=120, env=child_environment())
    assert done.returncode == 0, done.stderr[-2000:]
    assert (parse_result(done.stdout) or {}).get("status") == status, done.stdout


def _run_options(plugin: str, out: Path, **given: Any) -> Any:
    """RunOptions as `pjrt-cts run PATH --plugin cpu --create-option cpu_device_count=4` makes them."""
    from pjrt_cts.resources import suites_dir
    from pjrt_cts.runner.controller.session import RunOptions

    return RunOptions(plugin_path=Path(plugin), suites_dir=suites_dir(), layers=["abi"], out_dir=out, profile="cpu",
                      create_options={"cpu_device_count": 4}, user_create_options=["cpu_device_count=4"], **given)


def test_a_records_repro_line_reruns_that_test_alone(plugin: str, tmp_path: Path) -> None:
    from pjrt_cts.runner.controller.session import Run

    repro = Run(_run_options(plugin, tmp_path / "first")).repro(f"suites/abi/test_api_slots.py::{ONE_TEST.rsplit('.', 1)[1]}")
    argv = shlex.split(repro)
    assert argv[argv.index("--id") + 1] == ONE_TEST
    done = _cli(argv, "--out", str(tmp_path / "rerun"), "--no-progress")
    results = json.loads((tmp_path / "rerun" / "results.json").read_text(encoding="utf-8"))
    ran = {test["id"]: test["outcome"] for test in results["tests"] if test["outcome"] != "SKIP"}
    assert ran == {ONE_TEST: "PASS"}, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.returncode == 3  # INCOMPLETE: a partial selection


def test_a_repro_line_for_a_module_names_its_layer(plugin: str, tmp_path: Path) -> None:
    """A record of a whole module (a collection error) reruns its layer: parsed, not run (a layer takes minutes)."""
    from pjrt_cts.runner.controller.session import Run

    args = _parsed(shlex.split(Run(_run_options(plugin, tmp_path, timeout=30.0)).repro("suites/abi/test_api_slots.py")))
    assert (args.layers, args.timeout, args.plugin, args.workers) == ("abi", 30.0, "cpu", 1)
    assert (REPO / "suites" / args.layers).is_dir() and Path(args.path) == Path(plugin)


def test_the_preflight_repro_line_describes_the_same_plugin(plugin: str, tmp_path: Path) -> None:
    """`pjrt-cts info` of the run's plugin with its profile and options: the preflight's steps, rerun."""
    from pjrt_cts.runner.controller.session import Run

    argv = shlex.split(Run(_run_options(plugin, tmp_path)).preflight_repro())
    assert argv[:3] == ["pjrt-cts", "info", plugin] and argv[argv.index("--plugin") + 1] == "cpu"
    done = _cli(argv, "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    identity = json.loads(done.stdout)
    assert identity["api_version"] and len(identity["devices"]) == 4  # the profile's and the option's 4 devices
    slow = _parsed(shlex.split(Run(_run_options(plugin, tmp_path, timeout=30.0)).preflight_repro()))
    assert slow.timeout == 30.0


def test_the_defect_tables_smallest_reproduction_is_its_examples_repro_line(plugin: str, tmp_path: Path) -> None:
    """The example record's own line (Run.repro: run above); a record without one (an older results file) gets
    `pjrt-cts run PLUGIN --id ID`, PLUGIN standing for the plugin's path: it parses with the path in its place and
    selects the example alone."""
    from pjrt_cts.judgment.defects import defect_table
    from pjrt_cts.judgment.outcomes import id_matches
    from pjrt_cts.runner.controller.session import Run
    from pjrt_cts.schema import TestRecord

    record = {"id": ONE_TEST, "nodeid": "", "layer": "abi", "outcome": "FAIL", "message": "m", "details": {},
              "tags": [], "expected": None, "repro": "", "defect": None}
    repro = Run(_run_options(plugin, tmp_path)).repro(f"suites/abi/test_api_slots.py::{ONE_TEST.rsplit('.', 1)[1]}")
    (row,) = defect_table([TestRecord.from_json(dict(record, repro=repro))])
    assert row["command"] == repro
    (row,) = defect_table([TestRecord.from_json(record)])
    argv = shlex.split(row["command"])
    assert argv[2] == "PLUGIN"
    args = _parsed([*argv[:2], plugin, *argv[3:]])
    assert Path(args.path) == Path(plugin) and args.ids == [ONE_TEST] and id_matches(ONE_TEST, args.ids[0])


# ---- the writer ------------------------------------------------------------------------------------------------

def test_a_script_is_an_import_and_a_call_with_literal_arguments(tmp_path: Path) -> None:
    from pjrt_cts.testing.reproduction import script_calling

    text = script_calling(struct_size_cases.written, (b"\xa5\xa5",), doc='a """quoted""" title with C:\\ in it')
    assert ast.get_docstring(ast.parse(text)) == 'a """quoted""" title with C:\\ in it'
    assert text.endswith("from pjrt_cts.testing.struct_size_cases import written\n\nsys.exit(written(b'\\xa5\\xa5'))\n")
    script = tmp_path / "written.py"
    script.write_text(text, encoding="utf-8")
    _lint([script])
    done = _run_script(script)
    assert done.returncode == 0 and done.stderr == "", done.stderr  # written(...) is False: exit 0


@pytest.mark.parametrize("argument", [Path("/p.so"), float("nan"), object()])
def test_a_script_takes_only_arguments_that_read_back(argument: Any) -> None:
    from pjrt_cts.testing.reproduction import script_calling

    with pytest.raises(ValueError, match="literal arguments only"):
        script_calling(struct_size_cases.written, (argument,), doc="d")


def test_a_script_calls_only_a_function_importable_by_name() -> None:
    from pjrt_cts.testing.reproduction import script_calling

    def local() -> None:
        """Not reachable by name from its module."""

    with pytest.raises(ValueError, match="cannot be imported by name"):
        script_calling(local, doc="d")
