"""The typed shapes of what crosses a process or file boundary (issue 30).

Inside a process the code is typed; the moment data crosses a process or file boundary it used to become
strings and dicts. This module is the one place those shapes are declared, as frozen dataclasses with
`to_json` / `from_json`, checked with mypy's strict flags:

- the run context: what a worker, an isolated child, a robustness/fuzz child, a multi-process node, a framework
  child or the proxy needs to know about the run (one context file, named by one environment variable);
- the test record: one test's outcome, as results.jsonl and results.json store it;
- the results: the whole results.json.

File formats stay compatible: `from_json` reads what earlier versions wrote.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

# -- the run context ----------------------------------------------------------------------------------------
# `pjrt-cts run` writes one context file per run (out/.run/context.json) and names it in one environment variable,
# CONTEXT_ENV, which every process it starts inherits: workers, isolated children, robustness/fuzz children,
# multi-process nodes, framework children. They all read it through `run_context()`; no other environment variable
# carries the run. A bare `pytest suites/...` has no context file and gets the defaults: the bundled plugin with
# DEFAULT_CPU_OPTIONS, out/ as output directory, and the user settings of the environment (UserSettings).

CONTEXT_ENV = "PJRT_CTS_CONTEXT"  # path of the run's context file
CONTEXT_SCHEMA_VERSION = 1
DEFAULT_CPU_OPTIONS: Mapping[str, Any] = {"cpu_device_count": 4}  # the bundled plugin, run without a context file
DEFAULT_FUZZ_SEED = 20260701  # runs are reproducible by default

# Settings a person sets by hand in the environment of `pjrt-cts run` (or of a bare pytest run); read only by
# UserSettings.from_environment, when the run context is made, and recorded in it.
FUZZ_SEED_ENV = "PJRT_CTS_FUZZ_SEED"  # seed of the robustness layer's MLIR mutation fuzzer
NUM_NODES_ENV = "PJRT_CTS_NUM_NODES"  # node processes the multiprocess layer starts
KV_BACKEND_ENV = "PJRT_CTS_KV_BACKEND"  # store behind the multiprocess nodes' KV callbacks: auto | jaxlib | loopback


@dataclass(frozen=True)
class UserSettings:
    """The user's knobs of the robustness and multiprocess layers (docs/ARCHITECTURE.md, "User settings")."""

    fuzz_seed: int = DEFAULT_FUZZ_SEED
    num_nodes: int = 2
    kv_backend: str = "auto"  # checked where a store is opened (pjrt_cts.kvstore.requested_backend)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> UserSettings:
        """The settings of `environ` (default os.environ); ValueError names the variable of a malformed one."""
        env = os.environ if environ is None else environ
        seed = env.get(FUZZ_SEED_ENV, "").strip()
        nodes = env.get(NUM_NODES_ENV, "").strip()
        try:
            fuzz_seed = int(seed, 0) if seed else DEFAULT_FUZZ_SEED
        except ValueError:
            raise ValueError(f"{FUZZ_SEED_ENV}={seed!r}: not an integer") from None
        try:
            num_nodes = int(nodes) if nodes else 2
        except ValueError:
            raise ValueError(f"{NUM_NODES_ENV}={nodes!r}: not an integer") from None
        kv_backend = (env.get(KV_BACKEND_ENV) or "auto").strip().lower()
        return cls(fuzz_seed=fuzz_seed, num_nodes=num_nodes, kv_backend=kv_backend)

    def to_json(self) -> dict[str, Any]:
        return {"fuzz_seed": self.fuzz_seed, "num_nodes": self.num_nodes, "kv_backend": self.kv_backend}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> UserSettings:
        return cls(fuzz_seed=int(data.get("fuzz_seed", DEFAULT_FUZZ_SEED)), num_nodes=int(data.get("num_nodes", 2)),
                   kv_backend=str(data.get("kv_backend", "auto")))


@dataclass(frozen=True)
class RunContext:
    """What any process of a run needs to know about it: the plugin under test and how to create its client,
    where the run's files go, and what the controller decided for its workers."""

    plugin_path: str | None = None  # None: the bundled plugin (pjrt_cts.runtime.default_plugin_path)
    create_options: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_CPU_OPTIONS))
    profile: str = ""  # profile name; "" for a bare plugin path
    out_dir: str = "out"  # the run's output directory (reproduction files go below it)
    # PJRT error code names with which the profile documents that PJRT_Client_Create finds no device here
    no_device_codes: frozenset[str] = frozenset()
    blocks_file: str | None = None  # the preflight's and crash storms' blocks (pjrt_cts.runner.blocks)
    settings: UserSettings = field(default_factory=UserSettings)

    def to_json(self) -> dict[str, Any]:
        return {"schema_version": CONTEXT_SCHEMA_VERSION, "plugin_path": self.plugin_path,
                "create_options": dict(self.create_options), "profile": self.profile, "out_dir": self.out_dir,
                "no_device_codes": sorted(self.no_device_codes), "blocks_file": self.blocks_file,
                "settings": self.settings.to_json()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunContext:
        version = data.get("schema_version")
        if version != CONTEXT_SCHEMA_VERSION:
            raise ValueError(f"run context schema_version {version!r}: this pjrt-cts reads {CONTEXT_SCHEMA_VERSION}")
        plugin_path = data.get("plugin_path")
        blocks_file = data.get("blocks_file")
        return cls(plugin_path=str(plugin_path) if plugin_path else None,
                   create_options=dict(data.get("create_options") or {}), profile=str(data.get("profile") or ""),
                   out_dir=str(data.get("out_dir") or "out"),
                   no_device_codes=frozenset(str(code).strip().upper() for code in data.get("no_device_codes") or ()),
                   blocks_file=str(blocks_file) if blocks_file else None,
                   settings=UserSettings.from_json(data.get("settings") or {}))

    def write(self, path: Path) -> None:
        """Write the context file atomically (a child may start reading it at any moment)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        partial.write_text(json.dumps(self.to_json(), indent=1, sort_keys=True), encoding="utf-8")
        partial.replace(path)

    @classmethod
    def read(cls, path: Path) -> RunContext:
        return cls.from_json(json.loads(path.read_text(encoding="utf-8")))


def context_environment(path: Path) -> dict[str, str]:
    """The one variable a process started for a run needs: the run's context file, written at `path`."""
    return {CONTEXT_ENV: str(path)}


def run_context() -> RunContext:
    """The context of the run this process belongs to: the file CONTEXT_ENV names, else the defaults of a bare
    pytest run (the bundled plugin, out/, the user settings of the environment). The one reader of the run."""
    path = os.environ.get(CONTEXT_ENV)
    if path:
        return RunContext.read(Path(path))
    return RunContext(settings=UserSettings.from_environment())


# -- test records and results -------------------------------------------------------------------------------
