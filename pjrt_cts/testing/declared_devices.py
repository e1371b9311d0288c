"""A pytest plugin for `pjrt-cts contract`: the device count every collected test declares, without a plugin.

Loaded into the contract's collection child (`pytest --collect-only -p pjrt_cts.testing.declared_devices
--declared-devices-out FILE`), it writes `{nodeid: devices}` for every collected item to FILE, where `devices`
is the merged `requires(devices=...)` of the item (parametrize, function, class and module marks; 0 when none),
exactly what `resolve_requirements` checks when the test runs. A level's mandatory tests must never need more
devices than the level's minimum (pjrt_cts.judgment.levels), and this is how the contract sees the need: from the
declarations, since collection loads no plugin.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pjrt_cts.testing.requirements import requirements_of

OPTION = "--declared-devices-out"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(OPTION, dest="declared_devices_out", default=None, metavar="FILE",
                     help="write {nodeid: declared device count} of the collected tests to FILE (pjrt-cts contract)")


def declared_devices(items: list[pytest.Item]) -> dict[str, int]:
    """nodeid -> the device count the item declares (0: none declared)."""
    return {item.nodeid: requirements_of(item).devices for item in items}


def pytest_collection_finish(session: pytest.Session) -> None:
    """After the conftests' collection_modifyitems: exactly the items a run would have."""
    out = session.config.getoption("declared_devices_out")
    if out:
        Path(out).write_text(json.dumps(declared_devices(session.items), indent=0, sort_keys=True), encoding="utf-8")
