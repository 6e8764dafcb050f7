"""A student's group in the cgroup v2 tree: memory, swap and pids limits, CPU time, ``cgroup.kill``."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import ClassVar

from autograder.sandbox.cgroup import GROUP_PREFIX, StudentCgroup, read_counters
from autograder.sandbox.cgroup_delegation import student_parent
from autograder.sandbox.limits import SandboxLimits


@dataclass(frozen=True)
class V2Cgroup(StudentCgroup):
    """One group (cgroup v2) that limits memory and tasks and counts CPU time."""

    version: ClassVar[int] = 2

    @classmethod
    def make(cls, name: str, limits: SandboxLimits) -> V2Cgroup:
        """Make (or empty and reuse) the group for *name* and set *limits*."""
        folder = student_parent() / f"{GROUP_PREFIX}{name}"
        group = cls(name, (folder,))
        group.kill_all()
        folder.mkdir(exist_ok=True)
        (folder / "memory.max").write_text(str(limits.memory_mb * 1024 * 1024))
        swap = folder / "memory.swap.max"
        if swap.exists():  # with swap accounting: nothing swapped out to get past the limit
            swap.write_text("0")
        (folder / "pids.max").write_text(str(limits.pids))
        return group

    @property
    def folder(self):
        return self.folders[0]

    def kill_round(self, pids: list[int]) -> None:
        """``cgroup.kill`` (Linux 5.14+) kills every process at once, forks in flight included."""
        try:
            (self.folder / "cgroup.kill").write_text("1")
        except OSError:
            super().kill_round(pids)

    def cpu_seconds(self) -> float:
        """CPU seconds the group has used since it was made, exited processes included."""
        return read_counters(self.folder / "cpu.stat").get("usage_usec", 0) / 1e6

    def memory_peak_mb(self) -> float:
        """The most memory the group used (``memory.peak``, Linux 5.19+), else what it uses now."""
        for name in ("memory.peak", "memory.current"):
            with contextlib.suppress(OSError, ValueError):
                return int((self.folder / name).read_text()) / 2**20
        return 0.0

    def hit_memory_limit(self) -> bool:
        """True when usage reached ``memory.max`` or the OOM killer struck."""
        events = read_counters(self.folder / "memory.events")
        return events.get("max", 0) > 0 or events.get("oom_kill", 0) > 0

    def hit_pids_limit(self) -> bool:
        """True when a fork or thread was refused by ``pids.max``."""
        return read_counters(self.folder / "pids.events").get("max", 0) > 0
