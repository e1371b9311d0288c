"""The run specification the controller hands to its workers (a JSON file named by --pjrt-cts-spec)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pjrt_cts.schema import Shape, decode, encode


@dataclass
class RunSpec(Shape):
    out_dir: str
    log_dir: str
    rootdir: str
    timeout: float
    child_args: list[str]  # pytest arguments that rerun one test in a fresh process (isolated tests)
    select_ids: list[str] = field(default_factory=list)  # --id patterns; empty = all
    done_nodeids: list[str] = field(default_factory=list)  # finished in an earlier run (--resume)
    expectation_skips: list[list[str]] = field(default_factory=list)  # [pattern, reason]
    pythonpath: str = ""
    suite_paths: list[str] = field(default_factory=list)  # what workers collect (the controller never does)
    shard: list[int] | None = None  # [K, N] of `--shard K/N`: workers keep only shard K's tests (runner/files/shard.py)
    shard_durations: dict[str, float] = field(default_factory=dict)  # test id -> seconds, to balance shards
    quick: bool = False  # `--quick`: workers keep only a stratified sample of the mandatory contract (runner/worker/quick.py)
    only_nodeids: list[str] = field(default_factory=list)  # the confirmation pass: run exactly these, record no other
    # Workers rerun their own findings after their last test, in a process forked from their collected copy
    # (worker/reruns.py); the confirmation pass reruns what they could not.
    confirm_in_workers: bool = False

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(encode(self, indent=1))

    @classmethod
    def read(cls, path: Path | str) -> "RunSpec":
        return decode(Path(path).read_bytes(), cls)
