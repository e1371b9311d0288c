"""Reruns shared between workers, through files in the log directory (no pytest hooks: reruns.Reruns calls it).

A worker that has ended its tests reruns a piece of the findings of the last worker still testing, and the
findings of a worker that died (its list, and the test it died in, which the controller adds). Each file is
written whole (an atomic rename) and claimed by an atomic rename, so one worker only gets it:

- `<worker>-<pid>.testing` while a worker process runs its tests, then `.ending` while it reruns findings or waits
  for a share of another's;
- `<worker>-<pid>.findings`: the node ids of a worker process's findings, as they come;
- `<worker>-<pid>-<k>.shared-findings`: a piece of a worker's findings that whichever worker is free first reruns.

A marker counts only while its process is alive and a child of the same controller (`/proc/<pid>/stat`).
docs/runner.md says what this buys (the run ratio) and why it stays."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

FINDINGS_SUFFIX = ".findings"
TESTING_SUFFIX = ".testing"
ENDING_SUFFIX = ".ending"
SHARED_SUFFIX = ".shared-findings"
MAX_SHARED_PIECES = 4  # a worker's findings split at most this many ways (each piece: a process and a client)
WAIT_POLL_SECONDS = 0.05


@dataclass
class RerunSharing:
    """One worker process's side of the protocol. `collected`: the node ids it collected (it reruns only those);
    `units`: node id -> golden program; `isolated`: its tests marked isolated."""

    log_dir: Path
    worker_id: str
    collected: Mapping[str, object] = field(default_factory=dict)
    units: Mapping[str, str | None] = field(default_factory=dict)
    isolated: set[str] = field(default_factory=set)

    def marker(self, suffix: str) -> Path:
        """`<worker>-<pid><suffix>` in the log directory: this worker process's state or its findings."""
        return self.log_dir / f"{self.worker_id}-{os.getpid()}{suffix}"

    def note_finding(self, nodeid: str) -> None:
        """On disk too: if a later test kills this worker, another worker reruns it (claim_orphans)."""
        with open(self.marker(FINDINGS_SUFFIX), "a", encoding="utf-8") as handle:
            handle.write(nodeid + "\n")

    def testing(self) -> None:
        self.marker(TESTING_SUFFIX).touch()

    def ending(self) -> None:
        self.marker(ENDING_SUFFIX).touch()
        self.marker(TESTING_SUFFIX).unlink(missing_ok=True)

    def ended(self) -> None:
        self.marker(TESTING_SUFFIX).unlink(missing_ok=True)
        self.marker(ENDING_SUFFIX).unlink(missing_ok=True)

    def done(self) -> None:
        """Every finding rerun: a worker ending later must not take this list for a dead worker's."""
        self.marker(FINDINGS_SUFFIX).unlink(missing_ok=True)

    def peers(self, suffix: str) -> int:
        """How many other worker processes of this run (children of the same controller, still running) are in the
        state `suffix` names. A marker left by a worker that died, or by an earlier run in the same directory whose
        process id is now another process's, does not count: a worker waits on its peers (next_batch)."""
        pids = (_pid_in_name(path, suffix) for path in self.log_dir.glob(f"*{suffix}"))
        return sum(1 for pid in pids if pid is not None and pid != os.getpid() and _alive(pid, parent=os.getppid()))

    def share(self, own: list[str]) -> list[str]:
        """Split `own` findings when other workers have ended their tests: they rerun the later pieces (claimed by
        whichever is free first: claim_shared) while this worker reruns the first. The last worker to end would
        otherwise rerun all of its findings while the others idle. A golden program's findings stay in one piece (a
        piece compiles the programs of its findings again)."""
        helpers = self.peers(ENDING_SUFFIX)
        pieces = split_findings(own, self.units, min(1 + helpers, MAX_SHARED_PIECES)) if helpers else [own]
        for index, piece in enumerate(pieces[1:], start=1):
            name = f"{self.worker_id}-{os.getpid()}-{index}{SHARED_SUFFIX}"
            partial = self.log_dir / f".{name}.partial"
            partial.write_text("".join(nodeid + "\n" for nodeid in piece), encoding="utf-8")
            os.replace(partial, self.log_dir / name)  # whole or not at all: a claimer reads it at once
        return pieces[0]

    def claim_shared(self) -> list[str]:
        """A piece of some worker's findings (share) no other worker has claimed."""
        for path in sorted(self.log_dir.glob(f"*{SHARED_SUFFIX}")):
            claimed = self._claim(path)
            if claimed:
                return claimed
        return []

    def claim_orphans(self) -> list[str]:
        """The findings of one worker that died (the test it died in is on its list too), one list at a time, so that
        workers ending one after the other share the dead workers' lists. Two isolated twins
        (confirmation.twin_of) are left to confirm each other. A worker that dies after the last one ends leaves its
        list to the confirmation pass."""
        from pjrt_cts.runner.controller.confirmation import twin_of

        for path in sorted(self.log_dir.glob(f"*{FINDINGS_SUFFIX}")):
            pid = _pid_in_name(path, FINDINGS_SUFFIX)
            if pid is None or pid == os.getpid() or _alive(pid):
                continue
            claimed = self._claim(path)
            paired = {nodeid for nodeid in claimed
                      if nodeid in self.isolated and twin_of(nodeid) in self.isolated and twin_of(nodeid) in claimed}
            left = [nodeid for nodeid in claimed if nodeid not in paired]
            if left:
                return left
        return []

    def next_batch(self) -> list[str]:
        """What this worker reruns next: a shared piece or a dead worker's list. While another worker still runs
        tests, wait for what it may share or leave behind (the scheduler has no test left to give); once none does,
        whatever is left, or nothing."""
        while True:
            batch = self.claim_shared() or self.claim_orphans()
            if batch:
                return batch
            if not self.peers(TESTING_SUFFIX):
                # A worker shares before it counts as ended: one more look finds what the last one shared.
                return self.claim_shared() or self.claim_orphans()
            time.sleep(WAIT_POLL_SECONDS)

    def _claim(self, path: Path) -> list[str]:
        """The node ids `path` lists (once each, those this worker collected), claimed by renaming it to
        `<name>.claimed-by-<pid>`: atomic, so one worker only gets them. Empty when another worker claimed it first.
        The claimed file is removed once read: a rerun this worker does not finish is the confirmation pass's."""
        mine = path.with_name(f"{path.name}.claimed-by-{os.getpid()}")
        try:
            os.rename(path, mine)
        except OSError:
            return []
        listed = mine.read_text(encoding="utf-8").split()
        mine.unlink(missing_ok=True)
        return [nodeid for nodeid in dict.fromkeys(listed) if nodeid in self.collected]


def split_findings(nodeids: list[str], units: Mapping[str, str | None], count: int) -> list[list[str]]:
    """`nodeids` in at most `count` consecutive pieces of about equal rerun cost, never splitting the findings of one
    golden program (`units`: node id -> its program, or None): a piece compiles its programs again, so a program
    weighs one and a finding outside any program a quarter. The first piece is never empty."""
    blocks: list[list[str]] = []
    for nodeid in nodeids:
        unit = units.get(nodeid)
        if blocks and unit is not None and units.get(blocks[-1][-1]) == unit:
            blocks[-1].append(nodeid)
        else:
            blocks.append([nodeid])
    weights = [1.0 if units.get(block[0]) is not None else 0.25 for block in blocks]
    count = max(1, min(count, len(blocks)))
    target = sum(weights) / count
    pieces: list[list[str]] = [[]]
    weight = 0.0
    for block, block_weight in zip(blocks, weights):
        if pieces[-1] and weight + block_weight / 2 > target and len(pieces) < count:
            pieces.append([])
            weight = 0.0
        pieces[-1].extend(block)
        weight += block_weight
    return pieces


def _alive(pid: int, parent: int | None = None) -> bool:
    """Whether process `pid` still runs (a zombie, dead but not yet reaped, does not), and, given `parent`, is that
    process's child (where /proc cannot tell, alive is enough)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return parent is None
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return True  # no /proc: alive as far as kill() can tell
    state, ppid = stat.rsplit(")", 1)[-1].split()[:2]  # the fields after the command name
    return state != "Z" and (parent is None or int(ppid) == parent)


def _pid_in_name(path: Path, suffix: str) -> int | None:
    """The process id a `<worker>-<pid><suffix>` file in the log directory names, None when it names none."""
    pid = path.name[:-len(suffix)].rsplit("-", 1)[-1]
    return int(pid) if pid.isdigit() else None
