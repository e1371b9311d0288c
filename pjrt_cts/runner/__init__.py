"""`pjrt-cts run`: a controller that never loads the plugin, and pytest-xdist workers that do.

See docs/runner.md for the isolation mechanism, the expectations format and the output files.
"""
from __future__ import annotations

from pjrt_cts.judgment.results import load_results

__all__ = ["load_results"]
