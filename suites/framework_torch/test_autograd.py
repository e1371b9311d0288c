"""Autograd and optimizers on the plugin: the backward pass of a small MLP and optimizer steps, against the same
model on PyTorch's CPU (the same initial weights and data)."""
from __future__ import annotations

from typing import Any

import pytest


def _mlp(torch: Any) -> Any:
    torch.manual_seed(11)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 16), torch.nn.ReLU(),
                               torch.nn.Linear(16, 3))


def _batch(torch: Any) -> tuple[Any, Any]:
    generator = torch.Generator().manual_seed(12)
    return torch.randn(10, 8, generator=generator), torch.randint(0, 3, (10,), generator=generator)


def _loss_and_grads(torch: Any, model: Any, x: Any, y: Any) -> tuple[Any, list[Any]]:
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    return loss.detach(), [p.grad for p in model.parameters()]


def check_mlp_backward(ctx: Any) -> dict[str, Any]:
    torch = ctx.torch
    x, y = _batch(torch)
    expected = _loss_and_grads(torch, _mlp(torch), x, y)
    model = _mlp(torch).to(ctx.device)
    placed_x, placed_y = ctx.to_device([x, y])
    with ctx.stage("trace", op="loss.backward() of a 3-layer MLP"):
        loss, grads = _loss_and_grads(torch, model, placed_x, placed_y)
    ctx.sync()
    actual = ctx.to_host((loss, grads))
    return ctx.comparison(actual, expected, op="loss.backward() of a 3-layer MLP", kind="autodiff")


def test_mlp_backward_matches_cpu(torch_executing: Any, torch_check: Any) -> None:
    torch_check(__file__, "check_mlp_backward")


def check_input_gradient(ctx: Any) -> dict[str, Any]:
    torch = ctx.torch
    x = torch.linspace(-2, 2, 9)

    def grad_of(v: Any) -> Any:
        v = v.detach().requires_grad_(True)
        (torch.sin(v) * v.exp()).sum().backward()
        return v.grad

    expected = grad_of(x)
    placed = ctx.to_device(x)
    with ctx.stage("trace", op="torch.autograd: d/dx sum(sin(x) * exp(x))"):
        grad = grad_of(placed)
    ctx.sync()
    return ctx.comparison(ctx.to_host(grad), expected, op="torch.autograd: d/dx sum(sin(x) * exp(x))",
                          kind="autodiff")


def test_input_gradient_matches_cpu(torch_executing: Any, torch_check: Any) -> None:
    torch_check(__file__, "check_input_gradient")


def _train(torch: Any, model: Any, x: Any, y: Any, optimizer_name: str, steps: int, sync: Any) -> list[Any]:
    optimizer = {"sgd": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
                 "adam": lambda p: torch.optim.Adam(p, lr=0.01),
                 "adamw": lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.1)}[optimizer_name](model.parameters())
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        sync()
        losses.append(loss.detach())
    return [torch.stack(losses), [p.detach() for p in model.parameters()]]


def check_optimizer_steps(ctx: Any, optimizer: str) -> dict[str, Any]:
    torch = ctx.torch
    x, y = _batch(torch)
    expected = _train(torch, _mlp(torch), x, y, optimizer, 3, lambda: None)
    model = _mlp(torch).to(ctx.device)
    placed_x, placed_y = ctx.to_device([x, y])
    with ctx.stage("trace", op=f"torch.optim.{optimizer} step"):
        actual = _train(torch, model, placed_x, placed_y, optimizer, 3, ctx.sync)
    return ctx.comparison(ctx.to_host(actual), expected, op=f"3 torch.optim.{optimizer} steps", kind="autodiff")


@pytest.mark.parametrize("optimizer", ["sgd", "adam", "adamw"])
def test_optimizer_steps_match_cpu(torch_executing: Any, torch_check: Any, optimizer: str) -> None:
    torch_check(__file__, "check_optimizer_steps", optimizer=optimizer)
