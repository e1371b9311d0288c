"""`pytest suites/<layer> --pjrt-plugin PATH|PROFILE`: the suites run by hand, in-process, against any plugin.

Registered as the `pytest11` entry point `pjrt_cts` (pyproject.toml), so any pytest of an environment where pjrt-cts
is installed has the options; it does nothing unless one is given. With them, a bare pytest run of the suites gets
what `pjrt-cts run` gives its workers and records for the same tests:

- the run context (pjrt_cts.schema.run_context) made as `run` makes it (pjrt_cts.cli.run.run_options): the plugin
  (a path, or a profile's library), the profile's create options with `--pjrt-create-option K=V` over them, its
  "no device" codes, its runtime's environment, the user settings of the environment;
- (bare_run.py) tests marked isolated run in a child process as in a run (pjrt_cts.runner.worker.isolation), so that a
  plugin that aborts there is a CRASH record; each test's record is made by the runner's code from the phase
  reports (pjrt_cts.runner.records: the outcome mapping the worker plugin attaches, NOT_SUPPORTED,
  SHARED_DEVIATION, WARNING, requirements), judged by the consistency rules that need no other test and by the
  expectations (`--pjrt-expectations FILE`, else the profile's; its SKIP entries leave tests out as in a run), and
  shown in pytest's terminal by the runner's outcome names, with a `pjrt-cts outcomes` section at the end naming
  each test's cause, defect and waiver.

What a bare run cannot give: a crash or hang of the plugin in a test that is not marked isolated ends pytest (a run
records it as a CRASH or TIMEOUT and goes on in a new worker), findings are not confirmed by a second run, and the
consistency rules that compare tests with each other (an UNIMPLEMENTED op that another golden case ran) need the
whole run: `pjrt-cts run` judges a plugin; this debugs one test.
"""
from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pjrt_cts.runner.controller.session import RunOptions

PLUGIN_NAME = "pjrt-cts-bare-run"
# The dynamic loader reads these when the process starts: a profile whose runtime needs them cannot be loaded
# in-process unless pytest was started with them.
_LOADER_VARIABLES = ("LD_LIBRARY_PATH", "LD_PRELOAD")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pjrt-cts-plugin", "pjrt-cts: the PJRT plugin a bare pytest run of suites/ tests")
    group.addoption("--pjrt-plugin", dest="pjrt_plugin", default=None, metavar="PATH|PROFILE",
                    help="the plugin under test: a shared library (a path: has a `/` or names a file) or a profile "
                         "(`pjrt-cts plugins`); default: the bundled XLA CPU plugin")
    group.addoption("--pjrt-create-option", dest="pjrt_create_options", action="append", default=[],
                    metavar="K=V", help="client create option over the profile's (value parsed as JSON when possible; "
                                        "repeatable)")
    group.addoption("--pjrt-expectations", dest="pjrt_expectations", default=None, metavar="FILE",
                    help="expectations TOML (default: the profile's; an empty file: none)")


def _given(config: pytest.Config) -> bool:
    return bool(config.getoption("pjrt_plugin", None) or config.getoption("pjrt_create_options", None)
                or config.getoption("pjrt_expectations", None))


def pytest_configure(config: pytest.Config) -> None:
    if not _given(config):
        return
    if config.getoption("pjrt_cts_spec", None):
        raise pytest.UsageError("--pjrt-plugin and its options are for a bare pytest run: `pjrt-cts run` takes "
                                "the plugin itself")
    _load_worker_plugin(config.pluginmanager)
    inherited = _context_env() in os.environ and hasattr(config, "workerinput")  # an xdist worker of a bare run
    options = run_options(config)
    _check_loader_environment(options.worker_env)
    out_dir = _inherited_out_dir() if inherited else tempfile.mkdtemp(prefix="pjrt-cts-pytest-")
    options = dataclasses.replace(options, out_dir=Path(out_dir))
    if not inherited:
        _set_environment(config, options)
    # An xdist controller shows what its workers judged.
    judging = hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None)
    from pjrt_cts.cli.bare_run import BareRun

    config.pluginmanager.register(BareRun(options, config.rootpath, judging), PLUGIN_NAME)


def _load_worker_plugin(manager: pytest.PytestPluginManager) -> None:
    """The runner's `-p` entry (pjrt_cts.runner.worker.plugin), which registers the outcome mapping and the suites'
    fixtures once (`pjrt-cts-outcomes`, `pjrt-cts-fixtures`) and the markers: suites/pytest.ini loads it, but pytest
    reads another ini when an argument outside suites/ looks like a path (as the plugin's own: `--pjrt-plugin
    /path/plugin.so`) and moves the rootdir up to where both are. Registered then (by its `-p` name: its historic
    hooks, options and configure, run at once), never a second time; a module imported here is not one pytest's
    assertion rewriting could take (import_plugin would warn)."""
    from pjrt_cts.runner.worker import plugin as worker_plugin

    if not (manager.has_plugin(worker_plugin.__name__) or manager.has_plugin(worker_plugin.PLUGIN_NAME)):
        manager.register(worker_plugin, worker_plugin.__name__)


def run_options(config: pytest.Config) -> RunOptions:
    """The run's options, resolved as `pjrt-cts run` resolves its own (a mistake is a usage error of pytest); its
    output directory is the caller's to choose."""
    from pjrt_cts.cli.main import UsageError
    from pjrt_cts.cli.plugin_arg import resolve_plugin
    from pjrt_cts.cli.run import run_options as options_of

    given = config.getoption("pjrt_plugin", None)
    is_path = given is not None and ("/" in given or Path(given).is_file())
    try:
        plugin = resolve_plugin(given if is_path else None, None if is_path else given)
        return options_of(plugin, list(config.getoption("pjrt_create_options")), config.getoption("pjrt_expectations"),
                          suites_dir=_suites_dir(config), layers=[], out_dir=Path())
    except UsageError as exc:
        raise pytest.UsageError(f"pjrt-cts: {exc}") from None


def _suites_dir(config: pytest.Config) -> Path:
    """The suites this session runs: its rootdir where suites/pytest.ini made it so, else the installed ones."""
    if config.inipath is not None and config.inipath.name == "pytest.ini" and (config.rootpath / "conftest.py").is_file():
        return config.rootpath
    from pjrt_cts.resources import suites_dir

    return suites_dir()


def _check_loader_environment(needed: dict[str, str]) -> None:
    missing = {name: value for name, value in needed.items()
               if name in _LOADER_VARIABLES and os.environ.get(name) != value}
    if missing:
        prefix = shlex.join(["env", *(f"{name}={value}" for name, value in missing.items())])
        raise pytest.UsageError(f"the profile's runtime needs {', '.join(missing)} set when the process starts (the "
                                f"dynamic loader reads them once): run `{prefix} pytest ...`")


def _context_env() -> str:
    from pjrt_cts.schema import CONTEXT_ENV

    return CONTEXT_ENV


def _inherited_out_dir() -> str:
    from pjrt_cts.schema import run_context

    return run_context().out_dir


def _set_environment(config: pytest.Config, options: RunOptions) -> None:
    """What every process of this run reads (this one, xdist workers, isolated children, the tests' own children):
    the run context, in the run's output directory (a temporary one, removed with the session), and the profile's
    runtime environment."""
    path = options.out_dir / ".run" / "context.json"
    options.context(blocks_file=None).write(path)
    changed = {**options.worker_env, _context_env(): str(path)}
    before = {name: os.environ.get(name) for name in changed}
    os.environ.update(changed)

    def restore() -> None:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(options.out_dir, ignore_errors=True)

    config.add_cleanup(restore)
