"""Every single-device golden program compiles from StableHLO text and from each portable artifact it ships.

Multi-device cases (num_devices:N, spmd, replicas) are the multidevice layer's and are not collected here.
A portable artifact newer than the plugin's `stablehlo_current_version` attribute (or older than its
`stablehlo_minimum_version`) is NOT_SUPPORTED: the plugin declares it cannot read it.
"""
from __future__ import annotations

import pytest

from _programs import compiled_golden, golden_bytecode_params, golden_param, mismatch_message, record_details, run


def _version_tuple(value) -> tuple[int, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(int(part) for part in value.split("."))
    return tuple(int(part) for part in value)


def _require_readable(plugin, case, version: str) -> None:
    from pjrt_cts.model import NotSupported

    artifact = _version_tuple(case.stablehlo_version(version))
    attributes = plugin.attributes
    newest = _version_tuple(attributes.get("stablehlo_current_version"))
    oldest = _version_tuple(attributes.get("stablehlo_minimum_version"))
    if artifact is not None and newest is not None and artifact > newest:
        raise NotSupported(f"portable artifact is StableHLO {case.stablehlo_version(version)}, newer than the plugin's "
                           f"stablehlo_current_version {'.'.join(map(str, newest))}")
    if artifact is not None and oldest is not None and artifact < oldest:
        raise NotSupported(f"portable artifact is StableHLO {case.stablehlo_version(version)}, older than the plugin's "
                           f"stablehlo_minimum_version {'.'.join(map(str, oldest))}")


@golden_param()
def test_golden_program_compiles_from_text(client, case):
    executable = compiled_golden(client, case, "text")
    assert executable.num_outputs == len(case.output_specs), (
        f"PJRT_Executable_NumOutputs of golden case {case.id}: {executable.num_outputs}, "
        f"the program returns {len(case.output_specs)}"
    )


@pytest.mark.parametrize("case,version", golden_bytecode_params())
def test_golden_program_compiles_from_bytecode(request, plugin, client, case, version):
    _require_readable(plugin, case, version)
    executable = compiled_golden(client, case, version)
    inputs = case.inputs()
    actual = run(executable, client, inputs)
    message, details = mismatch_message(
        f"PJRT_LoadedExecutable_Execute of golden case {case.id} compiled from its {version} portable artifact",
        actual, case.expected(), lambda _dtype: case.tolerance)
    if details:
        record_details(request, dict(details, case_id=case.id, op=",".join(case.ops)))
    assert message is None, message
