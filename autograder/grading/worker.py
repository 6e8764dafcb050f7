"""Grade one student in a private nbgrader course (runs in a worker process).

Each worker gets its own copy of the gradebook, so students never wait on one another's
database writes; the parent merges the result into the class gradebook afterwards. The
worker is the grader's own code; the student's code runs only in the kernel, which
(unless ``--no-sandbox``) is in the student's sandbox and sees none of these files.
Before nbgrader saves the scores and writes the feedback page, every process of the sandbox
is killed and waited for (:mod:`autograder.grading.slot`).
"""

from __future__ import annotations

import os
import shutil
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from traitlets.config import Config

from autograder.grading import slot
from autograder.grading.guarded_execute import EXECUTIONS, STAGE_SECONDS
from autograder.grading.outcome import SandboxReport, StepResult, WorkerOutcome
from autograder.sandbox.cgroup import StudentCgroup
from autograder.sandbox.kernels import SandboxedKernelManager, prestart_kernel, shut_down_prestarted
from autograder.sandbox.limits import SandboxLimits
from autograder.term.nbgrader_course import db_url

#: Files the worker leaves for the parent in its folder.
RESULT_FILE = "result.json"
OUTPUT_FILE = "output.log"
KERNEL_PID_FILE = "kernel.pgid"
#: The share of a student's time (``Job.seconds``) the judge may use up, counted from the
#: worker's release: the rest is left for the call running at the deadline to be stopped
#: (``interrupt_grace``), the records and the feedback page, so the student is scored.
JUDGE_SHARE = 0.8
#: The run's shared highlighted code and Markdown, beside the students' folders (no student
#: folder starts with a dot): see :mod:`autograder.records.render_cache`.
RENDER_CACHE = ".render-cache"


@dataclass(frozen=True)
class Sandbox:
    """The student's sandbox: its cgroup (made by the parent), limits and visible files."""

    cgroup: StudentCgroup
    limits: SandboxLimits
    home_files: tuple[Path, ...]  # shown read-only in the kernel's folder
    # the run's folder the kernel makes its socket folder in: the grader removes it at the
    # end, so a kernel whose worker was killed leaves nothing behind in the temp folder
    sockets_root: Path | None = None
    # windowmem's files the kernel is shown (None: all of them); see sandbox/library_reach.py
    library_files: tuple[Path, ...] | None = None


@dataclass(frozen=True)
class Job:
    """What a worker needs to grade one student."""

    student_id: str
    assignment: str
    course_root: Path  # the class course: source/, gradebook.db, submitted/
    work_root: Path  # this student's private course
    notebooks: tuple[str, ...]  # names to grade, already copied into the class course
    config: Config
    sandbox: Sandbox | None = None  # None: --no-sandbox
    # seconds the student may take in all, counted from the release (the scheduler kills
    # the worker past them); None: no limit, so no deadline for the judge either
    seconds: float | None = None

    @property
    def result_file(self) -> Path:
        return self.work_root / RESULT_FILE

    @property
    def output_file(self) -> Path:
        return self.work_root / OUTPUT_FILE

    @property
    def kernel_pid_file(self) -> Path:
        return self.work_root / KERNEL_PID_FILE

    @property
    def submitted(self) -> Path:
        return self.work_root / "submitted" / self.student_id / self.assignment


def prepare(job: Job) -> None:
    """Lay out the student's private course (in the parent, before the worker starts)."""
    if job.work_root.exists():
        shutil.rmtree(job.work_root)
    job.submitted.mkdir(parents=True)
    (job.work_root / "source").symlink_to(job.course_root / "source", target_is_directory=True)
    shutil.copy2(job.course_root / "gradebook.db", job.work_root / "gradebook.db")
    class_submitted = job.course_root / "submitted" / job.student_id / job.assignment
    for item in class_submitted.iterdir():
        shutil.copy2(item, job.submitted / item.name)


def worker_config(job: Job) -> Config:
    """The class configuration pointed at the student's private course and sandbox."""
    config = Config()
    config.merge(job.config)
    config.CourseDirectory.root = str(job.work_root)
    config.CourseDirectory.db_url = db_url(job.work_root / "gradebook.db")
    config.CourseDirectory.student_id = job.student_id
    config.GuardedExecute.kernel_pid_file = str(job.kernel_pid_file)
    # every kernel's client, sandboxed or not, is ready without jupyter_client's fixed 0.2 s
    config.AsyncKernelManager.client_class = "autograder.sandbox.kernels.ReadyClient"
    # the instructor's cells look the same on every page: highlighted once for the class
    config.FeedbackExporter.render_cache = str(job.work_root.parent / RENDER_CACHE)
    if job.sandbox is not None:
        box, limits = job.sandbox, job.sandbox.limits
        config.GuardedExecute.sandboxed = True
        config.GuardedExecute.kernel_manager_class = SandboxedKernelManager
        config.SandboxedKernelManager.cgroup_name = box.cgroup.name
        config.SandboxedKernelManager.cgroup_folders = [str(f) for f in box.cgroup.folders]
        config.SandboxedKernelManager.cgroup_version = box.cgroup.version
        config.SandboxedKernelManager.home_files = [str(p) for p in box.home_files]
        if box.library_files is not None:
            config.SandboxedKernelManager.library_files = [str(p) for p in box.library_files]
        config.SandboxedKernelManager.assignment = job.assignment
        if box.sockets_root is not None:
            config.SandboxedKernelManager.sockets_root = str(box.sockets_root)
        config.SandboxedKernelManager.memory_mb = limits.memory_mb
        config.SandboxedKernelManager.pids = limits.pids
        config.SandboxedKernelManager.open_files = limits.open_files
        config.SandboxedKernelManager.tmpfs_mb = limits.tmpfs_mb
    return config


def run(job: Job, release: Any = None, graded: Any = None) -> None:
    """Autograde and generate feedback for *job*; write what happened to its result file.

    With *release* (an event), grading waits for it where the kernel would run the
    student's first cell (:mod:`autograder.grading.slot`): the scheduler starts a worker
    ahead of a free slot, so its kernel boots and nbgrader's bookkeeping is done meanwhile.
    With *graded* (an event), the worker sets it once every process of the student's is
    stopped, before nbgrader saves the scores and writes the feedback page: the scheduler
    then lets the next student run.
    """
    autograde = feedback = crash = None
    seconds: dict[str, float] = {}
    notes: list[str] = []
    reports: list[SandboxReport] = []
    _capture_output(job.output_file)
    turn = slot.Slot(
        release=release,
        graded=graded,
        seconds=job.seconds,
        judge_share=JUDGE_SHARE,
        notebooks=len(job.notebooks),
        stop_student=lambda: _stop_student(job, reports),
    )
    slot.CURRENT = turn
    try:
        _scratch_gradebook_writes()
        config = worker_config(job)
        api = NbGraderAPI(CourseDirectory(config=config), config=config)
        manager = SandboxedKernelManager if job.sandbox else None
        from jupyter_client.manager import AsyncKernelManager

        started = time.perf_counter()
        pgid = prestart_kernel(manager or AsyncKernelManager, config, cwd=str(job.work_root))
        job.kernel_pid_file.write_text(str(pgid))
        seconds["kernel: launch"] = time.perf_counter() - started
        started = time.perf_counter()
        autograde = StepResult.from_api(
            api.autograde(job.assignment, job.student_id, force=True, create=True)
        )
        # the turn's wait is the scheduler's, not nbgrader's
        seconds["autograde"] = time.perf_counter() - started - turn.waited
        turn.give_back()  # a notebook nbgrader did not execute: nothing of the student's runs on
        if autograde.success:
            started = time.perf_counter()
            feedback = StepResult.from_api(
                api.generate_feedback(job.assignment, job.student_id, force=True)
            )
            seconds["feedback"] = time.perf_counter() - started
    except BaseException:  # noqa: BLE001 - the parent must learn about any failure
        crash = traceback.format_exc()
    finally:
        try:
            turn.give_back()
        except Exception:  # noqa: BLE001 - the parent kills the sandbox if need be
            notes.append(traceback.format_exc())
        seconds.update(STAGE_SECONDS)
        seconds.update(cpu_seconds(kernel=job.sandbox is None))
        WorkerOutcome(
            autograde,
            feedback,
            crash,
            seconds,
            tuple(notes),
            dict(EXECUTIONS),
            reports[0] if reports else None,
        ).write(job.result_file)


def _stop_student(job: Job, reports: list[SandboxReport]) -> None:
    """Stop every process of the student's; in the sandbox, report what its cgroup saw."""
    shut_down_prestarted()
    if job.sandbox is not None:
        cgroup = job.sandbox.cgroup
        killed = cgroup.kill_all(grace=1.0)  # a shut-down kernel's bwrap exits by itself
        reports.append(
            SandboxReport(
                round(cgroup.memory_peak_mb(), 1),
                cgroup.hit_memory_limit(),
                cgroup.hit_pids_limit(),
                len(killed),
            )
        )


def cpu_seconds(kernel: bool) -> dict[str, float]:
    """CPU seconds this worker used since its fork and, with *kernel*, those of its kernel.

    Only a kernel outside the sandbox is the worker's own child, waited for and so counted;
    a sandboxed kernel dies with bwrap's namespace and its time is counted nowhere, so
    there *kernel* is False and no figure is given rather than a false zero.
    """
    import resource

    mine = resource.getrusage(resource.RUSAGE_SELF)
    seconds = {"cpu: worker": mine.ru_utime + mine.ru_stime}
    if kernel:
        theirs = resource.getrusage(resource.RUSAGE_CHILDREN)
        seconds["cpu: kernel"] = theirs.ru_utime + theirs.ru_stime
    return seconds


def _scratch_gradebook_writes() -> None:
    """Let SQLite skip its disk syncs in this worker: its gradebook is a scratch copy.

    nbgrader commits once per graded cell, and each commit waits for the disk. The
    worker's gradebook is its own copy, read by the parent only after the worker has
    exited; a worker that dies mid-write is reported and its copy never merged. So
    durability buys nothing here, and the class gradebook keeps SQLite's defaults.
    """
    import sqlite3

    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    @event.listens_for(Engine, "connect")
    def _no_sync(connection, _record) -> None:
        if isinstance(connection, sqlite3.Connection):
            cursor = connection.cursor()
            cursor.execute("PRAGMA synchronous = OFF")
            cursor.execute("PRAGMA journal_mode = MEMORY")
            cursor.close()


def _capture_output(path: Path) -> None:
    """Send this process's stdout and stderr, and so its kernel's, to *path*: the terminal keeps the progress bar."""
    with open(path, "ab") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
    # nbgrader's own SQLAlchemy usage warns on every autograde; nothing for an instructor to act on
    warnings.filterwarnings("ignore", module="nbgrader")
    warnings.filterwarnings("ignore", message=".*not in session.*")


def read_outcome(job: Job) -> WorkerOutcome | None:
    """The worker's outcome, or None when it never wrote one (killed or crashed hard)."""
    return WorkerOutcome.read(job.result_file)
