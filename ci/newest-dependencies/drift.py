"""Which installed distributions differ from the lock (constraints/test.txt): a Markdown table on stdout.

Used by ci/newest-dependencies/run after installing the newest allowed versions: the table says what the scheduled
job tested that CI does not, so a red run points at the packages that moved. Exit 0 always (the tests decide).
"""
from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.markers import Marker
from packaging.utils import canonicalize_name


def locked_versions(text: str) -> dict[str, str]:
    """name -> pinned version, for the lines whose marker holds in this interpreter."""
    pins: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        requirement, _, marker = line.partition(";")
        if marker.strip() and not Marker(marker.strip()).evaluate():
            continue
        name, sep, pinned = requirement.partition("==")
        if sep:
            pins[canonicalize_name(name.strip().split("[", 1)[0])] = pinned.strip()
    return pins


def drift(pins: dict[str, str]) -> list[tuple[str, str, str]]:
    """(name, locked, installed) for every locked distribution installed at another version, or not at all."""
    moved = []
    for name, pinned in sorted(pins.items()):
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = "not installed"
        if installed != pinned:
            moved.append((name, pinned, installed))
    return moved


def main(argv: list[str]) -> int:
    lock = Path(argv[1] if len(argv) > 1 else "constraints/test.txt")
    moved = drift(locked_versions(lock.read_text(encoding="utf-8")))
    print(f"## Newest dependencies against {lock}\n")
    if not moved:
        print("Every locked distribution is at its locked version: nothing newer is allowed or released.")
        return 0
    print(f"{len(moved)} distribution(s) newer than the lock:\n")
    print("| distribution | locked | installed |\n| --- | --- | --- |")
    for name, pinned, installed in moved:
        print(f"| {name} | {pinned} | {installed} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
