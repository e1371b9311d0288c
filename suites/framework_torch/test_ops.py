"""Elementwise, matmul, reduction and convolution ops on the plugin under PyTorch/XLA, against PyTorch on the CPU."""
from __future__ import annotations

from typing import Any

import pytest

# name -> (expression over torch `t` and inputs `a`, `b`; input dtype; tolerance class)
ELEMENTWISE = {
    "add": ("a + b", "float32"), "sub": ("a - b", "float32"), "mul": ("a * b", "float32"),
    "div": ("a / (b.abs() + 1)", "float32"), "sin": ("t.sin(a)", "float32"), "exp": ("t.exp(a)", "float32"),
    "tanh": ("t.tanh(a)", "float32"), "sigmoid": ("t.sigmoid(a)", "float32"), "relu": ("t.relu(a)", "float32"),
    "where": ("t.where(a > b, a, b)", "float32"), "pow": ("t.pow(a.abs(), 1.5)", "float32"),
    "add_f64": ("a + b * 2", "float64"), "mul_bf16": ("a * b", "bfloat16"), "add_f16": ("a + b", "float16"),
    "int_add": ("a + b", "int32"), "int_floordiv": ("t.div(a, b.abs() + 1, rounding_mode='floor')", "int64"),
    "bitwise_and": ("a & b", "int32"), "compare": ("a < b", "float32"), "logical": ("(a > 0) ^ (b > 0)", "float32"),
}


def _inputs(torch: Any, dtype: str, shape: tuple[int, ...], seed: int = 0) -> tuple[Any, Any]:
    generator = torch.Generator().manual_seed(seed)
    if dtype.startswith("int"):
        a = torch.randint(-50, 50, shape, generator=generator)
        b = torch.randint(-50, 50, shape, generator=generator)
        return a.to(getattr(torch, dtype)), b.to(getattr(torch, dtype))
    a, b = torch.randn(shape, generator=generator), torch.randn(shape, generator=generator)
    return a.to(getattr(torch, dtype)), b.to(getattr(torch, dtype))


def check_elementwise(ctx: Any, name: str) -> dict[str, Any]:
    torch = ctx.torch
    expression, dtype = ELEMENTWISE[name]
    a, b = _inputs(torch, dtype, (4, 33))
    fn = eval(f"lambda t, a, b: {expression}")  # the table's expressions, written above
    return ctx.compare(lambda x, y: fn(torch, x, y), a, b, op=f"torch {expression} [{dtype}]")


@pytest.mark.parametrize("name", list(ELEMENTWISE))
def test_elementwise_matches_cpu(torch_executing: Any, torch_check: Any, name: str) -> None:
    torch_check(__file__, "check_elementwise", name=name)


def check_matmul(ctx: Any, dtype: str) -> dict[str, Any]:
    torch = ctx.torch
    a, b = _inputs(torch, dtype, (16, 24), seed=1)
    return ctx.compare(lambda x, y: torch.matmul(x, y.T), a, b, op=f"torch.matmul [{dtype}]", kind="reduction")


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "int32"])
def test_matmul_matches_cpu(torch_executing: Any, torch_check: Any, dtype: str) -> None:
    torch_check(__file__, "check_matmul", dtype=dtype)


def check_bmm_and_linear(ctx: Any) -> dict[str, Any]:
    torch = ctx.torch
    generator = torch.Generator().manual_seed(2)
    a, b = torch.randn(3, 5, 7, generator=generator), torch.randn(3, 7, 4, generator=generator)
    w, bias = torch.randn(6, 4, generator=generator), torch.randn(6, generator=generator)
    return ctx.compare(lambda x, y, w_, b_: torch.nn.functional.linear(torch.bmm(x, y), w_, b_), a, b, w, bias,
                       op="torch.bmm + torch.nn.functional.linear", kind="reduction")


def test_bmm_and_linear_match_cpu(torch_executing: Any, torch_check: Any) -> None:
    torch_check(__file__, "check_bmm_and_linear")


REDUCTIONS = {
    "sum": "x.sum(dim=1)", "mean": "x.mean()", "amax": "x.amax(dim=0)", "argmax": "x.argmax(dim=1)",
    "prod": "x[:, :6].prod(dim=1)", "cumsum": "x.cumsum(dim=1)", "logsumexp": "t.logsumexp(x, dim=1)",
    "var": "x.var(dim=1)", "norm": "t.linalg.vector_norm(x, dim=1)", "softmax": "t.softmax(x, dim=-1)",
    "sort": "t.sort(x, dim=1).values", "topk": "t.topk(x, 3, dim=1).values",
}


def check_reduction(ctx: Any, name: str) -> dict[str, Any]:
    torch = ctx.torch
    x = torch.randn(8, 40, generator=torch.Generator().manual_seed(3))
    fn = eval(f"lambda t, x: {REDUCTIONS[name]}")  # the table's expressions, written above
    return ctx.compare(lambda v: fn(torch, v), x, op=f"torch {REDUCTIONS[name]}", kind="reduction")


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction_matches_cpu(torch_executing: Any, torch_check: Any, name: str) -> None:
    torch_check(__file__, "check_reduction", name=name)


def check_conv(ctx: Any, dims: int) -> dict[str, Any]:
    torch = ctx.torch
    generator = torch.Generator().manual_seed(4)
    spatial = (11,) * dims
    x = torch.randn(2, 3, *spatial, generator=generator)
    w = torch.randn(5, 3, *((3,) * dims), generator=generator)
    bias = torch.randn(5, generator=generator)
    conv = getattr(torch.nn.functional, f"conv{dims}d")
    return ctx.compare(lambda a, k, c: conv(a, k, c, stride=2, padding=1), x, w, bias,
                       op=f"torch.nn.functional.conv{dims}d", kind="reduction")


@pytest.mark.parametrize("dims", [1, 2, 3], ids=["conv1d", "conv2d", "conv3d"])
def test_convolution_matches_cpu(torch_executing: Any, torch_check: Any, dims: int) -> None:
    torch_check(__file__, "check_conv", dims=dims)


def check_pooling_and_norm(ctx: Any) -> dict[str, Any]:
    torch = ctx.torch
    x = torch.randn(2, 4, 12, 12, generator=torch.Generator().manual_seed(5))
    f = torch.nn.functional
    return ctx.compare(lambda a: (f.max_pool2d(a, 2), f.avg_pool2d(a, 3), f.layer_norm(a, (12, 12))), x,
                       op="max_pool2d / avg_pool2d / layer_norm", kind="reduction")


def test_pooling_and_layer_norm_match_cpu(torch_executing: Any, torch_check: Any) -> None:
    torch_check(__file__, "check_pooling_and_norm")
