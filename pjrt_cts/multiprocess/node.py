"""One node of a multi-process run: `python -m pjrt_cts.multiprocess.node SPEC_JSON`.

Prints one `PJRT_CTS_NODE {json}` line per event on stdout (plugin logs may share the stream):
started, kv_connecting, kv_backend (the store behind the KV callbacks is open), client (topology) or error,
then scenario events (collective, process_info, ...), then done. Exits 0 unless it crashed.
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time
import traceback
from typing import Any

MARKER = "PJRT_CTS_NODE "
GO_KEY = b"control/go"
READY_KEY = "control/ready/{}"


def emit(event: str, **fields: Any) -> None:
    sys.stdout.write(MARKER + json.dumps({"event": event, "time": time.time(), **fields}) + "\n")
    sys.stdout.flush()


def describe_devices(devices: list[Any]) -> list[dict[str, Any]]:
    """id / process_index / kind / local_hardware_id / is_addressable per device; a getter that fails on a
    (possibly remote) device is recorded as "error: ..." rather than ending the node."""
    def read(device: Any, name: str) -> Any:
        try:
            return getattr(device, name)
        except Exception as error:  # noqa: BLE001 - reported in the event
            return f"error: {error}"

    names = ("id", "process_index", "kind", "local_hardware_id", "is_addressable")
    return [{name: read(device, name) for name in names} for device in devices]


def error_fields(error: BaseException) -> dict[str, Any]:
    from pjrt_cts.runtime import PjrtError

    if isinstance(error, PjrtError):
        return {"function": error.function, "code": error.code, "message": error.message}
    return {"function": "", "code": type(error).__name__, "message": str(error)}


COLLECTIVES = ("all_reduce", "all_reduce_partitions", "spmd_sum")


def _compile_collective(client: Any, scenario: str, devices: list[Any]) -> Any:
    from pjrt_cts.multiprocess.collective_programs import all_reduce_program, spmd_sum_program

    count = len(devices)
    if scenario == "all_reduce":
        return client.compile(all_reduce_program(count), num_replicas=count, device_assignment=[[d.id] for d in devices])
    program = spmd_sum_program(count) if scenario == "spmd_sum" else all_reduce_program(count, True)
    return client.compile(program, num_partitions=count, device_assignment=[[d.id for d in devices]],
                          use_spmd_partitioning=True)


def _execute_once(exe: Any, rows: list[list[Any]]) -> dict[str, Any]:
    """One execution, waited for, results back on the host (what one step of a framework does)."""
    import numpy as np

    outputs, events = exe.execute_sharded(rows, want_device_events=True)
    for event in events:
        event.wait()
        event.close()
    return {str(d.id): np.asarray(row[0].to_numpy()).tolist() for d, row in zip(exe.addressable_devices, outputs)}


def run_collective(client: Any, scenario: str, repeats: int = 1) -> None:
    """A program with one participant per device of the global topology (ordered by id): an all_reduce
    over N replicas or N partitions, or a GSPMD sum of an argument sharded over N partitions. Each node
    feeds its own devices (participant p gets replica_input(p)) and reports what they computed.

    Timings: compile_seconds; execute_seconds of each of `repeats` executions (the first one also sets up
    the plugin's communicators, e.g. NCCL cliques through the KV store); results are the last execution's."""
    from pjrt_cts.multiprocess.collective_programs import replica_input

    devices = sorted(client.devices, key=lambda d: d.id)
    participant_of = {device.id: p for p, device in enumerate(devices)}
    started = time.monotonic()
    compile_seconds: float | None = None  # None in an error event: the compile did not finish
    execute_seconds: list[float] = []
    try:
        exe = _compile_collective(client, scenario, devices)
        compile_seconds = time.monotonic() - started
        rows = [[client.buffer_from_numpy(replica_input(participant_of[d.id]), d)] for d in exe.addressable_devices]
        for _ in range(max(1, repeats)):
            begun = time.monotonic()
            results = _execute_once(exe, rows)
            execute_seconds.append(time.monotonic() - begun)
    except Exception as error:  # noqa: BLE001 - any failure of the collective is reported as an event for the launcher
        emit("collective_error", scenario=scenario, seconds=time.monotonic() - started,
             compile_seconds=compile_seconds, execute_seconds=execute_seconds, **error_fields(error))
        return
    emit("collective", scenario=scenario, participants=len(devices), results=results,
         seconds=time.monotonic() - started, compile_seconds=compile_seconds, execute_seconds=execute_seconds)


PROCESS_INFO_PROGRAM = """func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}"""


def run_process_info(client: Any, num_nodes: int, node_id: int) -> None:
    """PJRT_Client_UpdateGlobalProcessInfo as a job's coordination service drives it: every process connected, then
    a peer disconnected, then a peer in error (each step's answer reported); then what the client says of itself
    afterwards (process index, devices) and whether it still runs a program on its first device."""
    import numpy as np

    from pjrt_cts.abi.enums import ErrorCode, ProcessState
    from pjrt_cts.runtime.client import ProcessInfo

    def infos(peer_state: ProcessState, code: ErrorCode = ErrorCode.OK, message: str = "") -> list[ProcessInfo]:
        return [ProcessInfo(task, 1000 + task, ProcessState.CONNECTED if task == node_id else peer_state,
                            code if task != node_id else ErrorCode.OK, message if task != node_id else "")
                for task in range(num_nodes)]

    steps = {"all_connected": infos(ProcessState.CONNECTED),
             "peer_disconnected": infos(ProcessState.DISCONNECTED),
             "peer_error": infos(ProcessState.ERROR, ErrorCode.UNAVAILABLE, "peer lost its heartbeat (pjrt-cts)")}
    answers: dict[str, Any] = {}
    for step, step_infos in steps.items():
        try:
            client.update_global_process_info(step_infos)
            answers[step] = {"code": "OK"}
        except Exception as error:  # noqa: BLE001 - every step's answer is reported, whatever it is
            answers[step] = error_fields(error)
    after: dict[str, Any] = {"process_index": client.process_index, "devices": describe_devices(client.devices),
                             "addressable": describe_devices(client.addressable_devices)}
    try:
        device = client.addressable_devices[0]
        value = np.arange(4, dtype=np.float32)
        output = client.compile(PROCESS_INFO_PROGRAM).execute([client.buffer_from_numpy(value, device)])[0]
        after["program_ok"] = bool(np.array_equal(output.to_numpy(), value + value))
    except Exception as error:  # noqa: BLE001 - reported as the program's outcome
        after["program_error"] = error_fields(error)
    emit("process_info", node_id=node_id, answers=answers, after=after)


def start_watchdog(seconds: float) -> None:
    """Exit on our own after `seconds`, so a node orphaned by a dead launcher cannot hang forever."""
    def expire() -> None:
        emit("watchdog", seconds=seconds)
        os._exit(124)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()


def open_store(spec: dict[str, Any]) -> Any:
    """The store behind the KV callbacks (pjrt_cts.kvstore.backends), reported as a `kv_backend` event.
    `kv_connecting` first: jaxlib aborts the process when connecting fails, so a node whose last event is
    `kv_connecting` never reached the service (the launcher then falls back: launcher._not_connected)."""
    from pjrt_cts.kvstore.backends import open_node_store

    kv = spec.get("kv") or {"backend": "pjrt-cts-loopback", "address": spec["control_address"]}
    emit("kv_connecting", backend=kv["backend"])
    store, facts = open_node_store(kv)
    emit("kv_backend", backend=kv["backend"], **facts)
    return store


def main(spec: dict[str, Any]) -> int:
    node_id = int(spec["node_id"])
    start_watchdog(float(spec.get("watchdog_s", 600.0)))
    emit("started", node_id=node_id, pid=os.getpid())
    from pjrt_cts.kvstore import KeyValueCallbacks, RemoteKeyValueStore
    from pjrt_cts.runtime import Plugin

    # The launcher's ready / go keys: always its loopback server, whichever store the plugin's callbacks use.
    control = RemoteKeyValueStore(spec["control_address"], io_timeout_s=float(spec.get("io_timeout_s", 10.0)))
    store = open_store(spec)
    callbacks = KeyValueCallbacks(store, namespace=spec.get("namespace", "pjrt/"),
                                  max_get_timeout_s=spec.get("max_get_timeout_s"), fail_puts=bool(spec.get("fail_puts")))
    plugin = Plugin.load(spec["plugin"], preload=spec.get("preload", ()))
    started = time.monotonic()
    try:
        client = plugin.create_client(spec["options"], kv_callbacks=callbacks if spec.get("kv_callbacks", True) else None)
    except Exception as error:  # noqa: BLE001 - any failure to create the client is reported as an event for the launcher
        emit("error", stage="client_create", seconds=time.monotonic() - started, kv=kv_summary(callbacks),
             **error_fields(error))
        return 0
    emit("client", node_id=node_id, seconds=time.monotonic() - started, process_index=client.process_index,
         platform=client.platform_name, devices=describe_devices(client.devices),
         addressable=describe_devices(client.addressable_devices), kv=kv_summary(callbacks))
    scenario = spec.get("scenario", "topology")
    if scenario in COLLECTIVES:
        run_collective(client, scenario, int(spec.get("repeats", 1)))
    elif scenario == "after_peer_loss":
        control.put(READY_KEY.format(node_id).encode(), b"1")
        try:
            control.get(GO_KEY, float(spec.get("go_timeout_s", 30.0)))  # the launcher kills the victim first
        except Exception as error:  # noqa: BLE001 - any failure waiting for the go key is reported as an event for the launcher
            emit("error", stage="wait_for_go", **error_fields(error))
        else:
            run_collective(client, "all_reduce")
    elif scenario == "process_info":
        run_process_info(client, int(spec["num_nodes"]), node_id)
    elif scenario == "hang":  # for the launcher's own tests: a node that never finishes
        while True:
            time.sleep(1)
    emit("closing", node_id=node_id)  # a node killed after this hung in PJRT_Client_Destroy
    client.close()
    emit("done", node_id=node_id, kv=kv_summary(callbacks))
    return 0


def kv_summary(callbacks: Any) -> dict[str, Any]:
    stats = callbacks.stats
    return {
        "calls": [[c.op, c.key.decode(errors="replace"), c.timeout_ms, c.error_code] for c in list(stats.calls)],
        "allocations": stats.allocations, "frees": stats.frees, "outstanding": callbacks.outstanding_values,
        "problems": list(stats.problems),
    }


if __name__ == "__main__":
    try:
        sys.exit(main(json.loads(sys.argv[1])))
    except Exception as error:  # noqa: BLE001 - report, then fail the process: the launcher shows the traceback
        emit("crash", traceback=traceback.format_exc(), **error_fields(error))
        sys.exit(3)
