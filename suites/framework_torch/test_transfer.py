"""Tensor transfers between PyTorch's CPU and the plugin, per dtype torch supports: `t.to(xla)` then `.cpu()` is
bit-exact (PJRT_Client_BufferFromHostBuffer, PJRT_Buffer_ToHostBuffer; no program runs)."""
from __future__ import annotations

from typing import Any

import pytest

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "uint16", "int32", "uint32",
          "int64", "uint64", "bool", "complex64", "complex128", "float8_e4m3fn", "float8_e5m2"]
SHAPES = {"scalar": (), "vector": (7,), "matrix": (3, 5), "empty": (0, 3)}


def check_round_trip(ctx: Any, dtype: str, shape: list[int]) -> dict[str, Any]:
    torch = ctx.torch
    ctx.op = f"tensor.to(xla).cpu() [{dtype}]"
    torch_dtype = getattr(torch, dtype)
    generator = torch.Generator().manual_seed(7)
    values = torch.randint(-100, 100, tuple(shape), generator=generator)
    if torch_dtype.is_floating_point or torch_dtype.is_complex:
        values = torch.randn(tuple(shape), generator=generator) * 10
        if torch_dtype.is_complex:
            values = torch.complex(values, -values)
    elif torch_dtype == torch.bool:
        values = values > 0
    elif not torch_dtype.is_signed:
        values = values.abs()
    host = values.to(torch_dtype)
    placed = ctx.to_device(host)
    assert placed.device.type == "xla", f"tensor.to({ctx.device}) gave a tensor on {placed.device}"
    assert placed.dtype == torch_dtype and tuple(placed.shape) == tuple(shape), (
        f"tensor.to({ctx.device}): dtype/shape {placed.dtype}/{tuple(placed.shape)}, expected {torch_dtype}/{shape}")
    back = ctx.to_host(placed)
    return ctx.comparison(back, host, op=f"tensor.to(xla).cpu() [{dtype}]", exact=True)


@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_is_exact(torch_sut: Any, torch_check: Any, dtype: str, shape: str) -> None:
    torch_check(__file__, "check_round_trip", dtype=dtype, shape=list(SHAPES[shape]))


def check_copy_between_devices(ctx: Any) -> dict[str, Any]:
    torch = ctx.torch
    host = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    first = ctx.to_device(host, ctx.devices[0])
    with ctx.stage("transfer_to_device"):
        second = first.to(ctx.devices[-1])
    assert str(second.device) == str(ctx.devices[-1]), f"tensor.to({ctx.devices[-1]}) is on {second.device}"
    return ctx.comparison(ctx.to_host(second), host, op=f"tensor.to({ctx.devices[-1]})", exact=True)


def test_copy_to_last_device_is_exact(torch_sut: Any, torch_check: Any) -> None:
    torch_check(__file__, "check_copy_between_devices")
