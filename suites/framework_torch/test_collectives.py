"""Collectives over the plugin's devices: torch_xla SPMD (one process, a mesh over every addressable device) shards
tensors with `xs.mark_sharding`; reductions and matmuls over a sharded dimension make XLA insert all-reduce /
all-gather between the plugin's devices. Runs in a separate PyTorch/XLA child started in SPMD mode."""
from __future__ import annotations

from typing import Any

from pjrt_cts.testing import requires


def _mesh(ctx: Any) -> Any:
    import numpy as np
    import torch_xla.distributed.spmd as xs

    count = int(ctx.xr.global_runtime_device_count())
    return xs, xs.Mesh(np.arange(count), (count,), ("x",)), count


def check_sharded_reduction(ctx: Any) -> dict[str, Any]:
    torch = ctx.torch
    xs, mesh, count = _mesh(ctx)
    x = torch.randn(8 * count, 6, generator=torch.Generator().manual_seed(31))
    placed = ctx.to_device(x)
    with ctx.stage("trace", op="xs.mark_sharding + sum over the sharded dim (all-reduce)"):
        xs.mark_sharding(placed, mesh, ("x", None))
        total = (placed * 2).sum(dim=0)
        spec = ctx.torch_xla._XLAC._get_xla_sharding_spec(placed)
    ctx.sync()
    result = ctx.comparison(ctx.to_host(total), (x * 2).sum(dim=0), op="sum over a dim sharded over "
                            f"{count} devices (all-reduce)", kind="reduction")
    result.update(devices=count, sharding=str(spec))
    return result


@requires(devices=2)
def test_sharded_reduction_matches_cpu(torch_executing: Any, torch_check: Any) -> None:
    result = torch_check(__file__, "check_sharded_reduction", child="spmd")
    assert result["sharding"], "xs.mark_sharding left the tensor without a sharding spec"


def check_sharded_matmul(ctx: Any) -> dict[str, Any]:
    torch = ctx.torch
    xs, mesh, count = _mesh(ctx)
    generator = torch.Generator().manual_seed(32)
    a, b = torch.randn(4, 4 * count, generator=generator), torch.randn(4 * count, 5, generator=generator)
    placed_a, placed_b = ctx.to_device([a, b])
    with ctx.stage("trace", op="matmul contracting a sharded dim (all-reduce), result replicated (all-gather)"):
        xs.mark_sharding(placed_a, mesh, (None, "x"))
        xs.mark_sharding(placed_b, mesh, ("x", None))
        out = placed_a @ placed_b
    ctx.sync()
    return ctx.comparison(ctx.to_host(out), a @ b, op=f"torch.matmul contracting a dim sharded over {count} devices",
                          kind="reduction")


@requires(devices=2)
def test_sharded_matmul_matches_cpu(torch_executing: Any, torch_check: Any) -> None:
    torch_check(__file__, "check_sharded_matmul", child="spmd")
