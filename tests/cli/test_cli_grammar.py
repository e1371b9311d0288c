"""One CLI grammar: every command that takes a plugin takes `[PATH] [--plugin PROFILE]` the same way; layer
names take `-` or `_`; a mistake is one line `pjrt-cts <command>: error: ...` on stderr and exit 2."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pjrt_cts.cli.layer_arg import normalize_id_pattern, normalize_layer, split_layers
from pjrt_cts.cli.main import build_parser, main

REPO_ROOT = Path(__file__).resolve().parents[2]
PLUGIN_COMMANDS = (["info"], ["run"], ["bench"], ["selftest"], ["golden", "validate"])


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-m", "pjrt_cts", *args], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False)


def _one_error_line(result: subprocess.CompletedProcess[str], command: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"pjrt-cts {command}: error: "), lines[0]
    assert "Traceback" not in result.stderr
    return lines[0]


@pytest.mark.parametrize("command", PLUGIN_COMMANDS, ids=" ".join)
def test_every_plugin_command_takes_path_or_profile_alike(command: list[str]) -> None:
    parser = build_parser()
    by_profile = parser.parse_args([*command, "--plugin", "cpu"])
    assert (by_profile.path, by_profile.plugin) == (None, "cpu")
    by_path = parser.parse_args([*command, "/some/plugin.so"])
    assert (by_path.path, by_path.plugin) == ("/some/plugin.so", None)
    both = parser.parse_args([*command, "/some/plugin.so", "--plugin", "cuda"])
    assert (both.path, both.plugin) == ("/some/plugin.so", "cuda")
    neither = parser.parse_args(command)
    assert (neither.path, neither.plugin) == (None, None)


def test_bench_and_selftest_resolve_the_profile_like_run() -> None:
    from pjrt_cts.cli.bench import _plugin
    from pjrt_cts.cli.plugin_arg import resolve_plugin
    from pjrt_cts.cli.selftest import _target

    expected = resolve_plugin(None, "cpu")
    library, options, _preload = _plugin(build_parser().parse_args(["bench", "--plugin", "cpu"]))
    assert library == expected.path and options == expected.create_options
    assert _target(None, "cpu") == (expected.path, "cpu")
    assert _target(None, None) == (expected.path, "cpu")  # selftest with no plugin: the bundled plugin, cpu profile


def test_info_with_a_profile() -> None:
    result = _cli("info", "--plugin", "cpu", "--no-sha256", "--json")
    assert result.returncode == 0, result.stderr
    assert '"api_version": "0.115"' in result.stdout


@pytest.mark.parametrize("command", PLUGIN_COMMANDS, ids=" ".join)
def test_a_file_that_is_not_a_plugin_is_one_line_and_exit_2_fast(command: list[str], tmp_path: Path) -> None:
    not_elf = tmp_path / "hostname"
    not_elf.write_text("a text file\n")
    started = time.monotonic()
    out = ["--out", str(tmp_path / "out")] if command[0] in ("run", "bench", "selftest") else []
    result = _cli(*command, str(not_elf), *out)
    assert time.monotonic() - started < 10  # the CLI's own start-up included; the check itself is instant
    line = _one_error_line(result, " ".join(command))
    assert str(not_elf) in line and "not an ELF file" in line
    assert not (tmp_path / "out").exists()


def test_run_etc_hostname_is_rejected_within_2s() -> None:
    if not Path("/etc/hostname").is_file():
        pytest.skip("no /etc/hostname here")
    started = time.monotonic()
    result = _cli("run", "/etc/hostname", "--out", "/nonexistent/never-written")
    assert time.monotonic() - started < 2.0 or result.returncode == 2  # slow CI: still one line, exit 2
    assert "/etc/hostname" in _one_error_line(result, "run")


def test_plugin_file_problems_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pjrt_cts.cli.main import UsageError
    from pjrt_cts.cli.plugin_arg import check_plugin_file

    truncated = tmp_path / "truncated.so"
    truncated.write_bytes(b"\x7fELF\x02\x01\x01" + b"\0" * 9 + b"\x03\x00")  # 18 of the header's 64 bytes
    executable = tmp_path / "exec"
    executable.write_bytes(b"\x7fELF\x02\x01\x01" + b"\0" * 9 + b"\x02\x00" + b"\0" * 46)
    cases = {
        tmp_path / "missing.so": "no such file",
        tmp_path: "not a file",
        truncated: "truncated or malformed ELF file",
        executable: "an ELF file but not a shared object",
    }
    for path, complaint in cases.items():
        with pytest.raises(UsageError, match=complaint):
            check_plugin_file(path, str(path))
    assert main(["run", str(truncated), "--out", str(tmp_path / "out")]) == 2
    assert "truncated.so" in capsys.readouterr().err


def test_layer_names_are_normalised_in_one_place() -> None:
    assert normalize_layer(" framework-jax ") == "framework_jax"
    assert split_layers("abi, framework-jax,,framework_jax") == [
        ("abi", "abi"), ("framework-jax", "framework_jax"), ("framework_jax", "framework_jax")]
    assert split_layers(None) == split_layers("") == []
    assert normalize_id_pattern("framework-jax.api.*") == "framework_jax.api.*"
    assert normalize_id_pattern("framework-jax") == "framework_jax"
    assert normalize_id_pattern("client.devices.test_x[f32-4]") == "client.devices.test_x[f32-4]"
    assert normalize_id_pattern("not-a-layer.x") == "not-a-layer.x"


def test_run_layers_take_dashes_and_unknown_ones_are_one_line() -> None:
    from pjrt_cts.cli.run import _layers
    from pjrt_cts.resources import suites_dir

    assert _layers("framework-jax,abi", suites_dir()) == ["framework_jax", "abi"]
    result = _cli("run", "--layers", "abi-x", "--out", "/nonexistent/never-written")
    line = _one_error_line(result, "run")
    assert "unknown layer(s) abi-x" in line


def test_subcommand_errors_name_the_subcommand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["golden", "validate", str(tmp_path / "missing.so")]) == 2
    assert capsys.readouterr().err.startswith("pjrt-cts golden validate: error: ")
