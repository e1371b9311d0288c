"""The events a worker sends its controller for each test, without those that carry nothing for most tests.

pytest-xdist sends six execnet events per test: logstart, the setup, call and teardown reports, logfinish and
runtest_protocol_complete. Each costs both processes: the worker serialises it, execnet's threads carry it, the
controller unserialises it and runs its hooks. For ~90 % of a run's tests four of them say nothing the controller
needs:

- logstart: the controller knows which test a worker runs from xdist's schedule, and a death's duration from the
  worker's last report (Controller.last_word);
- a setup or call report that passed and holds nothing but its duration (no pjrt_cts info, user properties, captured
  sections): its duration rides on the test's next report as `folded_duration` (records.result_of_phases adds it).
  The teardown report is always sent: it is the test's last;
- logfinish after a teardown report: the controller ends a test at its teardown report (Controller), so logfinish
  is sent only for a test whose reports the runner made up without a teardown (a blocked test, an isolated test's
  child that died).

A worker that dies while a report is held loses only that report's duration: its test's record is a death's anyway.
The controller takes either stream: without this filter every event arrives as xdist sends it.
"""
from __future__ import annotations

from typing import Any, Callable

import pytest

FOLDED_DURATION = "folded_duration"  # a report attribute: the durations of the test's earlier phases it stands for


class ThinEventStream:
    """Wraps a WorkerInteractor's `sendevent` (xdist/remote.py); one per worker process."""

    def __init__(self, send: Callable[..., None]) -> None:
        self._send = send
        self._held: list[dict[str, Any]] = []  # the reports of the test under way that say nothing but a duration
        self._torn_down: str | None = None  # the node id whose teardown report was sent last

    def sendevent(self, name: str, **kwargs: Any) -> None:
        if name == "testreport":
            self._report(kwargs["data"])
            return
        if name == "logstart":
            return
        if name == "logfinish" and kwargs.get("nodeid") == self._torn_down:
            self._torn_down = None
            return
        self._release()
        self._send(name, **kwargs)

    def _report(self, data: dict[str, Any]) -> None:
        if self._held and self._held[0].get("nodeid") != data.get("nodeid"):
            self._release()
        if data.get("when") != "teardown" and _says_nothing_but_its_duration(data):
            self._held.append(data)
            return
        if self._held:
            data[FOLDED_DURATION] = sum(float(held.get("duration") or 0.0) for held in self._held)
            self._held = []
        if data.get("when") == "teardown":
            self._torn_down = data.get("nodeid")
        self._send("testreport", data=data)

    def _release(self) -> None:
        """Held reports whose test sent no later report (it should not happen) go as they were."""
        held, self._held = self._held, []
        for data in held:
            self._send("testreport", data=data)


def _says_nothing_but_its_duration(data: dict[str, Any]) -> bool:
    return (data.get("outcome") == "passed" and data.get("longrepr") is None and "wasxfail" not in data
            and not data.get("pjrt_cts") and not data.get("user_properties") and not data.get("sections"))


def thin_worker_events(config: pytest.Config) -> bool:
    """Install the filter on this xdist worker's interactor; False where there is none (not an xdist worker)."""
    for plugin in config.pluginmanager.get_plugins():
        # By name: a worker runs xdist's remote.py as execnet's `__channelexec__` module, not as `xdist.remote`.
        if type(plugin).__name__ == "WorkerInteractor" and callable(getattr(plugin, "sendevent", None)):
            plugin.sendevent = ThinEventStream(plugin.sendevent).sendevent
            return True
    return False
