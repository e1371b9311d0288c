"""Helpers for the runner's own tests: run `pjrt-cts` in a subprocess, read its outputs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURE_SUITES = Path(__file__).resolve().parent / "fixture_suites"


def cli_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "pjrt_cts.cli.main", *args]


def cli_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    env.update(extra or {})
    return env


def run_cli(*args: str, timeout: float = 240, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cli_command(*args), cwd=REPO_ROOT, env=cli_environment(env), capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def load_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def by_id(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {test["id"]: test for test in results["tests"]}
