"""`pjrt-cts run` usage errors exit 2 before any worker starts; exit 0 when everything is fine."""
from __future__ import annotations

from pathlib import Path

import pytest

from pjrt_cts.cli import run as run_command
from pjrt_cts.cli.main import main
from runner_cli import FIXTURE_SUITES, by_id, load_json, run_cli

MIXED = FIXTURE_SUITES / "mixed" / "suites"


@pytest.mark.parametrize(
    ("extra", "complaint"),
    [
        (["--layers", "client,nosuchlayer"], "unknown layer"),
        (["-k", "test_pass and ("], "bad -k expression"),
        (["--create-option", "novalue"], "KEY=VALUE"),
        (["--expectations", "/nonexistent/expectations.toml"], "expectations file not found"),
        (["--plugin", "no-such-profile"], "no-such-profile"),
    ],
)
def test_usage_errors_exit_2(fake_plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             extra: list[str], complaint: str) -> None:
    code = main(["run", str(fake_plugin), "--suites-dir", str(MIXED), "--out", str(tmp_path), *extra])
    assert code == 2
    assert complaint in capsys.readouterr().err
    assert not (tmp_path / "results.jsonl").exists()


CATCH_ALL_EXPECTATIONS = """
[[expectation]]
id = "*"
outcome = "FAIL"
cause = "."
reason = "everything"
intermittent = true
"""


def test_a_catch_all_expectations_file_is_refused_before_any_test_runs(fake_plugin: Path, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 27's reproduction: five lines that once certified a plugin whose every Execute failed."""
    expectations = tmp_path / "catch_all.toml"
    expectations.write_text(CATCH_ALL_EXPECTATIONS)
    code = main(["run", str(fake_plugin), "--suites-dir", str(MIXED), "--out", str(tmp_path / "out"),
                 "--expectations", str(expectations)])
    assert code == 2
    assert "must name one test function" in capsys.readouterr().err
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_missing_plugin_path_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(tmp_path / "missing.so"), "--out", str(tmp_path)]) == 2
    assert "missing.so: no such file" in capsys.readouterr().err


def test_a_file_that_is_not_a_plugin_is_a_usage_error_before_any_test_runs(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    not_elf = tmp_path / "hostname"
    not_elf.write_text("a text file\n")
    assert main(["run", str(not_elf), "--out", str(tmp_path / "out")]) == 2
    assert "cannot be loaded as a shared library" in capsys.readouterr().err
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_missing_suites_dir_is_a_usage_error(fake_plugin: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(fake_plugin), "--suites-dir", str(tmp_path / "nope"), "--out", str(tmp_path)]) == 2
    assert "suites directory not found" in capsys.readouterr().err


def test_bad_expectations_file_is_a_usage_error(fake_plugin: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[expectation]]\nid = "client.x.test_y"\noutcome = "MAYBE"\nreason = "r"\n')
    assert main(["run", str(fake_plugin), "--suites-dir", str(MIXED), "--expectations", str(bad)]) == 2
    assert "MAYBE" in capsys.readouterr().err


def test_no_path_means_the_bundled_cpu_plugin_with_the_cpu_profile() -> None:
    from pjrt_cts.cli.plugin_arg import resolve_plugin

    plugin = resolve_plugin(None, None)
    assert plugin.path.name == "pjrt_c_api_cpu_plugin.so" and plugin.path.is_file()
    assert "lammps_jax_pjrt_cpu" in str(plugin.path)
    assert plugin.profile is not None and plugin.profile.name == "cpu" and plugin.create_options == {"cpu_device_count": 4}


def test_layers_follow_the_canonical_order() -> None:
    assert run_command.layer_dirs(MIXED) == ["client", "robustness"]


@pytest.mark.slow
def test_all_good_partial_run_is_incomplete(fake_plugin: Path, tmp_path: Path) -> None:
    """Nothing bad, but a handful of fixture tests meets no level contract: INCOMPLETE (exit 3), never CONFORMANT."""
    proc = run_cli("run", str(fake_plugin), "--suites-dir", str(MIXED), "-n", "1", "--out", str(tmp_path),
                   "--create-option", "cpu_device_count=4", "-k", "pass or test_tagged or environment",
                   "--id", "client.*")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    tests = by_id(load_json(tmp_path / "results.json"))
    ran = {test_id for test_id, t in tests.items() if t["outcome"] == "PASS"}
    assert ran == {"client.basic.test_pass", "client.basic.test_tagged", "client.basic.test_environment"}
    skipped = {t["outcome"] for test_id, t in tests.items() if test_id not in ran}
    assert skipped == {"SKIP"}
    # no robustness test can match client.*: that module is not collected at all (no record, as for --layers)
    assert not any(test_id.startswith("robustness.") for test_id in tests)
    assert tests["client.basic.test_fail"]["message"].startswith("deselected by -k")
    # a verdict belongs to one complete selection: the line says what the run is, and that nothing was bad
    assert "verdict: INCOMPLETE: partial selection (client,robustness; 1 --id pattern; 10 deselected by -k): " \
           "3 tests, nothing bad" in proc.stdout


@pytest.mark.slow
def test_controller_never_imports_suite_code(fake_plugin: Path, tmp_path: Path) -> None:
    """Workers die importing this conftest; the controller stops restarting them and reports."""
    suites = FIXTURE_SUITES / "abort_conftest" / "suites"
    proc = run_cli("run", str(fake_plugin), "--suites-dir", str(suites), "-n", "1", "--out", str(tmp_path),
                   timeout=120)
    assert proc.returncode == 3, proc.stdout + proc.stderr  # nothing ran: INCOMPLETE, never CONFORMANT
    assert "workers died in a row" in proc.stdout
    assert "no tests were collected" in proc.stdout
    assert (tmp_path / "results.json").is_file()


@pytest.mark.slow
def test_worker_dying_after_its_last_test_is_reported_not_blamed_on_a_test(fake_plugin: Path, tmp_path: Path) -> None:
    suites = FIXTURE_SUITES / "exit_crash" / "suites"
    proc = run_cli("run", str(fake_plugin), "--suites-dir", str(suites), "-n", "2", "--out", str(tmp_path),
                   timeout=120)
    tests = by_id(load_json(tmp_path / "results.json"))
    assert {t["outcome"] for t in tests.values()} == {"PASS"} and len(tests) == 4
    assert "killed by SIGABRT outside any test" in proc.stdout
    assert proc.returncode == 3  # nothing bad; a fixture suite meets no level contract


def test_layer_names_take_dashes_or_underscores() -> None:
    from pjrt_cts.cli.run import _layers
    from pjrt_cts.resources import suites_dir

    assert _layers("framework-jax,multidevice", suites_dir()) == ["framework_jax", "multidevice"]
    assert _layers("framework_jax", suites_dir()) == ["framework_jax"]
