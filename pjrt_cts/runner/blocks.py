"""Blocks: what the run will not ask of the plugin again, because it already crashed or hung doing it.

A block names the finding that justifies it (a test id recorded once as CRASH/TIMEOUT) and what depends on
the failed step:
  fixtures        tests whose fixture closure uses one of them are reported FAIL "blocked by <finding>"
                  before anything of theirs runs (`plugin`: loading/initialising; `client`: client creation);
  functions       PJRT functions never called again in this run: a test reaching one FAILs as blocked at that
                  call (the call is not made); "GetPjrtApi" stands for loading the library;
  nodeid_prefixes tests under one of these (a crash storm's test module) are blocked before they start.

The runner writes them to `out/.run/blocks.json` (the preflight before workers start, the controller when it
detects a crash storm); workers read the file through pjrt_cts.runner.worker.blocking (the run context names it:
RunContext.blocks_file).
"""
from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable

from pjrt_cts.judgment.outcomes import LAYERS
from pjrt_cts.schema import TestRecord

LOAD_FUNCTION = "GetPjrtApi"


@dataclass(frozen=True)
class Block:
    finding: str  # test id of the CRASH/TIMEOUT record that justifies the block
    reason: str  # one line: what died, how, the plugin's last word
    fixtures: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()  # "PJRT_Client_Compile", or LOAD_FUNCTION
    nodeid_prefixes: tuple[str, ...] = ()
    plugin_path: str = ""  # the functions are blocked for this library only
    kind: str = "preflight"  # "preflight" | "crash storm"

    def message(self, where: str | None = None) -> str:
        at = f" ({where} not called)" if where else ""
        return f"blocked by {self.finding}: {self.reason}{at}"

    @classmethod
    def from_dict(cls, data: dict) -> "Block":
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        for name in ("fixtures", "functions", "nodeid_prefixes"):
            known[name] = tuple(known.get(name, ()))
        return cls(**known)


@dataclass
class BlockFile:
    path: Path
    blocks: list[Block] = field(default_factory=list)

    @classmethod
    def read(cls, path: Path) -> "BlockFile":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return cls(path)
        return cls(path, [Block.from_dict(entry) for entry in data.get("blocks", []) if isinstance(entry, dict)])

    def add(self, block: Block) -> None:
        self.blocks.append(block)
        self.write()

    def write(self) -> None:
        """Atomically: workers read it at any moment."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps({"blocks": [asdict(block) for block in self.blocks]}, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)


def blocked_summary(records: Iterable[TestRecord]) -> list[str]:
    """One terminal line per finding that blocked tests: how many, by layer (records carry details.blocked_by)."""
    by_finding: dict[str, Counter[str]] = {}
    for record in records:
        finding = record.details.get("blocked_by")
        if finding:
            by_finding.setdefault(str(finding), Counter())[record.layer] += 1
    order = {layer: index for index, layer in enumerate(LAYERS)}
    lines = []
    for finding, layers in by_finding.items():
        counts = ", ".join(f"{layer} {layers[layer]}" for layer in sorted(layers, key=lambda name: order.get(name, len(order))))
        lines.append(f"blocked: {sum(layers.values())} tests FAIL as blocked by {finding} ({counts})")
    return lines
