"""Grade a whole class: plan every submission, grade in parallel, report every problem."""

from __future__ import annotations

import contextlib
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from autograder.course import (
    DEFAULT_SETTINGS,
    Course,
    Settings,
    assignment_notebooks,
    build_course,
    db_url,
)
from autograder.course_config import write_course_config
from autograder.errors import GradingSetupError
from autograder.gradebook import max_scores, merge_student, notebook_score
from autograder.report import GradeRow, write_reports
from autograder.scheduler import Finished, default_jobs, run_all, start_forkserver
from autograder.submissions import StudentSubmission, find_class
from autograder.worker import Job, prepare, read_execution_report, read_result
from autograder.zipinput import collect_zip


@dataclass(frozen=True)
class ClassResult:
    """Every row written, and where the reports are."""

    rows: tuple[GradeRow, ...]
    out: Path
    reports: dict[str, Path]


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
    out.mkdir(parents=True, exist_ok=True)
    start_forkserver()  # warms up in the background while the course is built
    if submissions.is_file():
        submissions = collect_zip(submissions, assignment, out / "downloaded", zip_regexp)

    course = build_course(repo_root, assignment, out, settings)
    write_course_config(course.root, course.config)  # formgrader and nbgrader open OUT/course
    students = find_class(submissions, assignment, course.expected)
    if not students:
        raise GradingSetupError(
            f"no student folders in {submissions}; expected <student_id>/{assignment}/*.ipynb inside it"
        )
    rows: list[GradeRow] = []
    maxima = max_scores(db_url(course.gradebook), assignment)
    (out / "logs").mkdir(exist_ok=True)

    queue: list[Job] = []
    planned: dict[str, StudentSubmission] = {}
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
            queue.append(_queue_student(course, student, out))

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
            rows.extend(_collect(course, student, done, maxima, settings, out))
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
                    "error",
                    detail,
                )
                for nb in student.gradable
            )
        bar.update(1)

    try:
        run_all(
            queue,
            jobs or default_jobs(),
            lambda job: settings.wall_clock(course.code_cells),
            finished,
        )
    finally:
        bar.close()
    with contextlib.suppress(OSError):  # empty once every worker's folder has been collected
        (out / "work").rmdir()
    return ClassResult(tuple(rows), out, write_reports(rows, out))


def _queue_student(course: Course, student: StudentSubmission, out: Path) -> Job:
    """Copy the student's gradable notebooks into the class course and lay out a worker job."""
    submitted = course.root / "submitted" / student.student_id / course.assignment
    if submitted.exists():
        shutil.rmtree(submitted)
    submitted.mkdir(parents=True)
    for nb in student.gradable:
        assert nb.path is not None  # gradable notebooks are the ones that were found
        shutil.copyfile(nb.path, submitted / f"{nb.notebook}.ipynb")
    for kept in (
        "timestamp.txt",
        "submission_secret.txt",
    ):  # the exchange returns feedback by the secret
        if (student.folder / course.assignment / kept).is_file():
            shutil.copyfile(student.folder / course.assignment / kept, submitted / kept)
    job = Job(
        student.student_id,
        course.assignment,
        course.root,
        out / "work" / student.student_id,
        tuple(nb.notebook for nb in student.gradable),
        course.config,
    )
    prepare(job)
    return job


def _collect(
    course: Course,
    student: StudentSubmission,
    done: Finished,
    maxima: dict,
    settings: Settings,
    out: Path,
) -> list[GradeRow]:
    """Rows for one finished worker; merges its grades and copies its feedback into the class course."""
    job, sid, aid = done.job, student.student_id, course.assignment
    result = read_result(job)
    failure = _failure(done, result, settings, course)
    if failure is None:
        merge_student(
            db_url(course.gradebook),
            db_url(job.work_root / "gradebook.db"),
            aid,
            sid,
            job.notebooks,
        )
        for folder in ("autograded", "feedback"):
            _replace_tree(job.work_root / folder / sid / aid, course.root / folder / sid / aid)
    _save_log(result, out / "logs" / f"{sid}.log", job.output_file)
    rows = []
    for nb in student.gradable:
        if failure is not None:
            status, detail = failure
            rows.append(
                GradeRow(
                    sid,
                    aid,
                    nb.notebook,
                    None,
                    maxima[nb.notebook],
                    status,
                    _join(detail, nb.detail),
                )
            )
            continue
        score = notebook_score(db_url(course.gradebook), aid, sid, nb.notebook)
        status, happened = _execution_story(read_execution_report(job, nb.notebook), settings)
        tests = (
            f"failed: {', '.join(score.failed)}" if score.failed else "every autograded test passed"
        )
        if score.manual:
            tests += f"; to grade by hand: {', '.join(score.manual)}"
        feedback = (result or {}).get("feedback") or {}
        no_feedback = (
            ""
            if feedback.get("success")
            else f"feedback not generated: {_error_message(feedback.get('error') or feedback.get('log'))}"
        )
        detail = _join(
            happened, f"{score.score:g}/{score.max_score:g} points; {tests}", nb.detail, no_feedback
        )
        rows.append(
            GradeRow(
                sid, aid, nb.notebook, score.score, score.max_score, status, detail, score.cells
            )
        )
    shutil.rmtree(job.work_root, ignore_errors=True)
    return rows


def _failure(
    done: Finished, result: dict | None, settings: Settings, course: Course
) -> tuple[str, str] | None:
    """(status, detail) when the worker produced no grades, else None."""
    if done.killed:
        limit = settings.wall_clock(course.code_cells)
        return (
            "timed_out",
            f"grading ran past the {limit:g} s limit for one student; its worker and kernel were killed, nothing was scored",
        )
    if result is None:
        return (
            "error",
            f"the grading worker died (exit code {done.exitcode}) before reporting; see logs/",
        )
    if result.get("crash"):
        return "error", f"the grading worker crashed: {_error_message(result['crash'])}; see logs/"
    autograde = result.get("autograde") or {}
    if not autograde.get("success"):
        return (
            "error",
            f"nbgrader could not autograde it: {_error_message(autograde.get('error') or autograde.get('log'))}; see logs/",
        )
    return None


def _execution_story(report: dict | None, settings: Settings) -> tuple[str, str]:
    """Status and what happened while the notebook ran, from GuardedExecute's report."""
    if not report:
        return "graded", ""
    parts, status = [], "graded"
    if report.get("kernel_killed"):
        status = "timed_out"
        parts.append(
            f"{report['kernel_killed']} ran past {settings.cell_timeout} s and ignored the interrupt: kernel killed, later cells not run (scored 0)"
        )
    elif report.get("timeouts"):
        status = "timed_out"
        cells = ", ".join(t["cell"] for t in report["timeouts"])
        parts.append(
            f"{cells} ran past {settings.cell_timeout} s and was interrupted; the rest of the notebook ran"
        )
    if report.get("kernel_died"):
        status = "error"
        parts.append(
            f"the kernel died while running {report['kernel_died']}; later cells not run (scored 0)"
        )
    if report.get("restored"):
        shown = ", ".join(report["restored"][:5]) + (" ..." if len(report["restored"]) > 5 else "")
        parts.append(f"undid the submission's changes to {shown} before the tests ran")
    return status, "; ".join(parts)


def _replace_tree(source: Path, target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    if source.exists():
        shutil.copytree(source, target)


def _save_log(result: dict | None, path: Path, worker_output: Path) -> None:
    timing = ", ".join(f"{k} {v:.2f} s" for k, v in ((result or {}).get("seconds") or {}).items())
    parts = [f"== seconds: {timing}"] if timing else []
    parts += (
        [
            f"== worker output (stdout, stderr, kernel)\n{worker_output.read_text(errors='replace')[-200_000:]}"
        ]
        if worker_output.exists()
        else []
    )
    for step in ("autograde", "feedback"):
        if result and result.get(step):
            parts.append(
                f"== nbgrader {step}\n{result[step].get('log') or ''}\n{result[step].get('error') or ''}"
            )
    if result and result.get("crash"):
        parts.append(f"== worker crash\n{result['crash']}")
    path.write_text("\n".join(parts) or "no result from the worker\n")


def _error_message(text: str | None) -> str:
    """The last exception an nbgrader log or traceback reports, with its message, on one line.

    >>> _error_message("[ERROR] oops\\nTraceback ...\\nnbgrader.x.NbGraderException: Notebooks use\\na newer format\\n\\n[ERROR] see log")
    'NbGraderException: Notebooks use a newer format'
    """
    lines = (text or "").splitlines()
    starts = [
        i
        for i, line in enumerate(lines)
        if re.match(r"^[\w.]+(Error|Exception|Exit|Interrupt): ", line)
    ]
    if not starts:
        meaningful = [line.strip() for line in lines if line.strip()]
        return (meaningful or ["no message"])[-1][:300]
    message = []
    for line in lines[starts[-1] :]:
        if not line.strip() or line.startswith("["):
            break
        message.append(line.strip())
    return re.sub(r"^[\w.]*\.(?=\w+(Error|Exception|Exit|Interrupt): )", "", " ".join(message))[
        :300
    ]


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)
