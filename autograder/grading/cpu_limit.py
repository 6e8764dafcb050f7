"""Cell time limits that count the kernel's CPU time, with a wall-clock ceiling.

nbclient's ``timeout`` is wall-clock time, so a correct cell on a busy machine can run past
it and score 0 where it passed on a quiet one. :class:`CpuTimeLimit` (mixed into the
grader's execute preprocessor) counts instead the CPU time of the kernel's processes (the
student's whole cgroup when sandboxed: cgroup v2 counts it in ``cpu.stat``, v1 is read
from the group's processes; the kernel process otherwise) and interrupts the
cell once it has used ``timeout`` seconds of it, exactly as nbclient does at its wall clock.
A kernel that sleeps uses no CPU, so a wall-clock ceiling (``wall_clock_factor`` times the
timeout) still stops it. A kernel that ignores the interrupt for ``interrupt_grace``
seconds is reported as nbclient reports it (:class:`~nbclient.exceptions.CellTimeoutError`),
and the caller kills it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterable
from pathlib import Path
from queue import Empty

from nbclient.exceptions import CellTimeoutError
from traitlets import Bool, Float
from traitlets.config import Configurable

#: Seconds between two readings of the kernel's CPU time.
CPU_POLL_INTERVAL = 0.2
_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: Iterable[int]) -> float:
    """CPU seconds (user + system, with waited-for children) the processes *pids* have used."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            with open(f"/proc/{pid}/stat", "rb") as stat:
                # after the command name (which may hold spaces): state is field 3, utime 14
                fields = stat.read().rsplit(b")", 1)[1].split()
            total += sum(int(f) for f in fields[11:15])
    return total / _TICKS


def kernel_cpu_seconds(manager) -> float | None:
    """CPU seconds the kernel has used: its sandbox's group's count, else its process's; None: no kernel."""
    cgroup = getattr(manager, "cgroup", None)
    if cgroup is not None:
        return cgroup.cpu_seconds()
    pids = kernel_pids(manager)
    return cpu_seconds(pids) if pids else None


def kernel_pids(manager) -> list[int]:
    """The processes whose CPU time counts: the sandbox's cgroup, else the kernel process and
    its descendants (the judge runs each call in a forked child of the kernel)."""
    cgroup = getattr(manager, "cgroup", None)
    if cgroup is not None:
        return cgroup.processes()
    process = getattr(getattr(manager, "provisioner", None), "process", None)
    return descendants(process.pid) if process is not None and process.pid else []


def descendants(pid: int) -> list[int]:
    """*pid* and every process below it, from ``/proc/<pid>/task/<tid>/children``."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        for children in Path(f"/proc/{current}/task").glob("*/children"):
            with contextlib.suppress(OSError, ValueError):
                queue.extend(int(c) for c in children.read_text().split())
    return found


class CpuTimeLimit(Configurable):
    """Mixin for an nbclient client: ``timeout`` counts the kernel's CPU time."""

    cpu_time_limit = Bool(
        True, help="Count a cell's time limit in the kernel's CPU time, not on the clock"
    ).tag(config=True)
    wall_clock_factor = Float(
        3.0, help="A cell is stopped after this many times its limit on the clock, CPU or not"
    ).tag(config=True)
    interrupt_grace = Float(
        10.0, help="Seconds an interrupted kernel has to stop before it counts as ignoring it"
    ).tag(config=True)

    async def _async_poll_for_reply(
        self, msg_id, cell, timeout, task_poll_output_msg, task_poll_kernel_alive
    ):
        poll = super()._async_poll_for_reply  # type: ignore[misc]
        if timeout is None or not self.cpu_time_limit or kernel_cpu_seconds(self.km) is None:  # type: ignore[attr-defined]
            return await poll(msg_id, cell, timeout, task_poll_output_msg, task_poll_kernel_alive)
        ceiling = timeout * self.wall_clock_factor
        reply = asyncio.ensure_future(
            poll(msg_id, cell, ceiling, task_poll_output_msg, task_poll_kernel_alive)
        )
        used_up = asyncio.ensure_future(self._cpu_used_up(timeout))
        try:
            await asyncio.wait({reply, used_up}, return_when=asyncio.FIRST_COMPLETED)
            if reply.done():
                return reply.result()
            reply.cancel()
            # as nbclient at its wall clock: record, interrupt, wait for the kernel to go idle
            timed_out = await self._async_handle_timeout(timeout, cell)  # type: ignore[attr-defined]
            try:
                await asyncio.wait_for(task_poll_output_msg, self.interrupt_grace)
            except (TimeoutError, Empty):
                raise CellTimeoutError.error_from_timeout_and_cell(
                    "The kernel did not stop when interrupted", timeout, cell
                ) from None
            finally:
                task_poll_kernel_alive.cancel()
            timed_out = timed_out or {"content": {"status": "error"}}
            timed_out["parent_header"] = {"msg_id": msg_id}
            return timed_out
        finally:
            used_up.cancel()
            if not reply.done():
                reply.cancel()

    async def _cpu_used_up(self, limit: float) -> None:
        """Return once the kernel's processes have used *limit* CPU seconds since the call."""
        start = kernel_cpu_seconds(self.km) or 0.0  # type: ignore[attr-defined]
        while True:
            await asyncio.sleep(CPU_POLL_INTERVAL)
            if (kernel_cpu_seconds(self.km) or 0.0) - start >= limit:  # type: ignore[attr-defined]
                return
