"""`torch.compile(backend="openxla")`: dynamo captures the graph and torch_xla compiles and runs it on the plugin."""
from __future__ import annotations

from typing import Any


def check_compiled_function(ctx: Any) -> dict[str, Any]:
    torch = ctx.torch
    generator = torch.Generator().manual_seed(21)
    x, w = torch.randn(6, 8, generator=generator), torch.randn(8, 4, generator=generator)

    def fn(a: Any, b: Any) -> Any:
        return torch.tanh(a @ b).sum(dim=0) + torch.sin(a).mean()

    compiled = torch.compile(fn, backend="openxla")
    placed = ctx.to_device([x, w])
    with ctx.stage("execute", op='torch.compile(backend="openxla")'):
        out = compiled(*placed)
        again = compiled(*placed)  # the cached graph, run a second time
    return ctx.comparison(ctx.to_host([out, again]), [fn(x, w)] * 2, op='torch.compile(fn, backend="openxla")',
                          kind="reduction")


def test_compiled_function_matches_cpu(torch_executing: Any, torch_check: Any) -> None:
    torch_check(__file__, "check_compiled_function")


def check_compiled_module(ctx: Any) -> dict[str, Any]:
    torch = ctx.torch
    torch.manual_seed(22)
    model = torch.nn.Sequential(torch.nn.Conv2d(2, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(64, 5))
    x = torch.randn(3, 2, 6, 6, generator=torch.Generator().manual_seed(23))
    with torch.no_grad():
        expected = model(x)
        device_model = model.to(ctx.device)
        compiled = torch.compile(device_model, backend="openxla")
        placed = ctx.to_device(x)
        with ctx.stage("execute", op='torch.compile(nn.Module, backend="openxla")'):
            out = compiled(placed)
    return ctx.comparison(ctx.to_host(out), expected, op='torch.compile(nn.Module, backend="openxla")',
                          kind="reduction")


def test_compiled_module_matches_cpu(torch_executing: Any, torch_check: Any) -> None:
    torch_check(__file__, "check_compiled_module")
