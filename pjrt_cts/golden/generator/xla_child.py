"""XLA's answer for a spec-reference case, computed in a child process: a valid program may abort XLA.

`XlaOracle.run(program, inputs)` sends the program to a long-lived child (`python -m
pjrt_cts.golden.generator.xla_child`) that compiles it with JAX's CPU backend and runs it once. A child
that dies (SIGABRT from a failed CHECK, SIGSEGV) or stops answering is reported as that outcome and
replaced for the next case. Protocol: one JSON line per request on stdin, one per answer on stdout;
arrays travel as .npz files in a scratch folder.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import dataclasses
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Sequence

import numpy as np

from pjrt_cts.golden import dtypes as golden_dtypes
from pjrt_cts.golden.npzio import load_npz_bytes, npz_bytes

ANSWER_TIMEOUT_S = 300.0


@dataclasses.dataclass(frozen=True)
class XlaOutcome:
    status: str  # "ok" | "compile_error" | "runtime_error" | "abort" | "hang"
    outputs: tuple[np.ndarray, ...] = ()
    message: str = ""


def _save(path: Path, arrays: Sequence[np.ndarray]) -> list[str]:
    path.write_bytes(npz_bytes({f"a{i}": golden_dtypes.to_storable(np.asarray(a)) for i, a in enumerate(arrays)}))
    return [golden_dtypes.name_of(np.asarray(a).dtype) for a in arrays]


def _load(path: Path, names: Sequence[str]) -> list[np.ndarray]:
    arrays = load_npz_bytes(path.read_bytes())
    return [golden_dtypes.from_storable(arrays[f"a{i}"], name) for i, name in enumerate(names)]


class XlaOracle:
    """One child at a time; `close()` (or the context manager) ends it."""

    def __init__(self, command: Sequence[str] | None = None, answer_timeout_s: float = ANSWER_TIMEOUT_S) -> None:
        # `command` replaces the child (tests use one that aborts or hangs)
        self._command = list(command or [sys.executable, "-m", "pjrt_cts.golden.generator.xla_child"])
        self._answer_timeout_s = answer_timeout_s
        self._scratch = Path(tempfile.mkdtemp(prefix="pjrt_cts_xla_"))
        self._child: subprocess.Popen[str] | None = None
        self._count = 0

    def __enter__(self) -> "XlaOracle":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._child is not None:
            self._child.kill()
            self._child.wait()
            self._child = None

    def _start(self) -> subprocess.Popen[str]:
        if self._child is None or self._child.poll() is not None:
            env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
            self._child = subprocess.Popen(self._command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                           stderr=subprocess.DEVNULL, text=True, env=env)
        return self._child

    def run(self, program: str, inputs: Sequence[np.ndarray]) -> XlaOutcome:
        self._count += 1
        stem = self._scratch / f"case{self._count}"
        program_path = stem.with_suffix(".mlir")
        program_path.write_text(program)
        names = _save(stem.with_suffix(".in.npz"), inputs)
        child = self._start()
        assert child.stdin is not None and child.stdout is not None
        request = {"program": str(program_path), "inputs": str(stem.with_suffix(".in.npz")), "input_dtypes": names,
                   "outputs": str(stem.with_suffix(".out.npz"))}
        try:
            child.stdin.write(json.dumps(request) + "\n")
            child.stdin.flush()
        except BrokenPipeError:
            pass
        ready, _, _ = select.select([child.stdout], [], [], self._answer_timeout_s)
        line = child.stdout.readline() if ready else ""
        if not line:
            if not ready:
                self.close()
                return XlaOutcome("hang", message=f"no answer in {self._answer_timeout_s:.0f} s")
            code = child.wait()
            self._child = None
            name = signal.Signals(-code).name if code < 0 else f"exit status {code}"
            return XlaOutcome("abort", message=f"the process died ({name})")
        answer = json.loads(line)
        if answer["status"] != "ok":
            return XlaOutcome(answer["status"], message=answer["message"])
        return XlaOutcome("ok", tuple(_load(Path(request["outputs"]), answer["output_dtypes"])))


def _serve() -> None:
    from pjrt_cts.golden.generator.core import compile_on_jax_cpu, execute_on_jax_cpu  # configures JAX first

    for line in sys.stdin:
        request = json.loads(line)
        text = Path(request["program"]).read_text()
        inputs = _load(Path(request["inputs"]), request["input_dtypes"])
        try:
            executable = compile_on_jax_cpu(text)
        except Exception as exc:  # noqa: BLE001 - XLA raises XlaRuntimeError and others; each is the answer
            answer = {"status": "compile_error", "message": f"{type(exc).__name__}: {exc}"}
        else:
            try:
                outputs = execute_on_jax_cpu(executable, inputs)
                answer = {"status": "ok", "output_dtypes": _save(Path(request["outputs"]), outputs)}
            except Exception as exc:  # noqa: BLE001 - any failure to run the program is XLA's answer
                answer = {"status": "runtime_error", "message": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _serve()
