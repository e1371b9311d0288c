"""Spawn N node processes around one key-value store; collect their events within hard bounds.

The store behind the nodes' KV callbacks is jaxlib's distributed runtime service (a child process) or the
suite's loopback KeyValueServer (pjrt_cts.kvstore.backends); the launcher's own control keys (ready / go of
the peer-loss scenario) always go through the loopback server: the launcher is no task of jaxlib's service
(a task's process is aborted by jaxlib when the service reports an error, and the launcher is a pytest worker).
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import pjrt_cts
from pjrt_cts.kvstore import (JAXLIB, LOOPBACK, BackendUnavailable, DistributedRuntimeService,
                              KeyNotFound, KeyValueServer, KeyValueStore, ServiceSettings, jaxlib_unavailable_reason,
                              requested_backend)
from pjrt_cts.multiprocess.node import GO_KEY, MARKER, READY_KEY
from pjrt_cts.schema import KV_BACKEND_ENV

_STDERR_TAIL_LINES = 40
_EXIT_GRACE_S = 30.0  # after a peer-loss run has reported, time left for destroying clients and exiting
# jaxlib's service declares a task dead after heartbeat_timeout and then aborts every other task's process
# (jaxlib 0.10.2: LOG(QFATAL) in the client; a Python missed_heartbeat_callback ends in std::terminate). A
# SIGKILLed peer would then kill the survivors before they report the loss, and the peer-loss tests would
# measure jaxlib, not the plugin. So the timeout outlasts the whole run (the launcher kills nodes at timeout_s,
# their own watchdog fires at timeout_s + 30): within a run only the plugin's own handling of the loss counts.
_HEARTBEAT_MARGIN_S = 120.0
_REGISTER_TIMEOUT_S = (5.0, 30.0)  # every node connects to the service within this (clamped to the run)

NodeKv = Callable[[int, str], dict[str, Any]]  # (task index, control server address) -> the node's `kv` spec


@dataclass
class LaunchSpec:
    plugin: str
    num_nodes: int
    node_options: Sequence[dict[str, Any]]  # full create options per node
    scenario: str = "topology"  # topology | all_reduce | all_reduce_partitions | spmd_sum | after_peer_loss |
    #                             process_info | hang
    preload: Sequence[str] = ()
    environment: dict[str, str] = field(default_factory=dict)
    max_get_timeout_s: float = 60.0  # caps the plugin's KV get timeouts, so missing peers surface
    fail_puts: bool = False
    kv_callbacks: bool = True
    started_nodes: Sequence[int] | None = None  # default: all; fewer to leave a peer missing
    namespace: str = "pjrt/"
    kv_backend: str | None = None  # "auto" | "jaxlib" | "loopback"; None: the run context's (UserSettings.kv_backend)
    repeats: int = 1  # executions of a collective scenario's program (timed one by one)


@dataclass
class NodeReport:
    node_id: int
    events: list[dict[str, Any]] = field(default_factory=list)
    returncode: int | None = None
    killed_by_launcher: str = ""  # why the launcher killed it ("" if it exited by itself)
    released_at: float | None = None  # wall-clock time the go key was put (after_peer_loss runs)
    stderr_lines: list[str] = field(default_factory=list)
    kv_backend: str = ""  # JAXLIB or LOOPBACK: the store behind the KV callbacks in this run
    kv_backend_reason: str = ""  # why that one (requested, auto, or the fallback's cause)

    def event(self, name: str) -> dict[str, Any] | None:
        return next((e for e in self.events if e["event"] == name), None)

    def seconds_after_release(self, event: dict[str, Any]) -> float | None:
        """How long after the go key the node reported `event` (node and launcher share the host clock)."""
        return None if self.released_at is None else float(event["time"]) - self.released_at

    @property
    def stderr_tail(self) -> str:
        return "\n".join(self.stderr_lines[-_STDERR_TAIL_LINES:])

    def summary(self) -> str:
        """One paragraph for failure messages: last event, exit status, stderr tail."""
        last = self.events[-1] if self.events else {"event": "(none)"}
        status = f"killed by the launcher ({self.killed_by_launcher})" if self.killed_by_launcher else f"exit {self.returncode}"
        brief = {k: v for k, v in last.items() if k not in ("devices", "addressable", "kv", "time")}
        return f"node {self.node_id}: {status}; last event {json.dumps(brief)[:600]}; stderr tail:\n{self.stderr_tail[-2000:]}"


class _Node:
    def __init__(self, node_id: int, command: list[str], env: dict[str, str]) -> None:
        self.report = NodeReport(node_id)
        self.changed = threading.Condition()
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                        text=True, errors="replace", start_new_session=True)
        self._readers = [threading.Thread(target=self._read, args=(self.process.stdout, True), daemon=True),
                         threading.Thread(target=self._read, args=(self.process.stderr, False), daemon=True)]
        for reader in self._readers:
            reader.start()

    def _read(self, stream: Any, is_stdout: bool) -> None:
        for line in stream:
            line = line.rstrip("\n")
            with self.changed:
                if is_stdout and line.startswith(MARKER):
                    try:
                        self.report.events.append(json.loads(line[len(MARKER):]))
                    except ValueError:
                        self.report.stderr_lines.append(line)
                else:
                    self.report.stderr_lines.append(line)
                    del self.report.stderr_lines[:-200]
                self.changed.notify_all()

    def has_event(self, *names: str) -> bool:
        with self.changed:
            return any(e["event"] in names for e in self.report.events)

    def finished(self) -> bool:
        return self.process.poll() is not None

    def kill(self, why: str) -> None:
        if self.process.poll() is None:
            self.report.killed_by_launcher = self.report.killed_by_launcher or why  # the first reason stands
            try:
                os.killpg(self.process.pid, signal.SIGKILL)  # the node's own session: it and any children
            except ProcessLookupError:
                pass

    def collect(self) -> NodeReport:
        try:
            self.report.returncode = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.report.returncode = None
        for reader in self._readers:
            reader.join(timeout=5)
        return self.report


def _wait_until(condition: Callable[[], bool], deadline: float, poll_s: float = 0.05) -> bool:
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(poll_s)
    return condition()


def _node_environment(extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    root = str(Path(pjrt_cts.__file__).resolve().parent.parent)  # the node imports this same pjrt_cts
    env["PYTHONPATH"] = os.pathsep.join([root, *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]])
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def run_nodes(spec: LaunchSpec, *, timeout_s: float, kill_node: int | None = None,
              detection_bound_s: float | None = None) -> list[NodeReport]:
    """Run the nodes; every node is killed at `timeout_s` at the latest.

    With `kill_node`, once every node has put its ready key the launcher SIGKILLs that node, then
    puts the go key: the survivors run a collective that needs the dead node and must report an
    error within `detection_bound_s` (they are killed, and marked so, past it).

    The KV backend: jaxlib's service when requested or (auto) importable; auto falls back to the loopback
    server, saying why, when jaxlib is missing, its service does not start, or a node fails to connect
    (that run is then repeated on the loopback store). An explicit "jaxlib" never falls back.
    """
    requested = requested_backend(spec.kv_backend)
    started_nodes = list(range(spec.num_nodes)) if spec.started_nodes is None else list(spec.started_nodes)
    env = _node_environment(spec.environment)

    def launch(node_kv: NodeKv) -> list[NodeReport]:
        return _launch(spec, started_nodes, env, node_kv, timeout_s, kill_node, detection_bound_s)

    if requested == "loopback":
        return _stamp(launch(_loopback_kv), LOOPBACK, f"requested ({KV_BACKEND_ENV} or LaunchSpec.kv_backend)")
    why_not = jaxlib_unavailable_reason()
    if why_not is None:
        settings = _service_settings(len(started_nodes), timeout_s)
        try:
            with DistributedRuntimeService(settings, env) as service:
                reports = launch(_jaxlib_kv(service.address, settings))
        except BackendUnavailable as error:
            why_not = str(error)
        else:
            unconnected = _not_connected(reports)
            if not unconnected or requested == "jaxlib":
                return _stamp(reports, JAXLIB, "requested" if requested == "jaxlib" else "auto: jaxlib is importable")
            why_not = "nodes did not connect to the jaxlib service: " + " | ".join(unconnected)
    if requested == "jaxlib":
        raise BackendUnavailable(f"key-value backend jaxlib requested, but {why_not}")
    return _stamp(launch(_loopback_kv), LOOPBACK, f"auto fallback: {why_not}")


def _launch(spec: LaunchSpec, started_nodes: list[int], env: dict[str, str], node_kv: NodeKv, timeout_s: float,
            kill_node: int | None, detection_bound_s: float | None) -> list[NodeReport]:
    """One run of the started nodes around a loopback control server (also their store with `_loopback_kv`)."""
    deadline = time.monotonic() + timeout_s
    store = KeyValueStore()
    with KeyValueServer(store, lifetime_s=timeout_s + 30, max_get_timeout_s=max(timeout_s, spec.max_get_timeout_s)) as server:
        nodes: list[_Node] = []
        try:
            for task, node_id in enumerate(started_nodes):
                node_spec = {
                    "node_id": node_id, "num_nodes": spec.num_nodes, "plugin": spec.plugin, "options": dict(spec.node_options[node_id]),
                    "preload": [str(p) for p in spec.preload], "control_address": server.address_string,
                    "kv": node_kv(task, server.address_string),
                    "namespace": spec.namespace, "max_get_timeout_s": spec.max_get_timeout_s,
                    "fail_puts": spec.fail_puts, "kv_callbacks": spec.kv_callbacks, "scenario": spec.scenario,
                    "go_timeout_s": timeout_s, "watchdog_s": timeout_s + 30, "repeats": spec.repeats,
                }
                command = [sys.executable, "-m", "pjrt_cts.multiprocess.node", json.dumps(node_spec)]
                nodes.append(_Node(node_id, command, env))
            if kill_node is not None:
                _kill_and_release(store, nodes, kill_node, deadline, detection_bound_s or timeout_s)
                deadline = min(deadline, time.monotonic() + _EXIT_GRACE_S)  # reported: now only exiting is left
            for node in nodes:
                if not _wait_until(node.finished, deadline):
                    node.kill(f"still running at the launcher's deadline ({timeout_s:g} s bound)")
        finally:
            for node in nodes:
                node.kill("launcher cleanup")
        return [node.collect() for node in nodes]


def _loopback_kv(_task: int, control_address: str) -> dict[str, Any]:
    return {"backend": LOOPBACK, "address": control_address}


def _service_settings(num_tasks: int, timeout_s: float) -> ServiceSettings:
    low, high = _REGISTER_TIMEOUT_S
    return ServiceSettings(num_tasks=num_tasks, heartbeat_timeout_s=timeout_s + _HEARTBEAT_MARGIN_S,
                           register_timeout_s=min(max(low, timeout_s / 3), high),
                           lifetime_s=timeout_s + _HEARTBEAT_MARGIN_S)


def _jaxlib_kv(address: str, settings: ServiceSettings) -> NodeKv:
    def node_kv(task: int, _control_address: str) -> dict[str, Any]:
        return {"backend": JAXLIB, "address": address, "task_id": task, "num_tasks": settings.num_tasks,
                "init_timeout_s": settings.register_timeout_s, "heartbeat_timeout_s": settings.heartbeat_timeout_s}
    return node_kv


def _not_connected(reports: list[NodeReport]) -> list[str]:
    """Nodes that never reported their store (jaxlib aborts a node whose connect fails), one line each."""
    return [f"node {r.node_id}: exit {r.returncode}{' (' + r.killed_by_launcher + ')' if r.killed_by_launcher else ''}, "
            f"last event {r.events[-1]['event'] if r.events else '(none)'}: {_fatal_line(r.stderr_lines)}"
            for r in reports if r.event("kv_backend") is None]


def _fatal_line(lines: list[str]) -> str:
    """The line that says why a process ended: absl's FATAL log line (F<mmdd> ...), else the last line that is
    not part of a stack dump."""
    text = [line for line in lines if line.strip() and not line.startswith(("    @", "*** "))]
    fatal = [line for line in text if re.match(r"F\d{4} ", line)]
    return ((fatal or text or ["(no stderr)"])[-1]).strip()[:400]


def _stamp(reports: list[NodeReport], backend: str, reason: str) -> list[NodeReport]:
    for report in reports:
        report.kv_backend, report.kv_backend_reason = backend, reason
    return reports


def _kill_and_release(store: KeyValueStore, nodes: list[_Node], victim: int, deadline: float, bound_s: float) -> None:
    def all_ready() -> bool:
        ready = all(store_has(store, READY_KEY.format(n.report.node_id).encode()) for n in nodes)
        return ready or any(n.finished() for n in nodes)

    target = next((n for n in nodes if n.report.node_id == victim), None)
    if not _wait_until(all_ready, deadline) or target is None or any(n.finished() for n in nodes):
        for node in nodes:  # some node never got as far as the collective: its events say why
            node.kill("a node ended or stalled before the victim could be killed")
        return
    target.kill("victim")
    target.process.wait(timeout=10)
    released_at = time.time()
    for node in nodes:
        node.report.released_at = released_at
    store.put(GO_KEY, str(released_at).encode())
    bound = min(deadline, time.monotonic() + bound_s)
    for node in nodes:
        if node is target:
            continue
        if not _wait_until(lambda: node.finished() or node.has_event("collective", "collective_error", "error"), bound):  # noqa: B023 - called within this iteration
            node.kill(f"did not report the loss of node {victim} within {bound_s:g} s")


def store_has(store: KeyValueStore, key: bytes) -> bool:
    try:
        store.try_get(key)
        return True
    except KeyNotFound:
        return False
