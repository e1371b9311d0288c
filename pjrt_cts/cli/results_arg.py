"""Reading a results.json named on the command line: an unreadable one is a usage error (exit 2)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pjrt_cts.cli.main import UsageError

if TYPE_CHECKING:
    from pjrt_cts.schema import Results


def read_results(path: Path) -> Results:
    from pjrt_cts.judgment.results import ResultsError, load_results

    try:
        return load_results(path)
    except ResultsError as exc:
        raise UsageError(str(exc)) from exc
