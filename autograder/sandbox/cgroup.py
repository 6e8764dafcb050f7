"""Each student's cgroup v1 memory and pids groups: limits, and every process found again at the end."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.sandbox.limits import SandboxLimits

#: cgroup v1 hierarchies the grader needs, read-write.
CGROUP_ROOT = Path("/sys/fs/cgroup")


CONTROLLERS = ("memory", "pids")


def own_cgroup(controller: str) -> Path:
    """The cgroup v1 folder this process belongs to for *controller* (new groups go inside it)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return CGROUP_ROOT / controller / path.lstrip("/")
    raise FileNotFoundError(f"no cgroup v1 {controller} controller for this process")


@dataclass(frozen=True)
class StudentCgroup:
    """A memory and a pids cgroup for one student's kernel."""

    name: str
    folders: tuple[Path, ...]  # one per controller, in CONTROLLERS order

    @classmethod
    def create(cls, name: str, limits: SandboxLimits) -> StudentCgroup:
        """Make (or empty and reuse) the groups for *name* and set *limits*."""
        folders = tuple(own_cgroup(c) / f"autograder-{name}" for c in CONTROLLERS)
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
    def memory(self) -> Path:
        return self.folders[0]

    @property
    def pids(self) -> Path:
        return self.folders[1]

    def processes(self) -> list[int]:
        """Every process still in the groups."""
        found: set[int] = set()
        for folder in self.folders:
            with contextlib.suppress(OSError):
                found.update(int(p) for p in (folder / "cgroup.procs").read_text().split())
        return sorted(found)

    def kill_all(self, wait: float = 10.0, grace: float = 0.0) -> list[int]:
        """SIGKILL every process in the groups until none is left; the pids that were killed.

        Processes exiting on their own within *grace* seconds are left to do so.
        Processes forking while this runs are caught on the next pass: the pids limit
        bounds how many there can be, and a killed process cannot fork.
        """
        settle = time.monotonic() + grace
        while self.processes() and time.monotonic() < settle:
            time.sleep(0.02)
        killed: set[int] = set()
        deadline = time.monotonic() + wait
        while True:
            left = self.processes()
            if not left:
                return sorted(killed)
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"processes {left[:10]} of sandbox {self.name} survived SIGKILL for {wait:g} s"
                )
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            time.sleep(0.01)

    def memory_peak_mb(self) -> float:
        """The most memory the group used, in MiB."""
        try:
            return int((self.memory / "memory.max_usage_in_bytes").read_text()) / 2**20
        except (OSError, ValueError):
            return 0.0

    def hit_memory_limit(self) -> bool:
        """True when the kernel ran into the memory limit (the OOM killer may have struck)."""
        try:
            control = (self.memory / "memory.oom_control").read_text()
            failcnt = int((self.memory / "memory.failcnt").read_text())
        except (OSError, ValueError):
            return False
        kills = [line.split()[1] for line in control.splitlines() if line.startswith("oom_kill ")]
        return failcnt > 0 or any(k != "0" for k in kills)

    def hit_pids_limit(self) -> bool:
        """True when a fork or thread was refused by the pids limit."""
        try:
            return int((self.pids / "pids.events").read_text().split()[-1]) > 0
        except (OSError, ValueError, IndexError):
            return False

    def remove(self) -> None:
        """Kill what is left, then remove the groups."""
        self.kill_all()
        for folder in self.folders:
            with contextlib.suppress(FileNotFoundError):
                folder.rmdir()
