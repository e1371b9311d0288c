"""The run binding (pjrt_cts/runner/binding.py): every file that judges a run, the plugin's environment and the
user settings, compared fact by fact and named where they differ (issue 53, item 6)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pjrt_cts.runner.binding import (RunBinding, bound_differences, installed_judge, judge_digest, judge_files,
                                     plugin_environment)
from pjrt_cts.selftest.edited_judge import EDITED_FILE, copy_environment, copy_installation, edit_compare

OLD_BINDING = {"plugin_sha256": "a" * 64, "profile": "cpu", "create_options": "{}", "expectations_sha256": "",
               "suite_version": "0.1.0", "suites_sha256": "b" * 64, "corpus_sha256": "c" * 64}


def binding(**facts: Any) -> RunBinding:
    files = facts.pop("judge_files", {"pjrt_cts/golden/compare.py": "1" * 64, "suites/abi/test_x.py": "2" * 64})
    values = {**OLD_BINDING, "judge_sha256": judge_digest(files), "judge_files": files,
              "plugin_environment": {"XLA_FLAGS": "--xla_a"},
              "user_settings": {"fuzz_seed": 0, "num_nodes": 2, "kv_backend": "auto", "timeout": 120.0}, **facts}
    parsed = RunBinding.from_dict(values)
    assert parsed is not None
    return parsed


def test_judge_files_name_every_file_of_each_tree_and_leave_out_caches(tmp_path: Path) -> None:
    package, suites = tmp_path / "pkg", tmp_path / "suites"
    for path in (package / "golden" / "compare.py", package / "judgment" / "mustpass" / "core.txt",
                 package / "proxy" / "proxy.c", package / "__pycache__" / "x.cpython-311.pyc",
                 package / "_data" / "suites" / "abi" / "test_x.py", package / ".mypy_cache" / "x.json",
                 suites / "abi" / "test_x.py", suites / "pytest.ini", suites / "abi" / "__pycache__" / "y.pyc"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(path.name, encoding="utf-8")
    files = judge_files({"pjrt_cts": package, "suites": suites})
    assert list(files) == ["pjrt_cts/golden/compare.py", "pjrt_cts/judgment/mustpass/core.txt",
                           "pjrt_cts/proxy/proxy.c", "suites/abi/test_x.py", "suites/pytest.ini"]
    (package / "golden" / "compare.py").write_text("return None", encoding="utf-8")
    edited = judge_files({"pjrt_cts": package, "suites": suites})
    assert judge_digest(edited) != judge_digest(files)
    assert binding(judge_files=files).differences(binding(judge_files=edited)) == [
        "judging code: pjrt_cts/golden/compare.py differs"]


@pytest.mark.slow  # copies this installation (~25 MB) and hashes it in two child processes
def test_a_judge_code_edit_changes_the_binding_and_is_named(tmp_path: Path) -> None:
    """The copy is laid out as a wheel installs it: unedited, its judge is this checkout's file for file."""
    package = copy_installation(tmp_path / "site")

    def copy_judge() -> dict[str, Any]:
        done = subprocess.run([sys.executable, "-c", "import json; from pjrt_cts.runner.binding import installed_judge;"
                               " print(json.dumps(installed_judge()))"], cwd=tmp_path, capture_output=True, text=True,
                              env={**os.environ, **copy_environment(tmp_path / "site")}, check=True)
        return json.loads(done.stdout)

    here = installed_judge()
    assert copy_judge() == here
    edit_compare(package)
    edited = copy_judge()
    assert edited["judge_sha256"] != here["judge_sha256"]
    assert bound_differences(edited, here, mine="claimed", theirs="installed") == [f"judging code: {EDITED_FILE} differs"]


def test_the_conditions_are_named_value_by_value() -> None:
    recorded = binding()
    now = binding(plugin_environment={"XLA_FLAGS": "--xla_b", "CUDA_VISIBLE_DEVICES": "1"},
                  user_settings={"fuzz_seed": 7, "num_nodes": 2, "kv_backend": "auto", "timeout": 30.0})
    assert recorded.differences(now) == [
        "plugin environment: CUDA_VISIBLE_DEVICES unset recorded, '1' now",
        "plugin environment: XLA_FLAGS '--xla_a' recorded, '--xla_b' now",
        "user settings: fuzz_seed 0 recorded, 7 now",
        "user settings: timeout 120.0 recorded, 30.0 now",
    ]
    assert recorded.differences(binding()) == []


def test_a_binding_from_before_the_judge_was_bound_loads_and_cannot_be_bound() -> None:
    old = RunBinding.from_dict(dict(OLD_BINDING))
    assert old is not None and old.judge_sha256 is None
    differences = old.differences(binding())
    assert differences[0].startswith("judge: no hashes of the code, suites, golden corpus and profiles that judged the "
                                     "records (recorded): ")
    assert "cannot be bound to their judge" in differences[0]
    assert differences[1] == "plugin environment: not recorded (recorded): written by a pjrt-cts before it was bound"
    assert old.differences(RunBinding.from_dict(dict(OLD_BINDING)) or old) == []  # two old ones: nothing to compare
    assert RunBinding.from_dict({"profile": "cpu"}) is None  # not a binding at all


def test_a_file_list_that_does_not_give_its_digest_is_called_edited() -> None:
    honest = binding()
    forged = binding().to_dict()
    forged["judge_files"] = {**forged["judge_files"], EDITED_FILE: "9" * 64}  # the digest left as it was
    found = bound_differences(forged, {**honest.to_dict(), "judge_sha256": "f" * 64}, mine="claimed",
                              theirs="installed")
    assert found == [f"judge: the judge_files (claimed) do not give their judge_sha256 "
                     f"{forged['judge_sha256'][:12]}…: the list was edited"]


def test_the_plugin_environment_is_the_allow_list_with_the_profiles_names() -> None:
    environ = {"XLA_FLAGS": "--xla_cpu_enable_fast_math=false", "TF_CPP_MIN_LOG_LEVEL": "0",
               "CUDA_VISIBLE_DEVICES": "0", "NCCL_DEBUG": "INFO", "TPU_NAME": "local", "PJRT_DEVICE": "CPU",
               "PJRT_CTS_PROXY_DEFECT": "to_host_bitflip", "PJRT_CTS_CONTEXT": "/tmp/run/context.json",
               "PJRT_CTS_FUZZ_SEED": "3", "TF_CLI_CONFIG_FILE": "/root/.terraformrc", "LD_LIBRARY_PATH": "/opt/lib",
               "HOME": "/root", "ALLOW_MULTIPLE_LIBTPU_LOAD": "1"}
    worker_env = {"LD_PRELOAD": "/cache/shim.so", "ONEAPI_DEVICE_SELECTOR": "level_zero:gpu"}
    assert plugin_environment(environ, worker_env, frozenset({"ALLOW_MULTIPLE_LIBTPU_LOAD", "ONEAPI_DEVICE_SELECTOR"})) == {
        "ALLOW_MULTIPLE_LIBTPU_LOAD": "1", "CUDA_VISIBLE_DEVICES": "0", "NCCL_DEBUG": "INFO",
        "ONEAPI_DEVICE_SELECTOR": "level_zero:gpu", "PJRT_CTS_PROXY_DEFECT": "to_host_bitflip", "PJRT_DEVICE": "CPU",
        "TF_CPP_MIN_LOG_LEVEL": "0", "TPU_NAME": "local", "XLA_FLAGS": "--xla_cpu_enable_fast_math=false"}
