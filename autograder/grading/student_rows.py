"""The grades.csv rows for one student whose worker finished: scores merged, what happened said."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

from autograder.grading.outcome import ExecutionReport, WorkerOutcome
from autograder.grading.scheduler import Finished
from autograder.grading.worker import read_outcome
from autograder.intake.submissions import StudentSubmission
from autograder.records.gradebook import merge_student, notebook_score
from autograder.records.report import GradeRow, Status
from autograder.sandbox.safe_files import replace_tree, write_bytes
from autograder.term.course import Course, Settings
from autograder.term.nbgrader_course import db_url


def student_rows(
    course: Course,
    student: StudentSubmission,
    done: Finished,
    maxima: dict,
    settings: Settings,
    out: Path,
    parent_seconds: dict[str, float] | None = None,
) -> list[GradeRow]:
    """Rows for one finished worker; merges its grades and copies its feedback into the class course."""
    job, sid, aid = done.job, student.student_id, course.assignment
    outcome = read_outcome(job)
    failure = _failure(done, outcome, settings, course)
    executions = outcome.executions if outcome else {}
    flagged = {nb: report.unfaithful for nb, report in executions.items() if report.unfaithful}
    started = time.perf_counter()
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
    timings = {
        **(parent_seconds or {}),
        "records: class gradebook": time.perf_counter() - started,
        "worker: wall clock": done.seconds,
    }
    _save_log(outcome, out / "logs" / f"{sid}.log", job.output_file, timings)
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
                    join_details(detail, limits, nb.detail),
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
                    join_details(
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
        detail = join_details(
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
            f"grading ran past the {limit:g} s limit for one student; its worker and kernel "
            "were killed, nothing was scored: grade this student again with a larger "
            "--student-timeout, or by hand",
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
            f"{cells} ran past {settings.cell_timeout} s and was interrupted (the limit counts "
            f"the kernel's CPU time, {settings.cell_timeout * settings.wall_clock_factor:g} s "
            "on the clock at most); the rest of the notebook ran"
        )
    if report.judge_out_of_time:
        status = Status.TIMED_OUT
        parts.append(
            "the hidden tests' calls into the notebook used up the time one student may take "
            "(--student-timeout): the tests not judged by then scored 0"
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


def _save_log(
    outcome: WorkerOutcome | None, path: Path, worker_output: Path, parent: dict[str, float]
) -> None:
    seconds = {**(outcome.seconds if outcome else {}), **parent}
    timing = ", ".join(f"{k} {v:.2f} s" for k, v in seconds.items())
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


def join_details(*parts: str) -> str:
    return "; ".join(p for p in parts if p)
