"""Child process of executable.serialization: load the plugin, DeserializeAndLoad, execute, save the outputs.

    python -m pjrt_cts.testing.deserialize_child PLUGIN CREATE_OPTIONS_JSON SERIALIZED_FILE INPUTS_NPZ DTYPES_JSON OUTPUTS_NPZ

Arrays travel through .npz in pjrt_cts.golden's storable form (bf16/fp8 as raw bits, names in DTYPES_JSON).

Exit status 0 with OUTPUTS_NPZ written, or 3 with the PJRT error on stderr.
"""
from __future__ import annotations

import json
import sys

import numpy as np


def to_storable(array: np.ndarray) -> np.ndarray:
    """npz holds ml_dtypes arrays (bf16, fp8...) as their raw bits; rank 0 stays rank 0."""
    from pjrt_cts.golden import dtypes as golden_dtypes

    array = np.asarray(array)
    if golden_dtypes.is_stored_as_bits(golden_dtypes.name_of(array.dtype)):
        return array.view(f"u{array.dtype.itemsize}")
    return array


def from_storable(array: np.ndarray, name: str) -> np.ndarray:
    from pjrt_cts.golden import dtypes as golden_dtypes

    return array.view(golden_dtypes.dtype_of(name)) if golden_dtypes.is_stored_as_bits(name) else array


def main(argv: list[str]) -> int:
    plugin_path, options_json, serialized_path, inputs_path, dtypes_path, outputs_path = argv
    from pjrt_cts.runtime import PjrtError, Plugin

    plugin = Plugin.load(plugin_path)
    with plugin.create_client(json.loads(options_json)) as client:
        try:
            with open(serialized_path, "rb") as handle:
                executable = client.deserialize_executable(handle.read())
            with np.load(inputs_path, allow_pickle=False) as data:
                names = json.loads(open(dtypes_path, encoding="utf-8").read())
                inputs = [from_storable(data[f"arg{i}"], name) for i, name in enumerate(names)]
            device = executable.addressable_devices[0]
            outputs = executable.execute([client.buffer_from_numpy(a, device) for a in inputs])
            results = {f"out{i}": to_storable(out.to_numpy()) for i, out in enumerate(outputs)}
        except PjrtError as error:
            print(f"{error.function}: {error.code}: {error.message}", file=sys.stderr)
            return 3
        np.savez(outputs_path, **results)  # type: ignore[arg-type]  # numpy's stub reads **kwds as allow_pickle
        for out in outputs:
            out.close()
        executable.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
