"""Grade a whole class: plan every submission, grade in parallel, report every problem."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from tqdm import tqdm

from autograder import sandbox
from autograder.course import DEFAULT_SETTINGS, Course, Settings, build_course
from autograder.course_config import write_course_config
from autograder.errors import GradingSetupError
from autograder.gradebook import max_scores, merge_student, notebook_score
from autograder.nbgrader_course import assignment_notebooks, db_url
from autograder.outcome import ExecutionReport, WorkerOutcome
from autograder.report import GradeRow, Status, write_reports
from autograder.safe_files import real_folder, remove_path, replace_tree, write_bytes
from autograder.scheduler import Finished, default_jobs, run_all, start_forkserver
from autograder.submissions import StudentSubmission, find_class
from autograder.worker import Job, Sandbox, prepare, read_outcome
from autograder.zipinput import collect_zip

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
        reason = sandbox.unavailable()
        if reason:
            raise GradingSetupError(
                f"cannot sandbox the students' code on this machine: {reason}. Fix that, or pass "
                "--no-sandbox to grade without isolation (a student's code could then read the "
                "hidden tests and change any grade; every row's detail will say so)"
            )
    real_folder(out)
    start_forkserver()  # warms up in the background while the course is built
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
            queue.append(_queue_student(course, student, out, settings, len(queue)))

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
                    Status.ERROR,
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
        for job in queue:  # interrupted or failed: no student process outlives the command
            if job.sandbox is not None:
                job.sandbox.cgroup.remove()
    with contextlib.suppress(OSError):  # empty once every worker's folder has been collected
        (out / "work").rmdir()
    if settings.sandbox is None:
        rows = [replace(r, detail=_join(r.detail, UNSANDBOXED)) for r in rows]
    return ClassResult(tuple(rows), out, write_reports(rows, out), notes)


def _queue_student(
    course: Course, student: StudentSubmission, out: Path, settings: Settings, number: int
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
            sandbox.StudentCgroup.create(f"{os.getpid()}-{number}", settings.sandbox),
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
        )
    job = Job(
        student.student_id,
        course.assignment,
        course.root,
        work_root,
        tuple(nb.notebook for nb in student.gradable),
        course.config,
        box,
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
    outcome = read_outcome(job)
    failure = _failure(done, outcome, settings, course)
    executions = outcome.executions if outcome else {}
    flagged = {nb: report.unfaithful for nb, report in executions.items() if report.unfaithful}
    if failure is None:
        merge_student(
            db_url(course.gradebook),
            db_url(job.work_root / "gradebook.db"),
            aid,
            sid,
            job.notebooks,
            held=frozenset(flagged),
        )
        for folder in ("autograded", "feedback"):
            replace_tree(job.work_root / folder / sid / aid, course.root / folder / sid / aid)
    _save_log(outcome, out / "logs" / f"{sid}.log", job.output_file)
    limits = _sandbox_story(outcome, settings)
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
                    _join(detail, limits, nb.detail),
                )
            )
            continue
        score = notebook_score(db_url(course.gradebook), aid, sid, nb.notebook)
        status, happened = _execution_story(executions.get(nb.notebook), settings)
        tests = (
            f"failed: {', '.join(score.failed)}" if score.failed else "every autograded test passed"
        )
        if score.manual:
            tests += f"; to grade by hand: {', '.join(score.manual)}"
        feedback = outcome.feedback if outcome else None
        no_feedback = (
            ""
            if feedback is not None and feedback.success
            else f"feedback not generated: {_error_message(feedback.text if feedback else None)}"
        )
        if nb.notebook in flagged:
            measured = notebook_score(
                db_url(job.work_root / "gradebook.db"), aid, sid, nb.notebook
            ).score
            rows.append(
                GradeRow(
                    sid,
                    aid,
                    nb.notebook,
                    None,
                    score.max_score,
                    Status.FLAGGED,
                    _join(
                        "the submission changed how the grader's cells run, so its test results "
                        "cannot be trusted: " + "; ".join(flagged[nb.notebook][:3]),
                        f"measured {measured:g}/{score.max_score:g} points, held for the instructor "
                        "(autograded scores left blank in the gradebook)",
                        happened,
                        limits,
                        nb.detail,
                    ),
                )
            )
            continue
        detail = _join(
            happened,
            f"{score.score:g}/{score.max_score:g} points; {tests}",
            limits,
            nb.detail,
            no_feedback,
        )
        rows.append(
            GradeRow(
                sid, aid, nb.notebook, score.score, score.max_score, status, detail, score.cells
            )
        )
    shutil.rmtree(job.work_root, ignore_errors=True)
    return rows


def _failure(
    done: Finished, outcome: WorkerOutcome | None, settings: Settings, course: Course
) -> tuple[Status, str] | None:
    """(status, detail) when the worker produced no grades, else None."""
    if done.killed:
        limit = settings.wall_clock(course.code_cells)
        return (
            Status.TIMED_OUT,
            f"grading ran past the {limit:g} s limit for one student; its worker and kernel were killed, nothing was scored",
        )
    if outcome is None:
        return (
            Status.ERROR,
            f"the grading worker died (exit code {done.exitcode}) before reporting; see logs/",
        )
    if outcome.crash:
        return (
            Status.ERROR,
            f"the grading worker crashed: {_error_message(outcome.crash)}; see logs/",
        )
    if outcome.autograde is None or not outcome.autograde.success:
        text = outcome.autograde.text if outcome.autograde else None
        return (
            Status.ERROR,
            f"nbgrader could not autograde it: {_error_message(text)}; see logs/",
        )
    return None


def _sandbox_story(outcome: WorkerOutcome | None, settings: Settings) -> str:
    """What the sandbox's limits did, when they did something."""
    box = outcome.sandbox if outcome else None
    if box is None or settings.sandbox is None:
        return ""
    parts = []
    if box.hit_memory_limit:
        parts.append(
            f"the kernel reached the {settings.sandbox.memory_mb} MiB memory limit "
            f"(peak {box.memory_peak_mb:g} MiB)"
        )
    if box.hit_pids_limit:
        parts.append(f"the kernel was refused processes past the limit of {settings.sandbox.pids}")
    if box.killed_at_end:
        parts.append(f"{box.killed_at_end} process(es) the submission left running were killed")
    return "; ".join(parts)


def _execution_story(report: ExecutionReport | None, settings: Settings) -> tuple[Status, str]:
    """Status and what happened while the notebook ran, from GuardedExecute's report."""
    if report is None:
        return Status.GRADED, ""
    parts, status = [], Status.GRADED
    if report.kernel_killed:
        status = Status.TIMED_OUT
        parts.append(
            f"{report.kernel_killed} ran past {settings.cell_timeout} s and ignored the interrupt: kernel killed, later cells not run (scored 0)"
        )
    elif report.timeouts:
        status = Status.TIMED_OUT
        cells = ", ".join(t.cell for t in report.timeouts)
        parts.append(
            f"{cells} ran past {settings.cell_timeout} s and was interrupted; the rest of the notebook ran"
        )
    if report.kernel_died:
        status = Status.ERROR
        parts.append(
            f"the kernel died while running {report.kernel_died}; later cells not run (scored 0)"
        )
    if report.restored:
        shown = ", ".join(sorted(report.restored)[:5]) + (
            " ..." if len(report.restored) > 5 else ""
        )
        parts.append(f"undid the submission's changes to {shown} before the tests ran")
    return status, "; ".join(parts)


def _save_log(outcome: WorkerOutcome | None, path: Path, worker_output: Path) -> None:
    timing = ", ".join(f"{k} {v:.2f} s" for k, v in (outcome.seconds if outcome else {}).items())
    parts = [f"== seconds: {timing}"] if timing else []
    if worker_output.is_file() and not worker_output.is_symlink():
        with open(worker_output, "rb") as log:
            log.seek(max(0, worker_output.stat().st_size - 200_000))
            text = log.read().decode(errors="replace")
        parts.append(f"== worker output (stdout, stderr, kernel)\n{text}")
    for step, result in (
        ("autograde", outcome and outcome.autograde),
        ("feedback", outcome and outcome.feedback),
    ):
        if result:
            parts.append(f"== nbgrader {step}\n{result.log}\n{result.error}")
    if outcome and outcome.crash:
        parts.append(f"== worker crash\n{outcome.crash}")
    write_bytes(path, ("\n".join(parts) or "no result from the worker\n").encode())


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
