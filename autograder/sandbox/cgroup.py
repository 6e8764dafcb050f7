"""Each student's cgroup(s): limits, CPU time, and every process found again at the end.

:class:`StudentCgroup` is what the grader asks of a student's group, whatever the machine
mounts; :mod:`autograder.sandbox.cgroup_v1` (a memory and a pids group) and
:mod:`autograder.sandbox.cgroup_v2` (one group in the unified tree) do it.
:meth:`StudentCgroup.create` picks the one the machine has.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from autograder.sandbox.limits import SandboxLimits

#: Prefix of every student's group folder (``autograder-<grader pid>-<n>``).
GROUP_PREFIX = "autograder-"


class CgroupUnavailable(OSError):
    """No group can be made here; the message says what to arrange (root, or a delegated subtree)."""


@dataclass(frozen=True)
class StudentCgroup(ABC):
    """The group(s) that limit, count and end one student's kernel."""

    name: str
    folders: tuple[Path, ...]  # every folder the kernel's launcher joins

    #: The cgroup version this class drives (set by each backend).
    version: ClassVar[int] = 0

    @classmethod
    def create(cls, name: str, limits: SandboxLimits) -> StudentCgroup:
        """Make (or empty and reuse) *name*'s group(s) with *limits*, on the machine's hierarchy."""
        from autograder.sandbox import cgroup_hierarchy

        found = cgroup_hierarchy.version()
        if found is None:
            raise CgroupUnavailable(
                "this machine mounts no cgroup memory and pids controllers (neither cgroup v1 "
                "nor a cgroup v2 tree offering them)"
            )
        return backend(found).make(name, limits)

    @classmethod
    @abstractmethod
    def make(cls, name: str, limits: SandboxLimits) -> StudentCgroup:
        """Make the group(s) for *name* on this backend's hierarchy."""

    def processes(self) -> list[int]:
        """Every process still in the group(s)."""
        found: set[int] = set()
        for folder in self.folders:
            with contextlib.suppress(OSError):
                found.update(int(p) for p in (folder / "cgroup.procs").read_text().split())
        return sorted(found)

    def kill_all(self, wait: float = 10.0, grace: float = 0.0) -> list[int]:
        """SIGKILL every process in the group(s) until none is left; the pids that were killed.

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
            self.kill_round(left)
            killed.update(left)
            time.sleep(0.01)

    def kill_round(self, pids: list[int]) -> None:
        """Send SIGKILL to *pids*, the group's processes a moment ago."""
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    @abstractmethod
    def cpu_seconds(self) -> float:
        """CPU seconds (user + system) the group's processes have used."""

    @abstractmethod
    def memory_peak_mb(self) -> float:
        """The most memory the group used, in MiB (0 where the kernel does not say)."""

    @abstractmethod
    def hit_memory_limit(self) -> bool:
        """True when the kernel ran into the memory limit (the OOM killer may have struck)."""

    @abstractmethod
    def hit_pids_limit(self) -> bool:
        """True when a fork or thread was refused by the pids limit."""

    def remove(self) -> None:
        """Kill what is left, then remove the group(s)."""
        self.kill_all()
        for folder in self.folders:
            with contextlib.suppress(FileNotFoundError):
                folder.rmdir()


def backend(version: int) -> type[StudentCgroup]:
    """The :class:`StudentCgroup` class for cgroup *version* (1 or 2)."""
    from autograder.sandbox.cgroup_v1 import V1Cgroup
    from autograder.sandbox.cgroup_v2 import V2Cgroup

    for found in (V1Cgroup, V2Cgroup):
        if found.version == version:
            return found
    raise ValueError(f"no cgroup backend for version {version!r}; there are 1 and 2")


def read_counters(path: Path) -> dict[str, int]:
    """The ``name value`` lines of a cgroup counter file (cpu.stat, memory.events, pids.events).

    A missing or unreadable file has no counters.
    """
    counters = {}
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            with contextlib.suppress(ValueError):
                counters[key] = int(value)
    return counters


def group_parents() -> list[Path]:
    """The folders students' groups are made in on this machine (for finding leftovers)."""
    from autograder.sandbox import cgroup_hierarchy

    found = cgroup_hierarchy.version()
    if found == 1:
        return [cgroup_hierarchy.own_v1_folder(c) for c in cgroup_hierarchy.NEEDED]
    if found == 2:
        from autograder.sandbox.cgroup_delegation import student_parent

        return [student_parent()]
    return []
