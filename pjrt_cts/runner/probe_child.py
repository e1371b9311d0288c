"""The child process of a plugin probe: load the plugin and walk the shared steps, narrating as it goes.

`python -m pjrt_cts.runner.probe_child --events-fd N --plugin PATH --options JSON --steps load,initialize,...`

Every PJRT call is announced on the events pipe before it is made ({"enter": "PJRT_Client_Create"}) and
after it returns ({"leave": ...}); what each step learned is sent as soon as it is known ({"learned": {...}}).
If the plugin aborts, segfaults or hangs, the parent (pjrt_cts.runner.probe) still has everything sent so far
and knows which PJRT function was in progress. Nothing is printed on stdout/stderr by this module: both are
the plugin's (the parent keeps their tail).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

from pjrt_cts.runner.blocks import LOAD_FUNCTION  # dlopen + GetPjrtApi: "in progress" while the library loads

# The steps, in order. Each needs the ones before it that produce what it uses (see _NEEDS).
STEPS = ("load", "initialize", "attributes", "client", "devices", "transfer", "compile", "execute", "destroy")
DESCRIBE_STEPS = ("load", "initialize", "attributes", "client", "devices", "destroy")  # `pjrt-cts info`
_NEEDS = {"initialize": "load", "attributes": "load", "client": "initialize", "devices": "client",
          "transfer": "client", "compile": "client", "execute": "compile", "destroy": "client"}
# A trivial program: one add of two f32[4] (the compile and execute steps).
TRIVIAL_PROGRAM = """\
module @pjrt_cts_probe {
  func.func public @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %a, %b : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""


class Narrator:
    """Writes one JSON object per line to the events pipe, unbuffered (a crash must not lose a line)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def say(self, **event: Any) -> None:
        os.write(self.fd, (json.dumps(event, default=str) + "\n").encode("utf-8", "replace"))


class CallNarration:
    """A call hook (pjrt_cts.runtime.hooks.CallHook): every slot call is announced before it is made and after it
    returns (the load itself is announced by Probe.step_load)."""

    def __init__(self, narrator: Narrator) -> None:
        self.narrator = narrator

    def before_load(self, path: Path) -> None:
        return None

    def slot_function(self, plugin: Any, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        narrator = self.narrator

        def call(*args: Any) -> Any:
            narrator.say(enter="PJRT_" + name)
            result = function(*args)
            narrator.say(leave="PJRT_" + name)
            return result

        return call


class Probe:
    def __init__(self, narrator: Narrator, path: str, options: dict[str, Any]) -> None:
        self.narrator = narrator
        self.path = path
        self.options = options
        self.plugin: Any = None
        self.client: Any = None
        self.device: Any = None
        self.buffers: list[Any] = []
        self.executable: Any = None
        self.reached: set[str] = set()
        self.refused = False  # the file is not a loadable plugin: nothing else to do

    # -- the steps ------------------------------------------------------------------------------

    def step_load(self) -> None:
        from pjrt_cts.runtime import Plugin, PluginLoadError
        from pjrt_cts.runtime.extensions.calls import offered_functions

        Plugin.add_call_hook(CallNarration(self.narrator))  # this process probes one plugin: narrate all its calls
        self.narrator.say(enter=LOAD_FUNCTION)
        try:
            self.plugin = Plugin.load(self.path, initialize=False)
        except PluginLoadError as exc:
            self.narrator.say(load_error=str(exc))
            raise NotAPlugin from None
        self.narrator.say(leave=LOAD_FUNCTION)
        plugin = self.plugin
        self.learned(
            path=str(plugin.path), api_version=plugin.version_string, api_major=plugin.api_version[0],
            api_minor=plugin.api_version[1], struct_size=plugin.struct_size, num_slots=plugin.num_slots,
            slots_present=plugin.num_slots - len(plugin.null_slots_within_struct_size()),
            missing_slots=[slot.c_name for slot in plugin.missing_slots()],
            extensions=[{"type": e.type, "name": e.name, "struct_size": e.struct_size} for e in plugin.extensions],
            extension_functions=offered_functions(plugin),
        )

    def step_initialize(self) -> None:
        self.plugin.initialize_once()

    def step_attributes(self) -> None:
        self.learned(attributes=dict(self.plugin.attribute_items()))

    def step_client(self) -> None:
        self.client = self.plugin.create_client(self.options)
        client = self.client
        self.learned(platform_name=client.platform_name, platform_version=client.platform_version,
                     process_index=client.process_index)

    def step_devices(self) -> None:
        client = self.client
        addressable = {device.handle for device in client.addressable_devices}
        found = []
        for device in client.devices:
            entry: dict[str, Any] = {"id": device.id, "kind": device.kind, "process_index": device.process_index,
                                     "addressable": device.handle in addressable}
            if device.handle in addressable:
                entry["local_hardware_id"] = device.local_hardware_id
                entry["memories"] = [memory.kind for memory in device.memories]
                entry["default_memory"] = device.default_memory.kind
            found.append(entry)
        self.learned(devices=found)

    def step_transfer(self) -> None:
        import numpy as np

        devices = self.client.addressable_devices
        if not devices:
            raise StepError("the client has no addressable device")
        self.device = devices[0]
        values = np.arange(4, dtype=np.float32)
        buffer = self.client.buffer_from_numpy(values, self.device)
        self.buffers.append(buffer)
        back = buffer.to_numpy()
        if not np.array_equal(back, values):
            raise StepError(f"read back {back.tolist()} after uploading {values.tolist()}")

    def step_compile(self) -> None:
        self.executable = self.client.compile(TRIVIAL_PROGRAM)

    def step_execute(self) -> None:
        import numpy as np

        if not self.buffers:
            raise StepError("no uploaded buffer (the transfer step did not succeed)")
        outputs = self.executable.execute([self.buffers[0], self.buffers[0]])
        self.buffers.extend(outputs)
        result = outputs[0].to_numpy()
        expected = np.arange(4, dtype=np.float32) * 2
        if not np.array_equal(result, expected):
            raise StepError(f"add(x, x) gave {result.tolist()}, expected {expected.tolist()}")

    def step_destroy(self) -> None:
        for handle in [*self.buffers, self.executable, self.client]:
            if handle is not None:
                handle.close()

    # -- plumbing -------------------------------------------------------------------------------

    def learned(self, **facts: Any) -> None:
        self.narrator.say(learned=facts)

    def run(self, steps: list[str]) -> None:
        from pjrt_cts.runtime import PjrtError

        for step in steps:
            if self.refused:
                return
            needed = _NEEDS.get(step)
            if needed is not None and needed not in self.reached:
                self.narrator.say(step=step, status="not_reached", reason=f"needs the {needed} step")
                continue
            self.narrator.say(step=step, status="started")
            try:
                getattr(self, f"step_{step}")()
            except NotAPlugin:
                self.refused = True
                continue
            except PjrtError as error:
                self.narrator.say(step=step, status="error", error={
                    "function": error.function, "code": error.code, "message": error.message})
                continue
            except Exception as exc:  # noqa: BLE001 - a missing slot, a wrong answer: the tests judge it; the probe notes it
                self.narrator.say(step=step, status="error", error={"message": f"{type(exc).__name__}: {exc}"})
                continue
            self.reached.add(step)
            self.narrator.say(step=step, status="ok")


class NotAPlugin(Exception):
    """The library could not be loaded as a PJRT plugin (PluginLoadError, already reported)."""


class StepError(Exception):
    """A step completed without crashing but did not do what it should (reported, not a crash)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pjrt_cts.runner.probe_child")
    parser.add_argument("--events-fd", type=int, required=True)
    parser.add_argument("--plugin", required=True)
    parser.add_argument("--options", default="{}", help="PJRT_Client_Create options as a JSON object")
    parser.add_argument("--steps", default=",".join(STEPS))
    args = parser.parse_args(argv)
    steps = [step for step in args.steps.split(",") if step]
    unknown = [step for step in steps if step not in STEPS]
    if unknown:
        parser.error(f"unknown steps {unknown}; known: {', '.join(STEPS)}")
    # Imported before the first step, so that a step's time is the plugin's own (probe.STARTUP_SECONDS).
    import pjrt_cts.runtime.extensions.calls  # noqa: F401 - imports pjrt_cts.runtime too

    narrator = Narrator(args.events_fd)
    Probe(narrator, args.plugin, json.loads(args.options)).run(steps)
    narrator.say(done=True)
    sys.stdout.flush()
    sys.stderr.flush()
    # Leave without unloading the plugin or running atexit handlers: a plugin that crashes while it is torn
    # down says nothing about the steps, and the tests' workers meet that case on their own.
    os._exit(0)


if __name__ == "__main__":
    main()
