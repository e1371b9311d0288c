"""The runner's escape hatch `edited_judge_code` (issue 53): a pjrt-cts whose comparison says "equal" for every
result judges a plugin that gets values wrong, and its bundle is verified by this installation.

A copy of this installation is laid out as a wheel installs it (`copy_installation`: the package with the data
trees under pjrt_cts/_data), its `pjrt_cts/golden/compare.py` edited so that `compare` finds no mismatch
(`edit_compare`), and a run of the copy judges the proxy with `to_host_bitflip` (every read-back's last element
has a bit flipped) over one numeric test, packing a bundle. The hatch is caught when `pjrt-cts verify` of that
bundle, by this installation, fails its `suite` check naming the edited file: the claim's judge is not this one.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from pjrt_cts.proxy import proxy_environment
from pjrt_cts.resources import DATA_DIR_NAME, judging_trees
from pjrt_cts.selftest.run_hatches import HatchResult

EDITED_JUDGE_HATCH = "edited_judge_code"
EDITED_FILE = "pjrt_cts/golden/compare.py"
_DEFECT = "to_host_bitflip"
_TEST = "execute.programs.test_program_matches_numpy[add_f32]"
_RUN_TIMEOUT_S = 300
_NOT_SOURCE = ("__pycache__", "*.pyc", "*.pyo", ".*")  # what pjrt_cts.runner.binding.judge_files leaves out


def copy_installation(site: Path) -> Path:
    """Copy this installation's judging trees into `site` as a wheel lays them out (`site/pjrt_cts`, its data trees
    under `pjrt_cts/_data`); returns the copy's package directory. Put `site` first on PYTHONPATH to run it."""
    trees = judging_trees()
    package = site / "pjrt_cts"
    shutil.copytree(trees.pop("pjrt_cts"), package, ignore=shutil.ignore_patterns(*_NOT_SOURCE, DATA_DIR_NAME))
    for name, root in trees.items():
        shutil.copytree(root, package / DATA_DIR_NAME / name, ignore=shutil.ignore_patterns(*_NOT_SOURCE))
    return package


def edit_compare(package: Path) -> None:
    """Make the copy's `compare` answer "no mismatch" for any arrays (ValueError if the source has moved on)."""
    path = package / "golden" / "compare.py"
    text = path.read_text(encoding="utf-8")
    signature = "def compare(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> Mismatch | None:\n"
    if signature not in text:
        raise ValueError(f"{path} no longer defines {signature.strip()!r}")
    path.write_text(text.replace(signature, signature + "    return None  # edited: everything is equal\n"),
                    encoding="utf-8")


def copy_environment(site: Path) -> dict[str, str]:
    """The environment that runs the copy in `site` rather than this installation."""
    return {"PYTHONPATH": os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)}


def edited_judge_code(proxy: Path, target: Path, profile: str | None, out: Path) -> HatchResult:
    from pjrt_cts.runner.files.bundle import verify_bundle

    description = (f"a copy of pjrt-cts whose {EDITED_FILE} finds every result equal judges the {_DEFECT} mutant; "
                   "its bundle is verified by this installation")
    work = out / EDITED_JUDGE_HATCH
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    site = work / "site"
    try:
        edit_compare(copy_installation(site))
    except (OSError, ValueError) as error:
        return HatchResult(EDITED_JUDGE_HATCH, description, False, f"the edited copy could not be made: {error}")
    bundle = work / "claim.zip"
    command = [sys.executable, "-m", "pjrt_cts.cli.main", "run", str(proxy), "--out", str(work / "out"), "-n", "1",
               "--no-progress", "--no-report", "--id", _TEST, "--bundle", str(bundle)]
    if profile:
        command += ["--plugin", profile]
    env = {**os.environ, **proxy_environment(target, _DEFECT), **copy_environment(site)}
    # Outside the checkout: `python -m` puts the working directory first on sys.path.
    done = subprocess.run(command, env=env, cwd=work, capture_output=True, text=True, timeout=_RUN_TIMEOUT_S,
                          check=False)
    if not bundle.is_file():
        return HatchResult(EDITED_JUDGE_HATCH, description, False, f"the edited copy's run wrote no bundle (exit "
                           f"{done.returncode}): " + (done.stdout + done.stderr).strip()[-300:])
    judged = _outcome(work / "out" / "results.json")
    suite = next((check for check in verify_bundle(bundle).checks if check.name == "suite"), None)
    caught = suite is not None and suite.status == "FAIL" and EDITED_FILE in suite.detail
    shown = suite.line() if suite is not None else "no suite check"
    return HatchResult(EDITED_JUDGE_HATCH, description, caught,
                       f"the edited copy judged {_TEST} {judged} under {_DEFECT}; verify: {shown[:300]}")


def _outcome(results: Path) -> str:
    try:
        tests = json.loads(results.read_text(encoding="utf-8")).get("tests") or []
    except (OSError, ValueError):
        return "(no results.json)"
    return next((str(test.get("outcome")) for test in tests if test.get("id") == _TEST), "(not recorded)")
