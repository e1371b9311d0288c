"""Fixtures for the runner's own tests.

The throwaway suite trees under fixture_suites/ are run by the runner under test (in
subprocesses), never collected by this test session.
"""
from __future__ import annotations

from pathlib import Path

import pytest

collect_ignore = ["fixture_suites"]


@pytest.fixture(scope="session")
def fake_plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A shared library that passes `run`'s plugin check (ELF, exports GetPjrtApi) but is no plugin: its
    GetPjrtApi returns NULL. The throwaway suites never load it."""
    import shutil
    import subprocess

    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("needs a C compiler (apt-get install gcc libc6-dev)")
    directory = tmp_path_factory.mktemp("plugin")
    source = directory / "fake.c"
    source.write_text("void *GetPjrtApi(void) { return 0; }\n", encoding="utf-8")
    path = directory / "libfake_pjrt_plugin.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(path), str(source)], check=True)
    return path
