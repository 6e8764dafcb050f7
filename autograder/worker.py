"""Grade one student in a private nbgrader course (runs in a worker process).

Each worker gets its own copy of the gradebook, so students never wait on one another's
database writes; the parent merges the result into the class gradebook afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from traitlets.config import Config

from autograder.course import db_url
from autograder.preprocessors import prestart_kernel, shut_down_prestarted

#: Files the worker leaves for the parent in its folder.
RESULT_FILE = "result.json"
OUTPUT_FILE = "output.log"
KERNEL_PID_FILE = "kernel.pgid"
REPORT_DIR = "execution"


@dataclass(frozen=True)
class Job:
    """What a worker needs to grade one student."""

    student_id: str
    assignment: str
    course_root: Path  # the class course: source/, gradebook.db, submitted/
    work_root: Path  # this student's private course
    notebooks: tuple[str, ...]  # names to grade, already copied into the class course
    config: Config

    @property
    def result_file(self) -> Path:
        return self.work_root / RESULT_FILE

    @property
    def output_file(self) -> Path:
        return self.work_root / OUTPUT_FILE

    @property
    def kernel_pid_file(self) -> Path:
        return self.work_root / KERNEL_PID_FILE


def prepare(job: Job) -> None:
    """Lay out the student's private course (in the parent, before the worker starts)."""
    if job.work_root.exists():
        shutil.rmtree(job.work_root)
    submitted = job.work_root / "submitted" / job.student_id / job.assignment
    submitted.mkdir(parents=True)
    (job.work_root / REPORT_DIR).mkdir()
    (job.work_root / "source").symlink_to(job.course_root / "source", target_is_directory=True)
    shutil.copy2(job.course_root / "gradebook.db", job.work_root / "gradebook.db")
    class_submitted = job.course_root / "submitted" / job.student_id / job.assignment
    for item in class_submitted.iterdir():
        shutil.copy2(item, submitted / item.name)


def run(job: Job) -> None:
    """Autograde and generate feedback for *job*; write what happened to its result file."""
    result: dict = {"autograde": None, "feedback": None, "crash": None}
    _capture_output(job.output_file)
    try:
        config = Config()
        config.merge(job.config)
        config.CourseDirectory.root = str(job.work_root)
        config.CourseDirectory.db_url = db_url(job.work_root / "gradebook.db")
        config.CourseDirectory.student_id = job.student_id
        config.GuardedExecute.kernel_pid_file = str(job.kernel_pid_file)
        config.GuardedExecute.report_dir = str(job.work_root / REPORT_DIR)
        api = NbGraderAPI(CourseDirectory(config=config), config=config)
        job.kernel_pid_file.write_text(str(prestart_kernel(cwd=str(job.work_root))))
        started = time.perf_counter()
        result["autograde"] = api.autograde(job.assignment, job.student_id, force=True, create=True)
        result["seconds"] = {"autograde": time.perf_counter() - started}
        if result["autograde"]["success"]:
            started = time.perf_counter()
            result["feedback"] = api.generate_feedback(job.assignment, job.student_id, force=True)
            result["seconds"]["feedback"] = time.perf_counter() - started
    except BaseException:  # noqa: BLE001 - the parent must learn about any failure
        result["crash"] = traceback.format_exc()
    finally:
        try:
            shut_down_prestarted()
        except Exception:  # noqa: BLE001 - the parent kills the process group if need be
            result.setdefault("warnings", []).append(traceback.format_exc())
        job.result_file.write_text(json.dumps(result))


def _capture_output(path: Path) -> None:
    """Send this process's stdout and stderr, and so its kernel's, to *path*: the terminal keeps the progress bar."""
    with open(path, "ab") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
    # nbgrader's own SQLAlchemy usage warns on every autograde; nothing for an instructor to act on
    warnings.filterwarnings("ignore", module="nbgrader")
    warnings.filterwarnings("ignore", message=".*not in session.*")


def read_result(job: Job) -> dict | None:
    """The worker's result, or None when it never wrote one (killed or crashed hard)."""
    try:
        return json.loads(job.result_file.read_text())
    except (FileNotFoundError, ValueError):
        return None


def read_execution_report(job: Job, notebook: str) -> dict | None:
    """What :class:`~autograder.preprocessors.GuardedExecute` saw while *notebook* ran."""
    try:
        return json.loads((job.work_root / REPORT_DIR / f"{notebook}.json").read_text())
    except (FileNotFoundError, ValueError):
        return None
