"""Version negotiation between PyTorch/XLA and the plugin: torch_xla's PJRT C API version (learned from its loader),
the plugin's, and whether the plugin takes the older framework's structs. The prediction, made with a real
PJRT_LoadedExecutable_Execute through pjrt_cts.runtime, must match what torch_xla then sees."""
from __future__ import annotations

from typing import Any


def test_torch_xla_names_its_pjrt_api_version(torch_sut: Any, record_details: Any) -> None:
    probe = torch_sut.framework
    record_details(framework_output=probe.output[-500:], plugin_version=list(torch_sut.plugin_version))
    assert probe.framework_version is not None, (
        f"torch_xla with ENABLE_PJRT_COMPATIBILITY=false neither accepted the plugin nor named its framework PJRT "
        f"API version: {probe.output[-500:]}")
    record_details(framework_version=list(probe.framework_version))


def test_torch_xla_loads_a_plugin_of_its_major(torch_sut: Any) -> None:
    """XLA's loader (compatibility on) accepts a plugin of the same major: PJRT_Plugin_Initialize and
    PJRT_Client_Create went through (the child is up)."""
    framework = torch_sut.framework.framework_version
    assert framework is None or framework[0] == torch_sut.plugin_version[0], torch_sut.negotiation_summary()
    assert torch_sut.info.ok


def check_add(ctx: Any) -> dict[str, Any]:
    torch = ctx.torch
    x = torch.arange(4, dtype=torch.float32)
    return ctx.compare(lambda a: a + a, x, op="torch.add")


def test_execution_agrees_with_the_plugins_answer(torch_sut: Any, record_details: Any) -> None:
    """When the plugin accepts torch_xla's PJRT_ExecuteOptions, torch.add runs and matches; when it rejects them,
    torch_xla raises (no crash) in PJRT_LoadedExecutable_Execute with the plugin's message."""
    from pjrt_cts.framework import torch_session as ts

    probe = torch_sut.execute_options
    record_details(negotiation=torch_sut.negotiation_summary())
    try:
        result = torch_sut.child("plugin").call(__file__, "check_add", timeout=100)
    except ts.CheckError as error:
        failure = error.failure
        record_details(torch_error=failure.describe()[:1000])
        assert probe is not None and not probe.accepted, (
            f"the plugin accepts PJRT API {torch_sut.framework.framework_version}'s PJRT_ExecuteOptions through "
            f"pjrt_cts.runtime, but torch.add under PyTorch/XLA failed: {failure.describe()}")
        assert failure.pjrt_function == "PJRT_LoadedExecutable_Execute", (
            f"the plugin rejects the framework's PJRT_ExecuteOptions ({probe.describe()}), but torch_xla failed "
            f"elsewhere: {failure.describe()}")
        assert str(probe.size) in failure.message, (
            f"torch_xla's error does not carry the plugin's rejection of struct size {probe.size}: {failure.message}")
        return
    assert probe is None or probe.accepted, (
        f"pjrt_cts.runtime saw the plugin reject the framework's struct ({probe.describe()}), yet torch_xla ran")
    from pjrt_cts.framework.compare import mismatches

    assert not mismatches(result["actual"], result["expected"], exact=True), result
