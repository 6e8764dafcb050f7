"""Final grades for an LMS, from the gradebook as the graders left it (hand scores included).

Two files, each named for the convention it follows:

- ``final_grades.csv``, a generic wide gradebook CSV: one header row, then one row per
  student keyed by ``student_id``, with ``status``, ``total``, ``max_score``,
  ``late_penalty``, one column per graded cell (points), and ``detail``. Any LMS import
  that maps columns by header (Moodle's "Import grades from CSV", a spreadsheet) takes it.
- ``canvas_grades.csv``, the layout of Canvas's Gradebook CSV export and import:
  ``Student, ID, SIS User ID, SIS Login ID, Section`` and one column for the assignment,
  with a ``Points Possible`` row. Only the total goes in (every further column would
  become a new Canvas assignment). Give Canvas's own export as the roster to fill in its
  identity columns; without one, nbgrader's student id goes in ``SIS Login ID``.

A total is written only where every graded cell has a score. A notebook that could not
be graded, a cell still waiting for a hand grade, or nothing handed in leaves the total
blank and says so in ``status`` (``final``, ``needs_hand_grading``, ``not_scored``,
``flagged``, ``missing``): an ungraded notebook never turns into a 0.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry, Student


class FinalStatus(StrEnum):
    """Whether a student's total is a grade to import, and if not, why."""

    FINAL = "final"  # every graded cell has a score: the total is the grade
    NEEDS_HAND_GRADING = "needs_hand_grading"  # a cell still waits for a grader
    NOT_SCORED = "not_scored"  # a notebook could not be graded (unreadable, crashed, killed)
    FLAGGED = "flagged"  # the autograder held the score (tampering): cells wait for hand scores
    MISSING = "missing"  # nothing handed in


#: Columns of final_grades.csv before the per-question ones, and after them.
LEADING = (
    "student_id",
    "last_name",
    "first_name",
    "email",
    "status",
    "total",
    "max_score",
    "late_penalty",
)
TRAILING = ("detail",)


@dataclass(frozen=True)
class Question:
    """One graded cell of the assignment."""

    notebook: str
    grade_id: str
    max_score: float


@dataclass(frozen=True)
class StudentFinal:
    """One student's final grade: the total only when it is one, and every question."""

    student_id: str
    status: FinalStatus
    total: float | None
    max_score: float
    late_penalty: float
    scores: tuple[float | None, ...]  # in the order of the export's questions
    detail: str
    last_name: str = ""
    first_name: str = ""
    email: str = ""


@dataclass(frozen=True)
class FinalGrades:
    """The assignment's questions and one row per student, sorted by student id."""

    assignment: str
    questions: tuple[Question, ...]
    students: tuple[StudentFinal, ...]

    @property
    def max_score(self) -> float:
        return sum(q.max_score for q in self.questions)

    def question_columns(self) -> list[str]:
        """A header per question: the grade id, with its notebook when two notebooks share it."""
        ids = [q.grade_id for q in self.questions]
        return [
            q.grade_id if ids.count(q.grade_id) == 1 else f"{q.notebook}/{q.grade_id}"
            for q in self.questions
        ]


@dataclass(frozen=True)
class AutograderRow:
    """What ``grades.csv`` says about one student's notebook (its status and detail)."""

    notebook: str
    status: str
    scored: bool
    detail: str


def read_autograder_rows(path: Path) -> dict[str, list[AutograderRow]]:
    """``grades.csv`` of an autograder run, by student (empty when there is none)."""
    if not path.is_file():
        return {}
    rows: dict[str, list[AutograderRow]] = {}
    with path.open(newline="", encoding="utf-8") as file:
        for record in csv.DictReader(file):
            rows.setdefault(record["student_id"], []).append(
                AutograderRow(
                    record["notebook"], record["status"], record["score"] != "", record["detail"]
                )
            )
    return rows


def cell_order(source_dir: Path | None, notebook: str) -> dict[str, int]:
    """Position of each nbgrader cell in the instructor's notebook, when it is at hand."""
    path = source_dir / f"{notebook}.ipynb" if source_dir else None
    if path is None or not path.is_file():
        return {}
    cells = json.loads(path.read_text("utf-8"))["cells"]
    ids = [c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in cells]
    return {grade_id: i for i, grade_id in enumerate(ids) if grade_id}


def assignment_questions(
    gradebook: Gradebook, assignment: str, source_dir: Path | None = None
) -> tuple[Question, ...]:
    """Every graded cell, notebook by notebook, in the source notebook's order (else by name)."""
    found = gradebook.find_assignment(assignment)
    questions = []
    for notebook in sorted(found.notebooks, key=lambda n: n.name):
        order = cell_order(source_dir, notebook.name)
        cells = sorted(notebook.grade_cells, key=lambda c: (order.get(c.name, len(order)), c.name))
        questions += [Question(notebook.name, c.name, float(c.max_score)) for c in cells]
    return tuple(questions)


def final_grades(
    gradebook: Gradebook,
    assignment: str,
    autograder_rows: Mapping[str, Sequence[AutograderRow]] | None = None,
    source_dir: Path | None = None,
) -> FinalGrades:
    """Every student the gradebook or the autograder knows, with a final grade or the reason for none."""
    questions = assignment_questions(gradebook, assignment, source_dir)
    rows = dict(autograder_rows or {})
    known = {s.id: s for s in gradebook.students}
    students = [
        _student_final(gradebook, assignment, sid, known.get(sid), questions, rows.get(sid, ()))
        for sid in sorted(set(known) | set(rows))
    ]
    return FinalGrades(assignment, questions, tuple(students))


def _student_final(
    gradebook: Gradebook,
    assignment: str,
    sid: str,
    student: Student | None,
    questions: Sequence[Question],
    rows: Sequence[AutograderRow],
) -> StudentFinal:
    names = {
        "last_name": (student.last_name or "") if student else "",
        "first_name": (student.first_name or "") if student else "",
        "email": (student.email or "") if student else "",
    }
    maximum = sum(q.max_score for q in questions)
    blank = tuple(None for _ in questions)
    unscored = [r for r in rows if not r.scored]
    if rows and len(unscored) == len(rows) and all(r.status == "missing" for r in rows):
        return StudentFinal(
            sid, FinalStatus.MISSING, None, maximum, 0.0, blank, _details(unscored), **names
        )
    try:
        submission = gradebook.find_submission(assignment, sid)
    except MissingEntry:
        submission = None
    if submission is None:
        status = _unscored_status(unscored) if unscored else FinalStatus.MISSING
        return StudentFinal(
            sid,
            status,
            None,
            maximum,
            0.0,
            blank,
            _details(unscored) or "no submission in the gradebook",
            **names,
        )

    grades = {}
    for notebook in submission.notebooks:
        for grade in notebook.grades:
            grades[(notebook.name, grade.name)] = grade
    # a notebook not graded this run: the gradebook may hold an older run's scores. A flagged
    # one is the exception: its cells wait in the gradebook for the instructor's hand scores
    not_graded = {r.notebook for r in unscored if r.status != "flagged"}
    flagged = [r for r in unscored if r.status == "flagged"]
    scores: list[float | None] = []
    waiting, review = [], []
    for q in questions:
        grade = grades.get((q.notebook, q.grade_id))
        if q.notebook in not_graded:
            scores.append(None)
        elif grade is None or (grade.manual_score is None and grade.auto_score is None):
            scores.append(None)
            waiting.append(q.grade_id)
        else:
            if grade.needs_manual_grade and grade.manual_score is None:
                waiting.append(q.grade_id)
            elif grade.needs_manual_grade:
                review.append(q.grade_id)
            scores.append(float(grade.score))
    penalty = float(submission.late_submission_penalty or 0.0)
    notes = [_details(unscored)] if unscored else []
    if waiting:
        notes.append(f"waiting for a hand grade: {', '.join(waiting)}")
    if review:
        notes.append(
            f"hand score kept from before the last autograde, flagged for review: {', '.join(review)}"
        )
    if penalty:
        notes.append(f"late penalty {penalty:g}")
    if not_graded:
        status = FinalStatus.NOT_SCORED
    elif flagged and waiting:
        status = FinalStatus.FLAGGED
    elif waiting:
        status = FinalStatus.NEEDS_HAND_GRADING
    else:
        status = FinalStatus.FINAL
    total = (
        round(max(0.0, float(submission.score) - penalty), 6)
        if status is FinalStatus.FINAL
        else None
    )
    return StudentFinal(
        sid, status, total, maximum, penalty, tuple(scores), "; ".join(notes), **names
    )


def _unscored_status(rows: Sequence[AutograderRow]) -> FinalStatus:
    """``flagged`` when the autograder held a score for review, else ``not_scored``."""
    return (
        FinalStatus.FLAGGED if any(r.status == "flagged" for r in rows) else FinalStatus.NOT_SCORED
    )


def _details(rows: Iterable[AutograderRow]) -> str:
    return "; ".join(f"{r.notebook}: {r.status}: {r.detail}" for r in rows)


def csv_number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def write_final_grades(grades: FinalGrades, path: Path) -> Path:
    """Write the generic wide CSV: one row per student, total and per-question points."""
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow([*LEADING, *grades.question_columns(), *TRAILING])
        for s in grades.students:
            writer.writerow(
                [
                    s.student_id,
                    s.last_name,
                    s.first_name,
                    s.email,
                    str(s.status),
                    csv_number(s.total),
                    csv_number(s.max_score),
                    csv_number(s.late_penalty),
                    *(csv_number(v) for v in s.scores),
                    s.detail,
                ]
            )
    return path
