"""The student's kernel as processes, seen from the judge: what a call uses and leaves behind.

Each call the judge makes has its own limit in the kernel's CPU seconds, so the judge
marks the kernel's CPU time as the call starts (:meth:`KernelProcesses.cpu_before_call`)
and reads it while the call runs (:meth:`KernelProcesses.cpu_now`). What a call starts
does not outlive it: a fork bomb in the student's function would otherwise spend the CPU
seconds of every later call, so once a call has answered, every process the kernel did
not have when it began serving is killed (:meth:`KernelProcesses.end_strays`). The
processes are the sandbox's cgroup's, else the kernel process and its descendants.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from typing import Any

from nbclient.util import run_sync

from autograder.grading.cpu_limit import cpu_seconds, kernel_cpu_seconds, kernel_pids

#: Seconds the judge keeps killing what a call left running (each pass kills all it finds;
#: a killed process cannot fork, and the pids limit bounds how many there are).
STRAY_SECONDS = 5.0


class KernelProcesses:
    """The processes of the kernel behind *manager*, and those a call adds to them."""

    def __init__(self, manager: Any) -> None:
        self.manager = manager
        # the sandbox's group, read once (the manager makes a new one each time it is asked)
        self.cgroup = getattr(manager, "cgroup", None)
        # the kernel's processes once it serves: whatever a call adds to them is killed
        self.serving: frozenset[int] = frozenset()
        # True while the kernel's processes are known to be only those it served with
        self._only_serving = False

    def processes(self) -> list[int]:
        """The kernel's processes now: its sandbox's group, else the kernel and its descendants."""
        return self.cgroup.processes() if self.cgroup is not None else kernel_pids(self.manager)

    def mark_serving(self) -> None:
        """Note the kernel's processes as it starts serving the judge: the ones calls may keep."""
        self.serving = frozenset(self.processes())
        self._only_serving = True

    def cpu_before_call(self) -> float | None:
        """The kernel's CPU seconds as a call starts, the mark its CPU limit counts from.

        cgroup v1 counts the CPU of the group's live processes, and between two calls those
        are the kernel's own (what a call starts is killed after it): their times are read
        without listing the group again. cgroup v2 keeps one counter for the group.
        """
        if self.cgroup is not None:
            if self.cgroup.version == 1 and self._only_serving:
                return cpu_seconds(self.serving)
            return self.cgroup.cpu_seconds()
        return kernel_cpu_seconds(self.manager)

    def cpu_now(self) -> float | None:
        """The kernel's CPU seconds now, every process of it counted (None: no kernel)."""
        return kernel_cpu_seconds(self.manager)

    def end_strays(self) -> int:
        """SIGKILL the processes the last call started, until none is left (or STRAY_SECONDS).

        Returns how many were killed.
        """
        end = time.monotonic() + STRAY_SECONDS
        killed: set[int] = set()
        while True:
            strays = [p for p in self.processes() if p not in self.serving and running(p)]
            if not strays or time.monotonic() > end:
                self._only_serving = not strays
                return len(killed)
            for pid in strays:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            killed.update(strays)
            time.sleep(0.01)

    def alive(self) -> bool:
        """Whether the kernel still runs, as its manager tells (a manager that cannot tell: no)."""
        try:
            return bool(run_sync(self.manager.is_alive)())
        except Exception:  # noqa: BLE001 - a manager that cannot tell is not alive
            return False


def running(pid: int) -> bool:
    """True while *pid* exists and has not exited (a zombie waits for its parent to read it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def kill_process_group(manager: Any) -> None:
    """Kill the kernel behind *manager* for good (its process group when it has one)."""
    from autograder.sandbox.kernels import process_group

    try:
        run_sync(manager.shutdown_kernel)(now=True)
    except Exception:  # noqa: BLE001 - fall back to the process group
        pgid = process_group(manager)
        if pgid:
            with contextlib.suppress(OSError):
                os.killpg(pgid, signal.SIGKILL)
