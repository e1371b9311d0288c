"""The reports file of a child that runs tests for its worker (an isolated test, a worker's reruns of its findings):
one JSON event a line, written as the test goes (`append_event`), read by the worker and by the controller
(`read_child_events`)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CONFIRMATIONS_SUFFIX = ".confirmations.jsonl"  # a worker's reruns of its findings, in the log directory


def append_event(path: Path, event: dict[str, Any]) -> None:
    # Each event reaches the OS before the test goes on, so a crash of this process loses none (no fsync: the
    # reader is the worker on the same machine, moments later, not a machine that restarted).
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(event, default=str) + "\n")


@dataclass
class ChildEvents:
    """What a child streamed to its file: the node ids it started, and their phase reports."""

    started: set[str] = field(default_factory=set)
    reports: dict[str, dict[str, pytest.TestReport]] = field(default_factory=dict)  # node id -> phase -> report
    died: set[str] = field(default_factory=set)  # ended by their process's death (reruns.Reruns._record_death)

    def finished(self) -> set[str]:
        return {nodeid for nodeid, phases in self.reports.items() if "teardown" in phases} | self.died


def read_child_events(path: Path, config: pytest.Config) -> ChildEvents:
    """The events of a child's file, its reports made again by pytest's own hook (`config`: the reader's; the
    controller's after its session ends works too). A line cut short by a crash is skipped."""
    found = ChildEvents()
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return found
    for line in lines:
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if event.get("event") == "logstart":
            found.started.add(str(event.get("nodeid")))
        elif event.get("event") == "died":
            found.died.add(str(event.get("nodeid")))
        elif event.get("event") == "report" and event["data"].get("$report_type") == "TestReport":
            report = config.hook.pytest_report_from_serializable(config=config, data=event["data"])
            found.reports.setdefault(report.nodeid, {})[report.when] = report
    return found
