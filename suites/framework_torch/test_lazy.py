"""Lazy-tensor graph execution: ops are recorded until `xm.mark_step()` / `torch_xla.sync()` cuts the graph and runs
it on the plugin; in-place ops and views are part of that graph."""
from __future__ import annotations

from typing import Any


def check_graph_across_steps(ctx: Any) -> dict[str, Any]:
    torch, xm = ctx.torch, ctx.xm
    x = torch.linspace(-1, 1, 16).reshape(4, 4)
    placed = ctx.to_device(x)
    with ctx.stage("trace", op="lazy graph of 3 steps"):
        state = placed
        states = []
        for step in range(3):
            state = torch.tanh(state @ state.T + step)
            xm.mark_step()  # the deprecated spelling users still write; same as torch_xla.sync()
            states.append(state)
    executed = ctx.met.counter_value("ExecuteComputation") or 0
    expected, reference = [], x
    for step in range(3):
        reference = torch.tanh(reference @ reference.T + step)
        expected.append(reference)
    result = ctx.comparison(ctx.to_host(states), expected, op="torch.tanh(x @ x.T + i) over 3 xm.mark_step()s",
                            kind="reduction")
    result["executions"] = int(executed)
    return result


def test_mark_step_runs_each_graph_on_the_plugin(torch_executing: Any, torch_check: Any) -> None:
    result = torch_check(__file__, "check_graph_across_steps")
    assert result["executions"] >= 3, (
        f"3 xm.mark_step() calls with pending work ran {result['executions']} computations on the plugin "
        "(torch_xla counter ExecuteComputation)")


def check_nothing_runs_before_the_step(ctx: Any) -> dict[str, Any]:
    torch = ctx.torch
    placed = ctx.to_device(torch.ones(8))
    before = int(ctx.met.counter_value("ExecuteComputation") or 0)
    with ctx.stage("trace", op="lazy torch.exp"):
        pending = torch.exp(placed) * 3
    traced = int(ctx.met.counter_value("ExecuteComputation") or 0)
    ctx.sync()
    after = int(ctx.met.counter_value("ExecuteComputation") or 0)
    result = ctx.comparison(ctx.to_host(pending), torch.exp(torch.ones(8)) * 3, op="lazy torch.exp(x) * 3")
    result.update(before=before, traced=traced, after=after)
    return result


def test_ops_are_lazy_until_the_step(torch_executing: Any, torch_check: Any) -> None:
    result = torch_check(__file__, "check_nothing_runs_before_the_step")
    assert result["traced"] == result["before"], "torch_xla ran a computation before the step (ops should be lazy)"
    assert result["after"] == result["before"] + 1, (
        f"torch_xla.sync() ran {result['after'] - result['before']} computations, expected 1")


def check_in_place_and_views(ctx: Any) -> dict[str, Any]:
    torch = ctx.torch

    def mutate(x: Any) -> Any:
        x.add_(1.5)
        x.mul_(2)
        row = x[1]  # a view: writing it writes x
        row.fill_(-3)
        col = x[:, 2]
        col.copy_(torch.arange(4, dtype=x.dtype))
        x.transpose(0, 1)[0].zero_()  # a view of a view
        flat = x.view(-1)
        flat[5:9].clamp_(min=0)
        x.unsqueeze(0).squeeze_(0)
        return [x, flat.reshape(2, -1), x.t().contiguous()]

    base = torch.linspace(-4, 4, 24).reshape(4, 6)
    return ctx.compare(mutate, base, op="in-place ops through views (add_, mul_, fill_, copy_, clamp_)")


def test_in_place_ops_and_views_match_cpu(torch_executing: Any, torch_check: Any) -> None:
    torch_check(__file__, "check_in_place_and_views")


def check_views_share_storage(ctx: Any) -> dict[str, Any]:
    torch = ctx.torch
    x = ctx.to_device(torch.zeros(3, 4))
    with ctx.stage("trace", op="view aliasing"):
        v = x.view(4, 3)
        s = x[:, 1:3]
        v[0, 0] = 7.0
        s.add_(1)
    ctx.sync()
    expected = torch.zeros(3, 4)
    expected.view(4, 3)[0, 0] = 7.0
    expected[:, 1:3].add_(1)
    return ctx.comparison(ctx.to_host([x, v, s]), [expected, expected.view(4, 3), expected[:, 1:3]],
                          op="writes through view() and slicing", exact=True)


def test_writes_through_views_reach_the_base(torch_executing: Any, torch_check: Any) -> None:
    torch_check(__file__, "check_views_share_storage")
