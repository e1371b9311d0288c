"""pjrt_cts.runtime.callcount: the per-process accounting of PJRT calls behind each record's `api_calls` (what was
called, how often, with what error codes; what a dead process was inside), and its typed form (schema.Tally)."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from pjrt_cts.abi.enums import BufferType, ExtensionType
from pjrt_cts.runtime import PjrtError, Plugin, callcount
from pjrt_cts.runtime.extensions.layouts import client_default_layout
from pjrt_cts.schema import Tally, merge_tallies, decode_tallies, tallies_to_json


@pytest.fixture
def counting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The counting hook in this process, as a worker has it (its children inherit the directory)."""
    monkeypatch.setenv(callcount.ENV, str(tmp_path))
    Plugin.add_call_hook(callcount.HOOK)
    callcount.take()  # from zero
    try:
        yield tmp_path
    finally:
        Plugin.remove_call_hook(callcount.HOOK)


def test_calls_and_error_codes_are_counted_per_function_and_taken_once(plugin_0115: Plugin, counting: Path) -> None:
    plugin_0115.read_attribute_items()
    plugin_0115.read_attribute_items()
    with pytest.raises(PjrtError) as info:
        plugin_0115.create_client({"pjrt_cts_no_such_option": 1})
    counted = callcount.take()
    assert counted["Plugin_Attributes"] == (2, 0, ())
    assert counted["Client_Create"] == (1, 1, (info.value.code,))  # the code the caller read with Error_GetCode
    assert counted["Error_GetCode"][:2] == (1, 0) and counted["Error_Destroy"][:2] == (1, 0)  # void: never failed
    assert callcount.take() == {}  # taken: the table starts from zero


def test_extension_functions_count_under_their_qualified_name(plugin_0115: Plugin, counting: Path) -> None:
    if plugin_0115.find_extension(ExtensionType.LAYOUTS) is None:
        pytest.skip("the bundled plugin advertises no LAYOUTS")
    with plugin_0115.create_client({"cpu_device_count": 1}) as client:
        callcount.take()
        client_default_layout(client, BufferType.F32, (2, 3)).close()
    counted = callcount.take()
    assert counted["LAYOUTS.Client_GetDefaultLayout"][:2] == (1, 0)
    assert counted["LAYOUTS.MemoryLayout_Destroy"][:2] == (1, 0)


CHILD = """
import os, sys
from pjrt_cts.runtime.hooks import call_hooks

def through_hooks(name, function):
    for hook in call_hooks():
        function = hook.slot_function(None, name, function)
    return function

through_hooks("Client_Compile", lambda: None)()
through_hooks("Client_Compile", lambda: None)()
if sys.argv[1] == "die":
    through_hooks("LoadedExecutable_Execute", os.abort)()
"""


@pytest.mark.parametrize("end", ["die", "exit"])
def test_a_process_that_ended_leaves_its_table_with_the_call_it_died_in(tmp_path: Path, end: str) -> None:
    env = {**os.environ, callcount.ENV: str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", CHILD, end], env=env, capture_output=True, text=True, timeout=120)
    assert (done.returncode < 0) == (end == "die"), done.stderr
    (table,) = tmp_path.glob("calls-*.bin")
    found = callcount.read_ended(tmp_path)
    expected = {"Client_Compile": (2, 0, ())}
    if end == "die":
        expected["LoadedExecutable_Execute"] = (1, 1, (callcount.NEVER_RETURNED,))
    assert found == [expected]
    assert not table.exists()  # consumed: a table is read once
    assert callcount.read_ended(tmp_path) == []


def test_a_running_process_keeps_its_table_and_a_fork_counts_in_its_own(tmp_path: Path, plugin_0115: Plugin,
                                                                          counting: Path) -> None:
    plugin_0115.read_attribute_items()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its calls in a table of its own, then it waits until told to end
        code = 1
        try:
            os.close(write)
            plugin_0115.read_attribute_items()
            os.read(read, 1)
            code = 0
        finally:
            os._exit(code)
    os.close(read)
    try:
        mine = callcount.take()
        assert mine["Plugin_Attributes"][0] >= 1
        child_table = counting / f"calls-{pid}.bin"
        for _ in range(200):  # the child's first call makes its table, almost at once
            if callcount.read_table(child_table):
                break
            time.sleep(0.05)
        assert callcount.read_ended(counting) == []  # still running: its table stays
    finally:
        os.write(write, b"x")
        os.close(write)
        os.waitpid(pid, 0)
    (child,) = callcount.read_ended(counting)
    assert child == {"Plugin_Attributes": (1, 0, ())}
    assert "Plugin_Attributes" not in callcount.take()  # the parent's table never saw the child's call


def test_tallies_round_trip_through_results_json_and_add_up() -> None:
    tallies = {"Client_Compile": Tally(3), "Buffer_Delete": Tally(2, 1, ("INVALID_ARGUMENT",)),
               "Client_Create": Tally(0), "LAYOUTS.MemoryLayout_Serialize": Tally(1, 1, (callcount.NEVER_RETURNED,))}
    stored = tallies_to_json(tallies)
    assert stored == {"Buffer_Delete": "2 1 INVALID_ARGUMENT", "Client_Compile": 3, "Client_Create": 0,
                      "LAYOUTS.MemoryLayout_Serialize": "1 1 NEVER_RETURNED"}
    assert decode_tallies(stored) == tallies
    assert Tally.from_json("4 2") == Tally(4, 2)  # failed, codes never read
    merged = merge_tallies(tallies, {"Buffer_Delete": Tally(1, 1, ("FAILED_PRECONDITION",)), "Event_Await": Tally(1)})
    assert merged["Buffer_Delete"] == Tally(3, 2, ("FAILED_PRECONDITION", "INVALID_ARGUMENT"))
    assert merged["Event_Await"] == Tally(1) and merged["Client_Compile"] == Tally(3)
