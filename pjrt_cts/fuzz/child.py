"""Fuzz child: compile inputs one by one with the plugin under test, one result line per input.

    python -m pjrt_cts.fuzz.child run PLUGIN OPTIONS_JSON INPUTS_JSONL START RESULT_FD
    python -m pjrt_cts.fuzz.child reproduce PLUGIN OPTIONS_JSON PROGRAM_FILE

`run` writes JSON lines to RESULT_FD: {"event": "ready"}, then per input {"event": "start", "n"}
before the compile and {"event": "done", "n", "status": "compiled"|"error", "code", "message"}
after it, and {"event": "end"} at the end. If the process dies, the parent knows which input was
being compiled from the last "start" without a "done". `reproduce` compiles one saved input and
prints the answer (the reproduction command of a finding).
"""
from __future__ import annotations

import base64
import json
import os
import sys
from typing import Any, TextIO

MESSAGE_LIMIT = 500
ZERO_PADDING = 4096


def _emit(stream: TextIO, payload: dict[str, Any]) -> None:
    stream.write(json.dumps(payload) + "\n")
    stream.flush()


def _open_client(plugin_path: str, options_json: str) -> Any:
    from pjrt_cts.runtime import Plugin

    plugin = Plugin.load(plugin_path)
    return plugin.create_client(json.loads(options_json or "{}"))


def compile_one(client: Any, data: bytes) -> dict[str, Any]:
    """PJRT_Client_Compile of `data` as "mlir", followed (beyond code_size) by ZERO_PADDING zero bytes.

    Frameworks pass a NUL-terminated std::string. The padding makes findings deterministic: XLA's
    text and bytecode readers read past code_size, and what lies there would otherwise decide between
    an error and a crash. Reading beyond code_size is checked on its own by the robustness layer
    (guard-page tests), not by the fuzzer.
    """
    import ctypes

    from pjrt_cts.abi import structs
    from pjrt_cts.runtime import LoadedExecutable, PjrtError, compile_options_bytes

    code = ctypes.create_string_buffer(data, len(data) + ZERO_PADDING)
    program_format = ctypes.create_string_buffer(b"mlir")
    program = structs.PJRT_Program(code=ctypes.addressof(code), code_size=len(data),
                             format=ctypes.addressof(program_format), format_size=4)
    options = compile_options_bytes()
    options_buffer = ctypes.create_string_buffer(options, len(options))
    args = structs.PJRT_Client_Compile_Args(client=client.handle, program=ctypes.addressof(program),
                                      compile_options=ctypes.addressof(options_buffer),
                                      compile_options_size=len(options))
    try:
        client.plugin.call("Client_Compile", args)
    except PjrtError as error:
        return {"status": "error", "code": error.code, "message": error.message[:MESSAGE_LIMIT]}
    LoadedExecutable(client, args.executable).close()
    return {"status": "compiled"}


def run(plugin_path: str, options_json: str, inputs_path: str, start: int, result_fd: int) -> int:
    out = os.fdopen(result_fd, "w", encoding="utf-8")
    client = _open_client(plugin_path, options_json)
    _emit(out, {"event": "ready"})
    with open(inputs_path, encoding="utf-8") as handle:
        for position, line in enumerate(handle):
            if position < start:
                continue
            entry = json.loads(line)
            _emit(out, {"event": "start", "n": entry["n"]})
            answer = compile_one(client, base64.b64decode(entry["data"]))
            _emit(out, {"event": "done", "n": entry["n"], **answer})
    _emit(out, {"event": "end"})
    client.close()
    return 0


def reproduce(plugin_path: str, options_json: str, program_file: str) -> int:
    from pjrt_cts.fuzz.isolate import result_line

    client = _open_client(plugin_path, options_json)
    with open(program_file, "rb") as handle:
        answer = compile_one(client, handle.read())
    print(result_line(answer), flush=True)
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 6 and argv[0] == "run":
        return run(argv[1], argv[2], argv[3], int(argv[4]), int(argv[5]))
    if len(argv) == 4 and argv[0] == "reproduce":
        return reproduce(argv[1], argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
