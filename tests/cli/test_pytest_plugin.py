"""`pytest suites/<layer> --pjrt-plugin PATH|PROFILE` (pjrt_cts.cli.pytest_plugin, the `pytest11` entry point) gives
each test the outcome `pjrt-cts run` records for it: the same tests, side by side, on a profile (the API 0.81 plugin:
NOT_SUPPORTED slots, waived failures, isolated tests that abort) and on a path (the default plugin: a shared
deviation)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from pjrt_cts.judgment import outcomes
from pjrt_cts.runtime import default_plugin_path

REPO_ROOT = Path(__file__).resolve().parents[2]
# A `-v` line of the bare run: the node id (parameters may hold spaces), the runner's outcome name, the progress.
_VERBOSE_LINE = re.compile(r"^(?P<nodeid>suites/\S.*::.+?) (?P<outcome>[A-Z_]+)(?:\s+\[\s*\d+%\])?$")
# Two selections, each with more than one outcome, small enough for seconds a side.
CASES = {
    "profile": (["cpu-legacy"], "client",
                "wrong_option_type or deserialize or attribute_names_are_unique or non_addressable "
                "or create_with_the_default_name"),
    "path": ([], "execute", "add and f32 and (not golden_cases or dynamic_conv)"),
}


def _environment() -> dict[str, str]:
    """This environment without the outer pytest's and any run's variables: the commands run as a user types them."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("PYTEST_", "PJRT_CTS_CONTEXT"))}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def _run(command: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=REPO_ROOT, env=_environment() if env is None else env, capture_output=True,
                          text=True, timeout=600, stdin=subprocess.DEVNULL, check=False)


def _bare_outcomes(plugin: str, layer: str, keyword: str) -> dict[str, str]:
    done = _run([sys.executable, "-m", "pytest", f"suites/{layer}", "--pjrt-plugin", plugin, "-k", keyword, "-v",
                 "-n", "0", "-p", "no:cacheprovider"])
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    found = {}
    for line in done.stdout.splitlines():
        match = _VERBOSE_LINE.match(line)
        if match:
            found[outcomes.test_id_from_nodeid(match["nodeid"])] = match["outcome"]
    assert found, done.stdout[-3000:]
    return found


def _run_outcomes(plugin_args: list[str], layer: str, keyword: str, out: Path) -> dict[str, str]:
    done = _run([sys.executable, "-m", "pjrt_cts", "run", *plugin_args, "--layers", layer, "-k", keyword,
                 "-n", "2", "--out", str(out), "--no-progress", "--no-report"])
    assert (out / "results.json").is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    records = json.loads((out / "results.json").read_text(encoding="utf-8"))["tests"]
    return {record["id"]: record["outcome"] for record in records
            if not str(record.get("message", "")).startswith("deselected by -k")}


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=str)
def test_bare_pytest_records_what_the_run_records(case: str, tmp_path: Path) -> None:
    profile_args, layer, keyword = CASES[case]
    plugin = profile_args[0] if profile_args else str(default_plugin_path())
    run_args = ["--plugin", plugin] if profile_args else [plugin]
    bare = _bare_outcomes(plugin, layer, keyword)
    run = _run_outcomes(run_args, layer, keyword, tmp_path / "out")
    assert bare == run
    assert len(set(bare.values())) > 1, bare  # the selection shows more than passes


def test_the_plugin_is_a_pytest11_entry_point_that_pytest_loads() -> None:
    (entry,) = [entry for entry in entry_points(group="pytest11") if entry.name == "pjrt_cts"]
    assert entry.value == "pjrt_cts.cli.pytest_plugin"
    done = _run([sys.executable, "-m", "pytest", "--help", "-p", "no:cacheprovider"])
    assert "--pjrt-plugin=PATH|PROFILE" in done.stdout and "--pjrt-expectations=FILE" in done.stdout


def test_an_unknown_profile_is_a_usage_error() -> None:
    done = _run([sys.executable, "-m", "pytest", "suites/abi", "--pjrt-plugin", "no-such-profile", "-q",
                 "-p", "no:cacheprovider"])
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "pjrt-cts: unknown plugin profile 'no-such-profile'" in done.stderr and "Traceback" not in done.stderr


def test_the_suites_markers_are_registered_once_where_every_suites_run_loads_them() -> None:
    from pjrt_cts.runner.worker.plugin import MARKERS

    registered = {marker.split(":")[0].split("(")[0] for marker in MARKERS}
    sources = [path for tree in ("suites", "pjrt_cts") for path in (REPO_ROOT / tree).rglob("*.py")]
    used = {name for path in sources for name in re.findall(r"pytest\.mark\.([a-z_]+)", path.read_text("utf-8"))}
    assert used - registered - {"parametrize", "skip", "usefixtures", "expression"} == set()
    registering = [path for path in sources if 'addinivalue_line("markers"' in path.read_text("utf-8")]
    assert registering == [REPO_ROOT / "pjrt_cts" / "runner" / "worker" / "plugin.py"]


@pytest.mark.parametrize("given", ["profile", "path"])
def test_the_outcome_mapping_is_registered_once_whoever_loads_the_runners_plugin(given: str) -> None:
    """suites/pytest.ini loads the runner's `-p` plugin (a profile keeps the suites' rootdir); with a path outside
    suites/, pytest reads another ini and the pytest11 plugin loads it: either way one OutcomeMapping, one fixtures
    module, and no warning of a module pytest could not rewrite."""
    plugin = "cpu" if given == "profile" else str(default_plugin_path())
    # pytest's own script in the installed environment, as a user types it: pytest warns of a module it could not
    # rewrite only there (not under `python -m pytest` or with the checkout on PYTHONPATH)
    env = {name: value for name, value in _environment().items() if name != "PYTHONPATH"}
    done = _run([str(Path(sys.executable).parent / "pytest"), "suites/abi/test_plugin.py", "--pjrt-plugin", plugin,
                 "--co", "-q", "-n", "0", "--trace-config", "-p", "no:cacheprovider"], env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    registered = [line for line in done.stdout.splitlines() if line.startswith("PLUGIN registered: ")]
    assert sum("pjrt_cts.runner.worker.outcomes.OutcomeMapping object" in line for line in registered) == 1
    assert sum("<module 'pjrt_cts.runner.worker.outcomes'" in line for line in registered) == 1
    assert sum("<module 'pjrt_cts.runner.worker.plugin'" in line for line in registered) == 1
    assert "PytestAssertRewriteWarning" not in done.stdout + done.stderr
