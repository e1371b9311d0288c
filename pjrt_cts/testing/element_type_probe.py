"""Child process of `requires(element_type=...)` for a type newer than the plugin's API (old plugins may crash on
an enum value they do not know): upload two zeros of the type and print the plugin's answer.

    python -m pjrt_cts.testing.element_type_probe PLUGIN CREATE_OPTIONS_JSON BUFFER_TYPE_VALUE
"""
from __future__ import annotations

import json
import sys

import numpy as np


def main(argv: list[str]) -> int:
    plugin_path, options_json, type_value = argv
    from pjrt_cts.abi.enums import BufferType
    from pjrt_cts.fuzz.isolate import result_line
    from pjrt_cts.runtime import PjrtError, Plugin
    from pjrt_cts.runtime.dtypes import BUFFER_TYPE_TO_DTYPE

    dtype = BUFFER_TYPE_TO_DTYPE[BufferType(int(type_value))]
    with Plugin.load(plugin_path).create_client(json.loads(options_json)) as client:
        try:
            client.buffer_from_numpy(np.zeros(2, dtype)).close()
        except PjrtError as error:
            print(result_line({"status": "error", "code": error.code, "message": error.message[:500]}), flush=True)
            return 0
    print(result_line({"status": "ok"}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
