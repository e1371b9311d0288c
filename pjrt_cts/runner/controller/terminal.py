"""The end-of-run terminal summary: a per-layer table of outcomes and the verdict."""
from __future__ import annotations

from typing import Any

from tabulate import tabulate

from pjrt_cts.judgment.outcomes import Outcome


def summary_table(summary: dict[str, Any]) -> str:
    totals: dict[str, int] = summary.get("totals", {})
    columns = [o.value for o in Outcome if totals.get(o.value)]
    rows = []
    for layer, counts in summary.get("by_layer", {}).items():
        rows.append([layer] + [counts.get(c, 0) or "" for c in columns] + [sum(counts.values())])
    rows.append(["TOTAL"] + [totals.get(c, 0) for c in columns] + [sum(totals.values())])
    return tabulate(rows, headers=["layer"] + columns + ["total"], tablefmt="simple")
