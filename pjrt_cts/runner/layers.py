"""The layer directories a suites tree holds (run --layers and selftest choose among them)."""
from __future__ import annotations

from pathlib import Path

from pjrt_cts.judgment.outcomes import LAYERS


def layer_dirs(suites_dir: Path) -> list[str]:
    """Layer directories present, in LAYERS order, then any others alphabetically."""
    if not suites_dir.is_dir():
        return []
    present = {p.name for p in suites_dir.iterdir()
               if p.is_dir() and not p.name.startswith(("_", ".")) and any(p.rglob("test_*.py"))}
    return [layer for layer in LAYERS if layer in present] + sorted(present - set(LAYERS))
