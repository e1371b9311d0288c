"""Per-call cost of executing a tiny program through pjrt_cts vs jaxlib's own C-API client, same plugin.

Both sides load the same plugin .so (one shared instance in this process), compile the same
StableHLO `add` on f32[4], and run it N times; each iteration executes, waits for the output to
be ready and drops it. Reported: microseconds per call (best of R rounds) and the ratio.

    python benchmarks/bench_binding_overhead.py [--plugin PATH] [--iterations 10000] [--rounds 5]

Needs the `jax` extra (jaxlib provides the reference client).
"""
from __future__ import annotations

import argparse
import gc
import json
import time
from typing import Callable

import numpy as np

ADD = """
func.func public @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def time_per_call(step: Callable[[], None], iterations: int, rounds: int) -> float:
    """Best-of-rounds seconds per call (the minimum is the least noisy estimate of the cost)."""
    for _ in range(min(200, iterations)):
        step()  # warm up: first-run compilation of dispatch paths, allocator pools
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        for _ in range(iterations):
            step()
        elapsed = time.perf_counter() - start
        gc.enable()
        best = min(best, elapsed / iterations)
    return best


def pjrt_cts_step(plugin_path: str, options: dict, preload: list[str]) -> tuple[Callable[[], None], Callable[[], None]]:
    from pjrt_cts.runtime import Plugin

    client = Plugin.load(plugin_path, preload=preload).create_client(options)
    executable = client.compile(ADD)
    x = client.buffer_from_numpy(np.arange(4, dtype=np.float32))

    def execute_and_wait() -> None:
        (out,) = executable.execute([x, x])
        out.block_until_ready()
        out.close()

    def dispatch_only() -> None:
        (out,) = executable.execute([x, x])
        out.close()

    return execute_and_wait, dispatch_only


def jaxlib_step(plugin_path: str, options: dict) -> tuple[Callable[[], None], Callable[[], None]]:
    from jax._src import core, sharding_impls
    from jax._src.lib import _jax
    from jax._src.lib import xla_client

    xla_client.load_pjrt_plugin_dynamically("pjrt_cts_bench", plugin_path)
    xla_client.initialize_pjrt_plugin("pjrt_cts_bench")
    client = xla_client.make_c_api_client("pjrt_cts_bench", options)
    device = client.devices()[0]
    executable = client.compile_and_load(ADD, client.devices())
    aval = core.ShapedArray((4,), np.float32)
    x = _jax.batched_device_put(aval, sharding_impls.SingleDeviceSharding(device), [np.arange(4, dtype=np.float32)], [device], True)

    def execute_and_wait() -> None:
        out = executable.execute_sharded([x, x]).disassemble_into_single_device_arrays()[0][0]
        out.block_until_ready()

    def dispatch_only() -> None:
        executable.execute_sharded([x, x]).disassemble_into_single_device_arrays()

    return execute_and_wait, dispatch_only


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plugin", default=None, help="plugin .so (default: bundled CPU plugin)")
    parser.add_argument("--profile", default=None, help="plugin profile: its library, create options and preloads")
    parser.add_argument("--iterations", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from pjrt_cts.runtime import default_plugin_path

    options: dict = {"cpu_device_count": 1}
    preload: list[str] = []
    if args.profile:
        from pjrt_cts.profiles import get_profile

        profile = get_profile(args.profile)
        plugin_path = args.plugin or str(profile.resolve_library())
        options, preload = dict(profile.create_options), [str(p) for p in profile.preload_libraries()]
    else:
        plugin_path = args.plugin or str(default_plugin_path())
    ours_wait, ours_dispatch = pjrt_cts_step(plugin_path, options, preload)
    theirs_wait, theirs_dispatch = jaxlib_step(plugin_path, options)
    results = {}
    for label, ours, theirs in (("execute+wait", ours_wait, theirs_wait), ("dispatch", ours_dispatch, theirs_dispatch)):
        ours_s = time_per_call(ours, args.iterations, args.rounds)
        theirs_s = time_per_call(theirs, args.iterations, args.rounds)
        results[label] = {"pjrt_cts_us": ours_s * 1e6, "jaxlib_us": theirs_s * 1e6, "ratio": ours_s / theirs_s}
    if args.json:
        print(json.dumps({"plugin": plugin_path, "iterations": args.iterations, "rounds": args.rounds, "results": results}))
        return
    print(f"plugin: {plugin_path}\n{args.iterations} calls x {args.rounds} rounds (best round)")
    print(f"{'variant':<14}{'pjrt_cts us/call':>18}{'jaxlib us/call':>16}{'ratio':>8}")
    for label, row in results.items():
        print(f"{label:<14}{row['pjrt_cts_us']:>18.2f}{row['jaxlib_us']:>16.2f}{row['ratio']:>8.2f}")


if __name__ == "__main__":
    main()
