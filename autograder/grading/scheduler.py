"""Run grading jobs on every core, killing any that outlive their wall clock.

Workers are forked from a forkserver that has already imported nbgrader, so each student
costs a fork rather than a fresh interpreter (:mod:`autograder.grading.forkserver`). A worker that overruns is killed together
with its kernel's process group (the kernel runs in its own session, so killing the
worker alone would leave a looping kernel behind); a sandboxed kernel is killed through
its cgroup, which also holds every process the student's code started.

Why not a pool library (``concurrent.futures``, or ``pebble`` with per-task timeouts)?
Each student gets a fresh process forked from the warmed server (nbgrader keeps global
state, so reusing a worker between students would leak one student's grading into the
next), and a timeout must kill the sandbox's processes before the worker's slot is
reused, in that order. Those two needs are this module's ~100 lines; a pool would be
configured against its grain (one task per process, a kill hook) for little gain.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from autograder.grading.forkserver import start_forkserver
from autograder.grading.worker import Job, run

#: How often the parent checks on its workers, in seconds. A slot given back waits half of
#: it on average before the next student is released; a check is a few microseconds of
#: ``is_alive`` and event reads, so a short interval costs the parent next to nothing.
POLL_INTERVAL = 0.01
#: Workers started ahead of a free slot, each booting its student's kernel in its sandbox and
#: doing nbgrader's bookkeeping up to the first cell meanwhile (:mod:`autograder.grading.slot`).
AHEAD = 1


@dataclass(frozen=True)
class Finished:
    """One job's end: how long it took and whether the parent had to kill it."""

    job: Job
    seconds: float
    killed: bool
    exitcode: int | None


def default_jobs() -> int:
    """Every core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass
class _Worker:
    """One student's worker process, its two events, and when it was released."""

    job: Job
    process: multiprocessing.process.BaseProcess
    release: Any  # set by the parent: grade now
    graded: Any  # set by the worker: its kernel is gone, only the feedback page is left
    started: float = 0.0

    @property
    def holds_a_slot(self) -> bool:
        """Grading (a kernel running the student's code), not just writing feedback."""
        return not self.graded.is_set()


def run_all(
    jobs: Sequence[Job],
    workers: int,
    wall_clock: Callable[[Job], float],
    on_finished: Callable[[Finished], None],
    ahead: int = AHEAD,
    target: Callable[..., None] = run,
) -> None:
    """Run *jobs* at most *workers* at a time; call *on_finished* in this process as each ends.

    *ahead* more workers are started early: each starts its student's kernel in its sandbox
    and does nbgrader's bookkeeping up to the student's first cell, then waits to be
    released into a free slot, so no student waits for a kernel to boot or a gradebook to
    open. A worker gives its slot back once its student's code has stopped (its ``graded``
    event): saving the scores and writing the feedback page, the grader's own work, then
    overlap the next student's grading. A job's wall clock starts when it is released and runs to its exit.
    *target* is what each worker process runs, ``target(job, release, graded)``.
    """
    context = start_forkserver()
    pending = list(jobs)
    waiting: list[_Worker] = []
    # each running worker keeps its events: a collected one is unlinked before its worker opens it
    running: list[_Worker] = []
    try:
        while pending or waiting or running:
            finished: list[Finished] = []
            still: list[_Worker] = []
            for worker in running:
                elapsed = time.monotonic() - worker.started
                if not worker.process.is_alive():
                    worker.process.join()
                    finished.append(Finished(worker.job, elapsed, False, worker.process.exitcode))
                elif elapsed > wall_clock(worker.job):
                    _kill(worker.job, worker.process)
                    finished.append(Finished(worker.job, elapsed, True, worker.process.exitcode))
                else:
                    still.append(worker)
            running = still
            # refill the free slots first: the callbacks (gradebook merges) then overlap with grading
            while (waiting or pending) and sum(w.holds_a_slot for w in running) < max(1, workers):
                if not waiting:
                    waiting.append(_start(context, pending.pop(0), target))
                worker = waiting.pop(0)
                worker.release.set()
                worker.started = time.monotonic()
                running.append(worker)
            while pending and len(waiting) < ahead:
                waiting.append(_start(context, pending.pop(0), target))
            for done in finished:
                on_finished(done)
            if running and not finished:
                time.sleep(POLL_INTERVAL)
    finally:
        # interrupted (Ctrl-C): leave no kernels behind
        for worker in running + waiting:
            _kill(worker.job, worker.process)


def _start(context, job: Job, target: Callable[..., None]) -> _Worker:
    """Start *job*'s worker held at its start line: it starts its kernel, then waits for *release*."""
    release, graded = context.Event(), context.Event()
    process = context.Process(
        target=target, args=(job, release, graded), name=f"grade-{job.student_id}", daemon=False
    )
    process.start()
    return _Worker(job, process, release, graded)


def _kill(job: Job, process: multiprocessing.process.BaseProcess) -> None:
    process.kill()
    process.join()
    kill_kernel_group(job)


def kill_kernel_group(job: Job) -> None:
    """SIGKILL every process of the job's sandbox, or outside one the kernel's process group."""
    if job.sandbox is not None:
        job.sandbox.cgroup.kill_all()
        return
    try:
        pgid = int(job.kernel_pid_file.read_text())
    except (FileNotFoundError, ValueError):
        return
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    except PermissionError as error:  # not ours: never kill what we did not start
        print(f"autograder: could not kill kernel group {pgid}: {error}", file=sys.stderr)
