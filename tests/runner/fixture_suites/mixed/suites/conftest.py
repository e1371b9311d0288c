"""Throwaway suites for the runner's own tests: no plugin is loaded, anything may crash."""
import pytest


@pytest.fixture
def broken_fixture():
    raise RuntimeError("fixture exploded")


@pytest.fixture
def pjrt_call():
    """`pjrt_call(name, function)`: calls `function` as the runtime calls a PJRT function `name`, through the call
    hooks, so that the runner's call accounting counts it (no plugin needed)."""
    from pjrt_cts.runtime.hooks import call_hooks

    def call(name, function=lambda: None):
        for hook in call_hooks():
            function = hook.slot_function(None, name, function)
        return function()

    return call
