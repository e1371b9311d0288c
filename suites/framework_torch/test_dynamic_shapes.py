"""Data-dependent output shapes (nonzero, masked_select, unique): XLA programs have static shapes, and torch_xla
2.9 runs these ops on the host CPU (aten fallback) unless told otherwise. Each is NOT_SUPPORTED on the device with
PyTorch/XLA's reason (the fallback it reports in torch_xla.debug.metrics) when it falls back; where torch_xla runs it
on the device, its values must match PyTorch's CPU."""
from __future__ import annotations

from typing import Any

from pjrt_cts.testing import requires


def _data(torch: Any) -> Any:
    return torch.tensor([[0.0, 1.5, 0.0, -2.0], [3.0, 0.0, 3.0, 1.5]])


def check_nonzero(ctx: Any) -> dict[str, Any]:
    return ctx.compare(lambda x: ctx.torch.nonzero(x), _data(ctx.torch), op="torch.nonzero", exact=True)


def check_masked_select(ctx: Any) -> dict[str, Any]:
    return ctx.compare(lambda x: ctx.torch.masked_select(x, x > 0), _data(ctx.torch), op="torch.masked_select",
                       exact=True)


def check_unique(ctx: Any) -> dict[str, Any]:
    return ctx.compare(lambda x: ctx.torch.unique(x, sorted=True), _data(ctx.torch), op="torch.unique", exact=True)


def _needs_execution(request: Any) -> None:
    """Asked for after the feature probe: torch_xla's fallback is NOT_SUPPORTED whether or not programs run."""
    request.getfixturevalue("torch_executing")


@requires(feature="dynamic_nonzero")
def test_nonzero_on_the_device(request: Any, torch_check: Any) -> None:
    _needs_execution(request)
    torch_check(__file__, "check_nonzero")


@requires(feature="dynamic_masked_select")
def test_masked_select_on_the_device(request: Any, torch_check: Any) -> None:
    _needs_execution(request)
    torch_check(__file__, "check_masked_select")


@requires(feature="dynamic_unique")
def test_unique_on_the_device(request: Any, torch_check: Any) -> None:
    _needs_execution(request)
    torch_check(__file__, "check_unique")
