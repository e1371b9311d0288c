import os
import subprocess
import sys

import pytest

from pjrt_cts.judgment.outcomes import HardeningFinding, FeatureNotSupported
from pjrt_cts.schema import run_context

# Stands in for pjrt_cts.runtime.PjrtError (matched by class name and module).
PjrtError = type("PjrtError", (Exception,), {"__module__": "pjrt_cts.runtime"})


def test_pass(pjrt_call):
    pjrt_call("Client_Create")
    pjrt_call("Client_Create")
    assert 1 + 1 == 2


def test_fail():
    assert [1, 2] == [1, 3], "lists differ"


def test_not_supported():
    raise FeatureNotSupported("plugin lacks PJRT_Frobnicate")


def test_skip_not_supported():
    pytest.skip("NOT_SUPPORTED: only 1 device, need 2")


def test_unimplemented():
    error = PjrtError("PJRT_Client_Compile: UNIMPLEMENTED: no such op")
    error.code = "UNIMPLEMENTED"
    raise error


def test_other_pjrt_error():
    error = PjrtError("PJRT_Client_Compile: INVALID_ARGUMENT: bad")
    error.code = "INVALID_ARGUMENT"
    raise error


def test_warning():
    raise HardeningFinding("PJRT_Buffer_Delete twice crashes")


def test_details(record_details, record_compatibility):
    record_details(max_abs_err=0.5, first_mismatch_index=[1, 2])
    record_compatibility(stablehlo_current_version="1.2.3")
    raise AssertionError("max abs err 0.5 at [1, 2]")


def test_fixture_error(broken_fixture):
    pass


# A child process of the test that makes a PJRT call: its calls count for the test.
CHILD_CALL = """
from pjrt_cts.runtime.hooks import call_hooks
function = lambda: None
for hook in call_hooks():
    function = hook.slot_function(None, "Client_Compile", function)
function()
"""


@pytest.mark.feature("donation")
def test_tagged():
    subprocess.run([sys.executable, "-c", CHILD_CALL], check=True)


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_param(dtype):
    assert dtype


def test_environment():
    context = run_context()  # the one channel of the run (pjrt_cts.schema)
    plugin = context.plugin_path
    assert plugin and os.path.isabs(plugin) and os.path.isfile(plugin)
    assert context.create_options == {"cpu_device_count": 4}
    assert os.path.isdir(context.out_dir)
    print("hello from stdout", flush=True)
    print("hello from stderr", file=sys.stderr, flush=True)
