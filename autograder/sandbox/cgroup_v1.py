"""A student's cgroup v1 memory and pids groups, made inside the grader's own (as root)."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import ClassVar

from autograder.grading.cpu_limit import cpu_seconds
from autograder.sandbox.cgroup import GROUP_PREFIX, CgroupUnavailable, StudentCgroup, read_counters
from autograder.sandbox.cgroup_hierarchy import NEEDED, own_v1_folder
from autograder.sandbox.limits import SandboxLimits


@dataclass(frozen=True)
class V1Cgroup(StudentCgroup):
    """A memory and a pids group (cgroup v1), in :data:`NEEDED` order."""

    version: ClassVar[int] = 1

    @classmethod
    def make(cls, name: str, limits: SandboxLimits) -> V1Cgroup:
        """Make (or empty and reuse) the groups for *name* and set *limits*."""
        if os.geteuid() != 0:
            # v1 has no safe delegation to a user: its groups are root's to make
            raise CgroupUnavailable(
                "this machine mounts cgroup v1, whose memory and pids groups only root can make: "
                "run grade as root"
            )
        folders = tuple(own_v1_folder(c) / f"{GROUP_PREFIX}{name}" for c in NEEDED)
        group = cls(name, folders)
        group.kill_all()
        for folder in folders:
            folder.mkdir(exist_ok=True)
        memory, pids = folders
        limit = str(limits.memory_mb * 1024 * 1024)
        (memory / "memory.limit_in_bytes").write_text(limit)
        swap = memory / "memory.memsw.limit_in_bytes"
        if swap.exists():  # with swap accounting: no swapping past the limit either
            with contextlib.suppress(OSError):
                swap.write_text(limit)
        (pids / "pids.max").write_text(str(limits.pids))
        return group

    @property
    def memory(self):
        return self.folders[0]

    @property
    def pids(self):
        return self.folders[1]

    def cpu_seconds(self) -> float:
        """CPU seconds of the processes in the groups now (v1 has no CPU counter in these two)."""
        return cpu_seconds(self.processes())

    def memory_peak_mb(self) -> float:
        """The most memory the group used, in MiB."""
        try:
            return int((self.memory / "memory.max_usage_in_bytes").read_text()) / 2**20
        except (OSError, ValueError):
            return 0.0

    def hit_memory_limit(self) -> bool:
        """True when usage reached the limit (``failcnt``) or the OOM killer struck."""
        try:
            failcnt = int((self.memory / "memory.failcnt").read_text())
        except (OSError, ValueError):
            return False
        return (
            failcnt > 0 or read_counters(self.memory / "memory.oom_control").get("oom_kill", 0) > 0
        )

    def hit_pids_limit(self) -> bool:
        """True when a fork or thread was refused by the pids limit."""
        return read_counters(self.pids / "pids.events").get("max", 0) > 0
