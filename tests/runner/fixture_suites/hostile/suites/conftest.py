"""Throwaway suites run against the hostile shim plugin (tests/runner/hostile_plugin.py) whose Compile aborts."""
from __future__ import annotations

import json
import os
from typing import Any, Iterator

import pytest


@pytest.fixture(scope="session")
def plugin() -> Any:
    from pjrt_cts.runtime import Plugin

    return Plugin.load(os.environ["PJRT_CTS_PLUGIN"])


@pytest.fixture(scope="session")
def client(plugin: Any) -> Iterator[Any]:
    with plugin.create_client(json.loads(os.environ.get("PJRT_CTS_CREATE_OPTIONS") or "{}")) as created:
        yield created
