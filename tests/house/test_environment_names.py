"""One run context (issue 30): a run reaches its processes through one context file named by one environment
variable (pjrt_cts.schema.CONTEXT_ENV), read by pjrt_cts.schema.run_context. Every other `PJRT_CTS_*` name in the
package and the suites is on this list with the reason it is not part of the run context; a new one fails here.
"""
from __future__ import annotations

import re
from pathlib import Path

from pjrt_cts.runner.controller.session import Run, RunOptions
from pjrt_cts.schema import CONTEXT_ENV

REPO = Path(__file__).resolve().parents[2]
NAME = re.compile(r"PJRT_CTS_[A-Z0-9_]+")
SOURCES = ("pjrt_cts/**/*.py", "pjrt_cts/**/*.c", "pjrt_cts/**/*.h", "pjrt_cts/**/*.toml", "suites/**/*.py",
           "suites/**/*.ini")

ALLOWED = {
    CONTEXT_ENV: "the one variable of a run: names its context file (pjrt_cts.schema.run_context reads it)",
    # A person's settings, typed by hand; read once, by pjrt_cts.schema.UserSettings.from_environment, when the
    # run context is made (or for a bare pytest run), and recorded in the context.
    "PJRT_CTS_FUZZ_SEED": "user setting: the robustness layer's fuzzer seed (UserSettings)",
    "PJRT_CTS_NUM_NODES": "user setting: the multiprocess layer's node count (UserSettings)",
    "PJRT_CTS_KV_BACKEND": "user setting: the store behind the multiprocess nodes' KV callbacks (UserSettings)",
    # User settings of the machine, not of a run: read where the CLI resolves a profile or builds a helper.
    "PJRT_CTS_SITE_PACKAGES": "user setting: extra site-packages searched for plugin distributions (profiles.py)",
    "PJRT_CTS_CACHE_DIR": "user setting: where native helpers and the proxy plugin are compiled (native/)",
    # The runtime imports nothing of the project but the ABI, and the accounting must reach every process that
    # loads a plugin (the preflight probe, reproduction-script children), context reader or not.
    "PJRT_CTS_CALL_TIMES": "benchmark knob of the runtime's call-time hook (benchmarks/bench_run_overhead.py)",
    "PJRT_CTS_CALL_COUNTS": "where a worker and every process it starts count their PJRT calls (runtime/callcount.py: "
                            "each record's api_calls)",
    # The proxy is a PJRT plugin: like any plugin's, its settings are its environment (read by proxy.c).
    "PJRT_CTS_PROXY_TARGET": "the proxy plugin's own setting: the real plugin it forwards to",
    "PJRT_CTS_PROXY_DEFECT": "the proxy plugin's own setting: the defect it injects",
    "PJRT_CTS_PROXY_LEAK_BYTES": "the proxy plugin's own setting: bytes leaked per buffer by leak_per_buffer",
    # Not variables: prefixes of the lines a child prints on stdout for its parent.
    "PJRT_CTS_RESULT": "stdout line marker of a robustness/fuzz child's answer (fuzz/isolate.py)",
    "PJRT_CTS_CONTROL": "stdout line marker of a robustness child's control call (fuzz/isolate.py)",
    "PJRT_CTS_NODE": "stdout line marker of a multi-process node's events (multiprocess/node.py)",
}


def _names_in_sources() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for pattern in SOURCES:
        for path in sorted(REPO.glob(pattern)):
            for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                for name in NAME.findall(line):
                    found.setdefault(name, []).append(f"{path.relative_to(REPO)}:{number}")
    return found


def test_no_pjrt_cts_name_outside_the_allow_list() -> None:
    unknown = {name: where for name, where in _names_in_sources().items() if name not in ALLOWED}
    assert not unknown, ("new PJRT_CTS_* names: put what a run's processes need in the run context "
                         "(pjrt_cts.schema.RunContext), or add the name to ALLOWED with its reason:\n"
                         + "\n".join(f"  {name}: {', '.join(where[:3])}" for name, where in sorted(unknown.items())))


def test_every_allowed_name_is_still_used() -> None:
    stale = sorted(set(ALLOWED) - set(_names_in_sources()))
    assert not stale, f"allowed names no longer in the sources (drop them from ALLOWED): {stale}"


def test_the_runner_exports_one_variable_of_its_own(tmp_path: Path) -> None:
    """Workers get the context file's name and what third-party code reads (library paths, PYTHONPATH, ...)."""
    options = RunOptions(plugin_path=tmp_path / "plugin.so", suites_dir=tmp_path / "suites", layers=["abi"],
                         out_dir=tmp_path / "out", worker_env={"LD_LIBRARY_PATH": "/opt/runtime"})
    env = Run(options)._worker_environment()
    assert {name for name in env if name.startswith("PJRT_CTS_")} == {CONTEXT_ENV}
    assert env[CONTEXT_ENV] == str(tmp_path / "out" / ".run" / "context.json")
    assert env["LD_LIBRARY_PATH"] == "/opt/runtime"
