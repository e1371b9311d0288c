import ctypes
import os
import time

import pytest

from pjrt_cts.schema import run_context

_KEEP = []


def _say(text):
    os.write(2, (text + "\n").encode())


@pytest.mark.isolated
def test_abort_isolated(pjrt_call):
    pjrt_call("Client_Compile")
    _say("plugin: about to abort (isolated)")
    pjrt_call("LoadedExecutable_Execute", os.abort)


@pytest.mark.isolated
def test_segfault_isolated():
    _say("plugin: about to read address 0")
    ctypes.string_at(0)


@pytest.mark.isolated
def test_isolated_pass():
    assert run_context().plugin_path


@pytest.mark.isolated
@pytest.mark.timeout(2)
def test_hang_isolated():
    time.sleep(10_000)


def test_abort_shared(pjrt_call):
    _say("plugin: about to abort (shared worker)")
    pjrt_call("Buffer_Delete", os.abort)


def test_exit_shared():
    _say("plugin: calling exit(3)")
    os._exit(3)


@pytest.mark.timeout(2)
def test_sleep_forever():
    _say("plugin: sleeping forever")
    time.sleep(10_000)


@pytest.mark.timeout(300)  # page-faulting 1 GiB is slow on a loaded machine
def test_leak_1gib():
    import numpy as np

    block = np.ones(1 << 30, dtype=np.uint8)  # touches every page
    _KEEP.append(block)
    assert int(block[::4096].sum()) == (1 << 30) // 4096


def test_after_crashes():
    assert True
