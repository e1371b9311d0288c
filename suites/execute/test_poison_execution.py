"""PJRT_Device_PoisonExecution (0.85+; payload 0.100+): fail an execution that is still running.

Fault-tolerant frameworks poison the launch of a step they abandon: "Poisons the earliest execution on this device
with given launch_id if it's not finished yet, i.e. makes its output buffers error." A launch is named by
`launch_id` in PJRT_ExecuteOptions. A running launch poisoned answers `poisoned = true` and its outputs fail with
the code and message given; a finished launch, or a launch id never used, answers `poisoned = false` and changes
nothing. The running launch is a loop of matrix products sized to take about half a second on this plugin.
"""
from __future__ import annotations

import itertools
import os
import time
from typing import Any

import numpy as np
import pytest

from pjrt_cts.runtime import ErrorCode, PjrtError
from pjrt_cts.testing import not_applicable, requires, unsupported_if_unimplemented

pytestmark = requires("Device_PoisonExecution")
SIZE = 128
LONG_S = 0.5  # how long the poisoned launch should run
MAX_ITERATIONS = 1 << 20
POISON_CODE = ErrorCode.ABORTED
POISON_MESSAGE = "step abandoned: poisoned by pjrt-cts"
PAYLOAD_MINOR = 100  # `payload` / `num_payload` of PJRT_Device_PoisonExecution_Args
PAYLOAD = {"type.googleapis.com/pjrt_cts.PoisonPayload": "abandoned step 7"}
# x <- tanh(x . x), n times: nothing for a compiler to fold away, about SIZE^3 multiply-adds per iteration.
LOOP = f"""
func.func public @main(%x: tensor<{SIZE}x{SIZE}xf32>, %n: tensor<i64>) -> tensor<{SIZE}x{SIZE}xf32> {{
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i64>, tensor<{SIZE}x{SIZE}xf32>
    cond {{
      %more = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %more : tensor<i1>
    }} do {{
      %next = stablehlo.add %i, %one : tensor<i64>
      %product = stablehlo.dot_general %acc, %acc, contracting_dims = [1] x [0]
          : (tensor<{SIZE}x{SIZE}xf32>, tensor<{SIZE}x{SIZE}xf32>) -> tensor<{SIZE}x{SIZE}xf32>
      %squashed = stablehlo.tanh %product : tensor<{SIZE}x{SIZE}xf32>
      stablehlo.return %next, %squashed : tensor<i64>, tensor<{SIZE}x{SIZE}xf32>
    }}
  return %r#1 : tensor<{SIZE}x{SIZE}xf32>
}}
"""
_launch_ids = itertools.count(0x5EED0 + (os.getpid() % 1000) * 100)  # distinct per worker and test


class Loop:
    """The loop program compiled on one device, with the iteration count that makes it run about LONG_S."""

    def __init__(self, client: Any, device: Any) -> None:
        self.client, self.device = client, device
        self.executable = client.compile(LOOP)
        self.x = client.buffer_from_numpy(np.full((SIZE, SIZE), 0.01, np.float32), device)
        self.run(16).to_numpy()  # the first run pays one-time costs; the second measures an iteration
        started = time.monotonic()
        self.run(16).to_numpy()
        per_iteration = max((time.monotonic() - started) / 16, 1e-7)
        self.iterations = int(min(MAX_ITERATIONS, max(16, LONG_S / per_iteration)))

    def run(self, iterations: int, launch_id: int = 0) -> Any:
        n = self.client.buffer_from_numpy(np.array(iterations, np.int64), self.device)
        outputs, _ = self.executable.execute_sharded([[self.x, n]], launch_id=launch_id)
        return outputs[0][0]


@pytest.fixture(scope="module")
def loop(client: Any, device: Any) -> Loop:
    return Loop(client, device)


def _poison(device: Any, launch_id: int, payload: dict[str, str] | None = None) -> bool:
    with unsupported_if_unimplemented("PJRT_Device_PoisonExecution"):
        return bool(device.poison_execution(launch_id, POISON_CODE, POISON_MESSAGE, payload))


def _poison_while_running(loop: Loop, payload: dict[str, str] | None = None) -> tuple[bool, Any]:
    """Launch the loop, poison it at once. (poisoned, output); not applicable when Execute returned only after the
    program had run (nothing is left running to poison)."""
    launch_id = next(_launch_ids)
    output = loop.run(loop.iterations, launch_id)
    with output.ready_event() as ready:
        running = not ready.is_ready()
        poisoned = _poison(loop.device, launch_id, payload)
    if not running:
        output.to_numpy()
        not_applicable(f"PJRT_LoadedExecutable_Execute returned after its {loop.iterations}-iteration loop had run "
                       f"(synchronous execution): no launch was left running to poison (poisoned = {poisoned})")
    return poisoned, output


def test_running_launch_outputs_fail_with_the_poison(loop: Loop) -> None:
    poisoned, output = _poison_while_running(loop)
    assert poisoned, ("PJRT_Device_PoisonExecution of a launch whose outputs were not ready yet answered poisoned = "
                      "false")
    try:
        output.to_numpy()
    except PjrtError as error:
        assert (error.code, error.message) == (POISON_CODE.name, POISON_MESSAGE), (
            f"the output of a poisoned launch should fail with {POISON_CODE.name}: {POISON_MESSAGE!r}, but failed with "
            f"{error.code}: {error.message!r}")
    else:
        raise AssertionError("PJRT_Device_PoisonExecution answered poisoned = true, but the launch's output reads back "
                             "without an error")


def test_poison_payload_reaches_the_output_error(plugin: Any, loop: Loop) -> None:
    if plugin.api_version[1] < PAYLOAD_MINOR:
        not_applicable(f"PJRT_Device_PoisonExecution_Args has a payload from 0.{PAYLOAD_MINOR}; the plugin is "
                       f"{plugin.version_string}")
    poisoned, output = _poison_while_running(loop, PAYLOAD)
    assert poisoned, "PJRT_Device_PoisonExecution (with a payload) of a running launch answered poisoned = false"
    with pytest.raises(PjrtError) as raised:
        output.to_numpy()
    payloads = {key.decode(errors="replace"): value.decode(errors="replace")
                for key, value in raised.value.payloads.items()}
    assert PAYLOAD.items() <= payloads.items(), (
        f"the output error of a launch poisoned with payload {PAYLOAD} carries payloads {payloads} "
        f"(PJRT_Error_ForEachPayload)")


def test_finished_launch_is_not_poisoned(loop: Loop) -> None:
    launch_id = next(_launch_ids)
    output = loop.run(16, launch_id)
    expected = output.to_numpy()
    poisoned = _poison(loop.device, launch_id)
    assert not poisoned, "PJRT_Device_PoisonExecution of a launch whose outputs were ready answered poisoned = true"
    np.testing.assert_array_equal(output.to_numpy(), expected,
                                  err_msg="the output of a finished launch changed after PJRT_Device_PoisonExecution")


def test_unknown_launch_is_not_poisoned(loop: Loop) -> None:
    poisoned = _poison(loop.device, next(_launch_ids))
    assert not poisoned, "PJRT_Device_PoisonExecution of a launch id no execution used answered poisoned = true"


def test_poison_leaves_later_launches_alone(loop: Loop) -> None:
    """Only the launch poisoned fails: the next launch with another id computes its result."""
    reference = loop.run(16).to_numpy()
    poisoned, output = _poison_while_running(loop)
    assert poisoned, "PJRT_Device_PoisonExecution of a running launch answered poisoned = false"
    with pytest.raises(PjrtError):
        output.to_numpy()
    later = loop.run(16, next(_launch_ids)).to_numpy()
    np.testing.assert_array_equal(later, reference, err_msg="a launch after a poisoned one computed another result")
