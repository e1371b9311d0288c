"""The CI templates in ci/: schema-valid, and their plugin-locating script works."""
from __future__ import annotations

import importlib.metadata
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
from packaging.requirements import Requirement

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

CI = Path(__file__).resolve().parents[2] / "ci"
GITHUB = CI / "github" / "pjrt-conformance.yml"
GITLAB = CI / "gitlab" / "pjrt-conformance.gitlab-ci.yml"
NEWEST_DEPENDENCIES = CI / "newest-dependencies" / "workflow.yml"

needs_check_jsonschema = pytest.mark.skipif(
    importlib.util.find_spec("check_jsonschema") is None,
    reason="check-jsonschema not installed (pip install check-jsonschema; it vendors the CI schemas)",
)


@needs_check_jsonschema
@pytest.mark.parametrize("path, schema", [(GITHUB, "vendor.github-workflows"), (GITLAB, "vendor.gitlab-ci"),
                                          (NEWEST_DEPENDENCIES, "vendor.github-workflows")])
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


ENTRY_SCRIPTS = [CI.parent / ".ci" / "run", CI / "newest-dependencies" / "run", CI.parent / "constraints" / "refresh"]


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="needs shellcheck (apt-get install shellcheck)")
@pytest.mark.parametrize("script", ENTRY_SCRIPTS, ids=lambda path: str(path.relative_to(CI.parent)))
def test_project_ci_entry_scripts_pass_shellcheck(script: Path) -> None:
    run = subprocess.run(["shellcheck", str(script)], capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stdout


def load_drift():
    spec = importlib.util.spec_from_file_location("drift", CI / "newest-dependencies" / "drift.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_drift_reads_the_pins_whose_markers_hold_here() -> None:
    drift = load_drift()
    lock = textwrap.dedent("""\
        # a comment
        Jinja2==3.1.6
            # via pjrt-cts
        numpy==1.0.0 ; python_full_version < '3.0'
        numpy==9.9.9 ; python_full_version >= '3.0'
        ml_dtypes[extra]==0.7.0
        -e .
        """)
    assert drift.locked_versions(lock) == {"jinja2": "3.1.6", "numpy": "9.9.9", "ml-dtypes": "0.7.0"}


def test_drift_names_what_moved_and_what_is_missing() -> None:
    drift = load_drift()
    installed = importlib.metadata.version("pytest")
    pins = {"pytest": installed, "numpy": "0.0.1", "no-such-distribution-here": "1.0"}
    assert drift.drift(pins) == [
        ("no-such-distribution-here", "1.0", "not installed"),
        ("numpy", "0.0.1", importlib.metadata.version("numpy")),
    ]


def test_the_lock_pins_every_distribution_of_the_test_extra() -> None:
    """constraints/test.txt covers what `.[test]` installs: a dependency added to pyproject.toml without a
    refresh of the lock would be tested at whatever version is newest that day."""
    drift = load_drift()
    pins = drift.locked_versions((CI.parent / "constraints" / "test.txt").read_text(encoding="utf-8"))
    project = tomllib.loads((CI.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for text in project["dependencies"] + project["optional-dependencies"]["test"]:
        requirement = Requirement(text)
        if requirement.marker and not requirement.marker.evaluate():
            continue
        name = drift.canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not in constraints/test.txt: run constraints/refresh"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"constraints/test.txt pins {name}=={pins[name]}, outside pyproject.toml's {requirement}: run constraints/refresh")
