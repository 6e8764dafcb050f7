"""Grade a whole class: plan every submission, grade in parallel, report every problem."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

from tqdm import tqdm

from autograder.errors import GradingSetupError
from autograder.grading.forkserver import start_forkserver
from autograder.grading.quick_nbgrader import close_shared_engines, quicken
from autograder.grading.scheduler import Finished, default_jobs, run_all
from autograder.grading.student_rows import join_details, student_rows
from autograder.grading.worker import RENDER_CACHE, Job, Sandbox, prepare
from autograder.intake.lms_zip import collect_zip
from autograder.intake.submissions import StudentSubmission, find_class
from autograder.records.gradebook import max_scores
from autograder.records.report import GradeRow, Status, load_plotting, write_reports
from autograder.sandbox import bubblewrap
from autograder.sandbox.cgroup import StudentCgroup
from autograder.sandbox.kernels import make_sockets_root
from autograder.sandbox.safe_files import real_folder, remove_path
from autograder.term.course import DEFAULT_SETTINGS, Course, Settings, build_course
from autograder.term.course_config import write_course_config
from autograder.term.nbgrader_course import assignment_notebooks, db_url

#: Said in every row's detail when the instructor chose to grade without the sandbox.
UNSANDBOXED = (
    "graded WITHOUT the sandbox (--no-sandbox): the student's code ran with the grader's rights"
)


@dataclass(frozen=True)
class ClassResult:
    """Every row written, and where the reports are."""

    rows: tuple[GradeRow, ...]
    out: Path
    reports: dict[str, Path]
    notes: tuple[str, ...] = ()  # what was refused for no student (archive members)


def grade_class(
    assignment: str,
    submissions: Path,
    out: Path,
    *,
    repo_root: Path | None = None,
    jobs: int | None = None,
    settings: Settings = DEFAULT_SETTINGS,
    zip_regexp: str | None = None,
    progress: bool = True,
) -> ClassResult:
    """Autograde every student in *submissions* (a folder or an LMS zip) into *out*."""
    repo_root = (repo_root or Path.cwd()).resolve()
    submissions, out = submissions.resolve(), out.resolve()
    if not submissions.exists():
        raise GradingSetupError(f"--submissions {submissions} does not exist")
    if submissions.is_file() and submissions.suffix.lower() != ".zip":
        raise GradingSetupError(
            f"--submissions {submissions} is a file but not a .zip; give a folder or an LMS zip download"
        )
    if submissions.is_dir() and out.is_relative_to(submissions):
        raise GradingSetupError(f"--out {out} is inside --submissions; choose a folder outside it")
    assignment_notebooks(repo_root, assignment)
    if settings.sandbox is not None:
        reason = bubblewrap.unavailable()
        if reason:
            raise GradingSetupError(
                f"cannot sandbox the students' code on this machine: {reason}. Fix that, or pass "
                "--no-sandbox to grade without isolation (a student's code could then read the "
                "hidden tests and change any grade; every row's detail will say so)"
            )
    real_folder(out)
    start_forkserver()  # warms up in the background while the course is built
    quicken(db_url(out / "course" / "gradebook.db"))  # one engine for every merge (quick_nbgrader)
    try:
        return _grade_class(
            assignment, submissions, out, repo_root, jobs, settings, zip_regexp, progress
        )
    finally:
        close_shared_engines()


def _grade_class(
    assignment: str,
    submissions: Path,
    out: Path,
    repo_root: Path,
    jobs: int | None,
    settings: Settings,
    zip_regexp: str | None,
    progress: bool,
) -> ClassResult:
    """The body of :func:`grade_class`, once the inputs are checked."""
    refused: dict[str, str] = {}
    notes: tuple[str, ...] = ()
    if submissions.is_file():
        collected = collect_zip(submissions, assignment, out / "downloaded", zip_regexp)
        submissions, refused, notes = collected.submitted, collected.refused, collected.unclaimed

    course = build_course(repo_root, assignment, out, settings)
    write_course_config(course.root, course.config)  # formgrader and nbgrader open OUT/course
    students = find_class(submissions, assignment, course.expected, settings.max_notebook_bytes)
    students = tuple(
        s.refuse(refused[s.student_id]) if s.student_id in refused else s for s in students
    )
    students += tuple(
        StudentSubmission.refused(sid, submissions / sid, course.expected, why)
        for sid, why in sorted(refused.items())
        if sid not in {s.student_id for s in students}
    )
    if not students:
        raise GradingSetupError(
            f"no student folders in {submissions}; expected <student_id>/{assignment}/*.ipynb inside it"
        )
    rows: list[GradeRow] = []
    maxima = max_scores(db_url(course.gradebook), assignment)
    real_folder(out / "logs")

    queue: list[Job] = []
    # a run killed before its end leaves its cache: this run's pages are made afresh
    shutil.rmtree(out / "work" / RENDER_CACHE, ignore_errors=True)
    # the kernels' socket folders, removed at the end whatever became of their workers
    sockets_root = make_sockets_root() if settings.sandbox else None
    planned: dict[str, StudentSubmission] = {}
    parent_seconds: dict[str, dict[str, float]] = {}  # per student: the grader's own stages
    for student in students:
        for nb in student.notebooks:
            if nb.status is not None:
                rows.append(
                    GradeRow(
                        student.student_id,
                        assignment,
                        nb.notebook,
                        None,
                        maxima[nb.notebook],
                        nb.status,
                        nb.detail,
                    )
                )
        if student.gradable:
            planned[student.student_id] = student
            started = time.perf_counter()
            queue.append(_queue_student(course, student, out, settings, len(queue), sockets_root))
            parent_seconds[student.student_id] = {
                "set-up: cgroup and files": time.perf_counter() - started
            }

    bar = tqdm(
        total=len(students),
        desc=f"grading {assignment}",
        unit="student",
        disable=not progress,
        file=sys.stderr,
    )
    bar.update(len(students) - len(queue))

    def finished(done: Finished) -> None:
        student = planned[done.job.student_id]
        try:
            if done.job.sandbox is not None:  # every process of the student's is gone first
                done.job.sandbox.cgroup.remove()
            rows.extend(
                student_rows(
                    course, student, done, maxima, settings, out, parent_seconds[student.student_id]
                )
            )
        except Exception as error:  # noqa: BLE001 - one student's bookkeeping must not stop the class
            detail = (
                f"graded, but the results could not be collected: {type(error).__name__}: {error}"
            )
            rows.extend(
                GradeRow(
                    student.student_id,
                    assignment,
                    nb.notebook,
                    None,
                    maxima[nb.notebook],
                    Status.ERROR,
                    detail,
                )
                for nb in student.gradable
            )
        bar.update(1)

    # the report's plotting imports, paid while the workers grade rather than after them
    threading.Thread(target=load_plotting, name="load-plotting", daemon=True).start()
    try:
        run_all(
            queue,
            jobs or default_jobs(),
            lambda job: settings.wall_clock(course.code_cells),
            finished,
        )
    finally:
        bar.close()
        shutil.rmtree(out / "work" / RENDER_CACHE, ignore_errors=True)
        for job in queue:  # interrupted or failed: no student process outlives the command
            if job.sandbox is not None:
                job.sandbox.cgroup.remove()
        if sockets_root is not None:  # every kernel is gone: their sockets go too
            shutil.rmtree(sockets_root, ignore_errors=True)
    with contextlib.suppress(OSError):  # empty once every worker's folder has been collected
        (out / "work").rmdir()
    if settings.sandbox is None:
        rows = [replace(r, detail=join_details(r.detail, UNSANDBOXED)) for r in rows]
    return ClassResult(tuple(rows), out, write_reports(rows, out), notes)


def _queue_student(
    course: Course,
    student: StudentSubmission,
    out: Path,
    settings: Settings,
    number: int,
    sockets_root: Path | None = None,
) -> Job:
    """Copy the student's gradable notebooks into the class course and lay out a worker job."""
    submitted = course.root / "submitted" / student.student_id / course.assignment
    if submitted.exists() or submitted.is_symlink():
        remove_path(submitted)
    real_folder(submitted)
    for nb in student.gradable:
        assert nb.path is not None  # gradable notebooks are the ones that were found
        shutil.copyfile(nb.path, submitted / f"{nb.notebook}.ipynb", follow_symlinks=False)
    # small text files nbgrader keeps beside a submission; the exchange returns feedback by the secret
    for kept in ("timestamp.txt", "submission_secret.txt"):
        path = student.folder / course.assignment / kept
        if path.is_file() and not path.is_symlink() and path.stat().st_size < 1000:
            shutil.copyfile(path, submitted / kept)
    work_root = out / "work" / student.student_id
    box = None
    if settings.sandbox is not None:
        box = Sandbox(
            StudentCgroup.create(f"{os.getpid()}-{number}", settings.sandbox),
            settings.sandbox,
            tuple(
                work_root
                / "submitted"
                / student.student_id
                / course.assignment
                / f"{nb.notebook}.ipynb"
                for nb in student.gradable
            )
            + course.data_files,
            sockets_root,
            course.library_files,
        )
    job = Job(
        student.student_id,
        course.assignment,
        course.root,
        work_root,
        tuple(nb.notebook for nb in student.gradable),
        course.config,
        box,
        settings.wall_clock(course.code_cells),
    )
    prepare(job)
    return job
