"""jaxlib's distributed runtime service in a child process: `python -m pjrt_cts.kvstore.jaxlib_service SPEC_JSON`.

Why a child and not the launcher itself: the launcher is a pytest worker that has the plugin under test
loaded (jaxlib would be a second XLA in that process), and jaxlib ends processes on some errors; a child
also bounds the service's life (it stops at stdin EOF, so it dies with its launcher, or after `lifetime_s`).

The child prints one JSON line on stdout, {"address": "127.0.0.1:PORT", "seconds": S} or {"error": "..."}.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import collections
import json
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

_START_ATTEMPTS = 5  # a port picked free may be taken before the service binds it
_READY_TIMEOUT_S = 60.0


class BackendUnavailable(RuntimeError):
    """The jaxlib distributed runtime cannot serve this run (not importable, service did not start)."""


@dataclass(frozen=True)
class ServiceSettings:
    num_tasks: int
    heartbeat_timeout_s: float  # longer than the run: a dead task must not make the service abort the others
    register_timeout_s: float  # every task must connect within this
    lifetime_s: float

    def to_json(self) -> str:
        return json.dumps(self.__dict__)


def _free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start_service(settings: ServiceSettings) -> tuple[Any, str]:
    from pjrt_cts.kvstore.jaxlib_store import import_jaxlib_runtime

    runtime = import_jaxlib_runtime()
    last_error: Exception | None = None
    for _ in range(_START_ATTEMPTS):
        address = f"127.0.0.1:{_free_loopback_port()}"
        try:
            service = runtime.get_distributed_runtime_service(
                address, settings.num_tasks, heartbeat_timeout=max(1, int(settings.heartbeat_timeout_s)),
                cluster_register_timeout=max(1, int(settings.register_timeout_s)), shutdown_timeout=5)
            return service, address
        except RuntimeError as error:  # "Failed to start RPC server": the port was taken meanwhile
            last_error = error
    raise BackendUnavailable(f"the service did not start on 127.0.0.1 in {_START_ATTEMPTS} attempts: {last_error}")


def serve(settings: ServiceSettings) -> int:
    """Child side: start, announce the address, serve until stdin closes or the lifetime ends."""
    started = time.monotonic()
    try:
        service, address = _start_service(settings)
    except (ImportError, BackendUnavailable) as error:
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
        return 1
    print(json.dumps({"address": address, "seconds": time.monotonic() - started}), flush=True)
    reader = threading.Thread(target=sys.stdin.read, daemon=True)  # returns at EOF: the launcher closed stdin
    reader.start()
    reader.join(settings.lifetime_s)
    service.shutdown()
    return 0


class DistributedRuntimeService:
    """Launcher side: the service child; `address` once started. Use as a context manager (close() last,
    after every node has exited: a client whose service goes away aborts its process)."""

    def __init__(self, settings: ServiceSettings, env: dict[str, str] | None = None) -> None:
        self.settings = settings
        self.address = ""
        self.start_seconds = 0.0
        self._env = env
        self._process: subprocess.Popen[str] | None = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=40)

    def start(self) -> "DistributedRuntimeService":
        started = time.monotonic()
        self._process = subprocess.Popen(
            [sys.executable, "-m", "pjrt_cts.kvstore.jaxlib_service", self.settings.to_json()],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
            env=self._env, start_new_session=True)
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        line = self._first_line()
        try:
            message = json.loads(line) if line else {}
        except ValueError:
            message = {}
        if "address" not in message:
            self.close()
            why = message.get("error") or f"no address within {_READY_TIMEOUT_S:g} s (got {line[:200]!r})"
            raise BackendUnavailable(f"jaxlib distributed runtime service: {why}{self._stderr_tail()}")
        self.address = str(message["address"])
        self.start_seconds = time.monotonic() - started
        return self

    def _first_line(self) -> str:
        assert self._process is not None and self._process.stdout is not None
        stdout = self._process.stdout
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(stdout.readline()), daemon=True)
        reader.start()
        reader.join(_READY_TIMEOUT_S)
        return lines[0].strip() if lines else ""

    def _drain_stderr(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        for line in self._process.stderr:
            self._stderr.append(line.rstrip("\n"))

    def _stderr_tail(self) -> str:
        tail = [line for line in list(self._stderr) if line.strip()][-5:]
        return ("; stderr: " + " | ".join(tail)[-800:]) if tail else ""

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()  # EOF: the child shuts the service down and exits
            process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait(timeout=10)

    def __enter__(self) -> "DistributedRuntimeService":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    spec = json.loads(sys.argv[1])
    sys.exit(serve(ServiceSettings(**spec)))
