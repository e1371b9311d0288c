"""The CI templates in ci/: schema-valid, and their plugin-locating script works."""
from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

CI = Path(__file__).resolve().parents[2] / "ci"
GITHUB = CI / "github" / "pjrt-conformance.yml"
GITLAB = CI / "gitlab" / "pjrt-conformance.gitlab-ci.yml"

needs_check_jsonschema = pytest.mark.skipif(
    importlib.util.find_spec("check_jsonschema") is None,
    reason="check-jsonschema not installed (pip install check-jsonschema; it vendors the CI schemas)",
)


@needs_check_jsonschema
@pytest.mark.parametrize("path, schema", [(GITHUB, "vendor.github-workflows"), (GITLAB, "vendor.gitlab-ci")])
def test_template_validates_against_vendored_schema(path: Path, schema: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr


def locate_script(path: Path) -> str:
    """The inline Python that finds the plugin library in the installed wheel."""
    match = re.search(r"<<'PY'\n(.*?)\n\s*PY\n", path.read_text(encoding="utf-8"), re.S)
    assert match, f"no locate script in {path}"
    return textwrap.dedent(match.group(1))


def run_locate(path: Path, env_names: tuple[str, str], wheels: str, library: str, cwd: Path):
    wheels_var, library_var = env_names
    return subprocess.run(
        [sys.executable, "-c", locate_script(path)], cwd=cwd, capture_output=True, text=True, timeout=60,
        env={wheels_var: wheels, library_var: library}, check=False,
    )  # fmt: skip


def make_wheel(path: Path, names: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as wheel:
        for name in names:
            wheel.writestr(name, b"\x7fELF")


TEMPLATES = [
    (GITHUB, ("PJRT_PLUGIN_WHEELS", "PJRT_PLUGIN_LIBRARY")),
    (GITLAB, ("PJRT_CONFORMANCE_WHEELS", "PJRT_CONFORMANCE_LIBRARY")),
]


@pytest.mark.parametrize("template, env_names", TEMPLATES)
def test_locate_picks_the_pjrt_library_of_the_wheel(tmp_path: Path, template: Path, env_names) -> None:
    make_wheel(tmp_path / "dist" / "p-1.0-py3-none-linux_x86_64.whl",
               ["acme_pjrt/__init__.py", "acme_pjrt/libhelper.so", "acme_pjrt/pjrt_plugin_acme.so"])
    run = run_locate(template, env_names, "dist/*.whl", "", tmp_path)
    # Not installed here, so it stops at the existence check, naming the path it chose.
    expected = Path(sysconfig.get_paths()["platlib"]) / "acme_pjrt" / "pjrt_plugin_acme.so"
    assert run.returncode != 0 and f"plugin library {expected} not found" in run.stderr


@pytest.mark.parametrize("template, env_names", TEMPLATES)
def test_locate_refuses_to_guess(tmp_path: Path, template: Path, env_names) -> None:
    make_wheel(tmp_path / "dist" / "p-1.0-py3-none-any.whl", ["a/liba.so", "a/libb.so"])
    run = run_locate(template, env_names, "dist/*.whl", "", tmp_path)
    assert run.returncode != 0 and "cannot choose the plugin library" in run.stderr


@pytest.mark.parametrize("template, env_names", TEMPLATES)
def test_locate_accepts_an_explicit_path(tmp_path: Path, template: Path, env_names) -> None:
    library = tmp_path / "build" / "plugin.so"
    library.parent.mkdir()
    library.write_bytes(b"\x7fELF")
    run = run_locate(template, env_names, "dist/*.whl", "build/plugin.so", tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(library)


def test_templates_keep_the_report_artifacts() -> None:
    github, gitlab = GITHUB.read_text(encoding="utf-8"), GITLAB.read_text(encoding="utf-8")
    for text in (github, gitlab):
        assert "pjrt-cts run" in text and "pjrt-cts gate" in text and "pjrt-cts badge" in text
    assert "actions/upload-artifact@v4" in github and "--summary \"$GITHUB_STEP_SUMMARY\"" in github
    assert "junit: pjrt-cts-out/junit.xml" in gitlab and "when: always" in gitlab


def template_scripts() -> list[tuple[str, str]]:
    """(name, shell script) of every run step / script section, as the CI would execute them."""
    from ruamel.yaml import YAML

    github = YAML(typ="safe").load(GITHUB.read_text(encoding="utf-8"))
    scripts = [(f"github step {step.get('name', index)}", "#!/bin/bash\nset -eo pipefail\n" + step["run"])
               for index, step in enumerate(github["jobs"]["conformance"]["steps"]) if "run" in step]
    gitlab = YAML(typ="safe").load(GITLAB.read_text(encoding="utf-8"))
    scripts.append(("gitlab script", "#!/bin/sh\nset -e\n" + "\n".join(gitlab[".pjrt-conformance"]["script"])))
    return scripts


@pytest.mark.skipif(
    shutil.which("shellcheck") is None or importlib.util.find_spec("ruamel") is None,
    reason="needs shellcheck (apt-get install shellcheck) and ruamel.yaml (comes with check-jsonschema)",
)
def test_template_scripts_pass_shellcheck(tmp_path: Path) -> None:
    for index, (name, script) in enumerate(template_scripts()):
        path = tmp_path / f"script{index}.sh"
        path.write_text(script, encoding="utf-8")
        run = subprocess.run(["shellcheck", str(path)], capture_output=True, text=True, timeout=60, check=False)
        assert run.returncode == 0, f"{name}:\n{run.stdout}"
