"""The events a worker sends its controller for each test, without the two that carry nothing for most tests.

pytest-xdist sends six execnet events per test: logstart, the setup, call and teardown reports, logfinish and
runtest_protocol_complete. Each costs both processes: the worker serialises it, execnet's threads carry it, the
controller unserialises it and runs its hooks. Two of them say nothing the controller needs for ~93 % of a run's tests:

- a setup report that passed and holds nothing but its duration (no pjrt_cts info, user properties or captured
  sections): its duration rides on the test's next report as `setup_duration` (records.result_of_phases adds it);
- logfinish after a teardown report: the controller ends a test at its teardown report (Controller), so logfinish
  is sent only for a test whose reports the runner made up without a teardown (a blocked test, an isolated test's
  child that died).

The controller takes either stream: without this filter every event arrives as xdist sends it.
"""
from __future__ import annotations

from typing import Any, Callable

import pytest

SETUP_DURATION = "setup_duration"  # a report attribute: the duration of the passed setup folded into it


class ThinEventStream:
    """Wraps a WorkerInteractor's `sendevent` (xdist/remote.py); one per worker process."""

    def __init__(self, send: Callable[..., None]) -> None:
        self._send = send
        self._held_setup: dict[str, Any] | None = None  # a passed setup report's data, until the test's next report
        self._torn_down: str | None = None  # the node id whose teardown report was sent last

    def sendevent(self, name: str, **kwargs: Any) -> None:
        if name == "testreport":
            self._report(kwargs)
            return
        if name == "logfinish" and kwargs.get("nodeid") == self._torn_down:
            self._torn_down = None
            return
        self._release_setup()
        self._send(name, **kwargs)

    def _report(self, kwargs: dict[str, Any]) -> None:
        data = kwargs["data"]
        held = self._held_setup
        if held is not None and held.get("nodeid") == data.get("nodeid"):
            self._held_setup = None
            data[SETUP_DURATION] = float(held.get("duration") or 0.0)
        else:
            self._release_setup()
        if data.get("when") == "setup" and _says_nothing_but_its_duration(data):
            self._held_setup = data
            return
        if data.get("when") == "teardown":
            self._torn_down = data.get("nodeid")
        self._send("testreport", **kwargs)

    def _release_setup(self) -> None:
        """A held setup report whose test sent no other report (it should not happen) goes as it was."""
        if self._held_setup is not None:
            data, self._held_setup = self._held_setup, None
            self._send("testreport", data=data)


def _says_nothing_but_its_duration(data: dict[str, Any]) -> bool:
    return (data.get("outcome") == "passed" and data.get("longrepr") is None and "wasxfail" not in data
            and not data.get("pjrt_cts") and not data.get("user_properties") and not data.get("sections"))


def thin_worker_events(config: pytest.Config) -> bool:
    """Install the filter on this xdist worker's interactor; False where there is none (not an xdist worker)."""
    for plugin in config.pluginmanager.get_plugins():
        if type(plugin).__name__ == "WorkerInteractor" and callable(getattr(plugin, "sendevent", None)):
            plugin.sendevent = ThinEventStream(plugin.sendevent).sendevent
            return True
    return False
