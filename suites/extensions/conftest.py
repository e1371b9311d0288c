"""Extensions layer fixtures: executables whose layouts and shardings the tests query (one compile per worker)."""
from __future__ import annotations

from typing import Any

import pytest

from pjrt_cts.testing import compile_cached
from pjrt_cts.testing.extension_programs import TWO_IN_TWO_OUT


@pytest.fixture
def two_in_two_out(client: Any) -> Any:
    return compile_cached(client, ("extensions", "two_in_two_out"), lambda: client.compile(TWO_IN_TWO_OUT))
