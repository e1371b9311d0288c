"""A stand-in for `python -m pjrt_cts.fuzz.child run`: same protocol, no plugin.

Inputs containing CRASH abort the process, HANG sleeps forever, SPIN loops on the CPU forever, COMPILE "compiles";
others error.
STATEFUL crashes only when run after other inputs (not alone).
argv: INPUTS_JSONL START RESULT_FD [--fail-startup]   or   --reproduce FILE
Run as a script, or as `python -m fake_child` (main(argv), as pjrt_cts.fuzz.child is): with FAKE_CHILD_PARENTS set,
it appends its parent's pid to that file.
"""
import base64
import json
import os
import sys
import time


def reproduce(path: str) -> None:
    data = open(path, "rb").read()
    if b"CRASH" in data:
        os.abort()
    if b"HANG" in data:
        time.sleep(600)
    print('PJRT_CTS_RESULT {"status": "error", "code": "INVALID_ARGUMENT"}', flush=True)


def main(argv: list | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if os.environ.get("FAKE_CHILD_PARENTS"):
        with open(os.environ["FAKE_CHILD_PARENTS"], "a") as parents:
            parents.write(f"{os.getppid()}\n")
    if argv[0] == "--reproduce":
        reproduce(argv[1])
        return 0
    inputs_path, start, fd = argv[0], int(argv[1]), int(argv[2])
    if "--fail-startup" in argv:
        sys.exit(3)
    out = os.fdopen(fd, "w")

    def emit(payload: dict) -> None:
        out.write(json.dumps(payload) + "\n")
        out.flush()

    emit({"event": "ready"})
    with open(inputs_path) as handle:
        for position, line in enumerate(handle):
            if position < start:
                continue
            entry = json.loads(line)
            data = base64.b64decode(entry["data"])
            emit({"event": "start", "n": entry["n"]})
            if b"CRASH" in data or (b"STATEFUL" in data and position > start):
                sys.stderr.write("fake plugin: Check failed: CRASH input\n")
                sys.stderr.flush()
                os.abort()
            if b"HANG" in data:
                time.sleep(600)
            while b"SPIN" in data:
                pass
            if b"COMPILE" in data:
                emit({"event": "done", "n": entry["n"], "status": "compiled"})
            else:
                emit({"event": "done", "n": entry["n"], "status": "error", "code": "INVALID_ARGUMENT",
                      "message": "fake parse error"})
    emit({"event": "end"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
