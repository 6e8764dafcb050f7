"""Move a worker's autograde results into the class gradebook, and read scores back.

Only automatic scores and comments are copied, each score clamped to its cell's points:
a manual score a grader already entered in the class gradebook is kept (the worker's
gradebook is never a source of manual scores), and flagged for review as nbgrader itself
would. A notebook whose results are *held* gets no automatic scores at all: every cell
waits for a grader.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from nbgrader.api import BaseCell, Comment, Grade, Gradebook
from sqlalchemy.exc import SAWarning
from sqlalchemy.orm import Session, undefer


@dataclass(frozen=True)
class CellScore:
    """One graded cell of one student's notebook."""

    grade_id: str
    score: float
    max_score: float


@dataclass(frozen=True)
class NotebookScore:
    """One student's notebook total and its cells."""

    score: float
    max_score: float
    cells: tuple[CellScore, ...]  # autograded cells
    manual: tuple[str, ...] = ()  # cells waiting for a grader

    @property
    def failed(self) -> tuple[str, ...]:
        """The autograded cells that did not earn full points."""
        return tuple(c.grade_id for c in self.cells if c.score < c.max_score)


def merge_student(
    class_url: str,
    worker_url: str,
    assignment: str,
    student_id: str,
    notebooks: tuple[str, ...],
    held: frozenset[str] = frozenset(),
) -> None:
    """Copy *student_id*'s autograded *notebooks* from the worker gradebook into the class one."""
    with warnings.catch_warnings(), Gradebook(worker_url) as source, Gradebook(class_url) as target:
        # nbgrader's update_or_create_submission trips SQLAlchemy's autoflush warnings; harmless
        warnings.simplefilter("ignore", SAWarning)
        submitted = source.find_submission(assignment, student_id)
        target.update_or_create_student(student_id)
        target.update_or_create_submission(assignment, student_id, timestamp=submitted.timestamp)
        updates: list[tuple[object, str, object]] = []
        for notebook in notebooks:
            graded = source.find_submission_notebook(notebook, assignment, student_id)
            merged = target.find_submission_notebook(notebook, assignment, student_id)
            updates.append((merged, "late_submission_penalty", graded.late_submission_penalty))
            # each side's grades and comments loaded in one query apiece and matched by cell
            # name: the worker's gradebook is a copy of the class one, but a server gradebook
            # (publish) has cells of its own, so ids never match across gradebooks
            into_grades = by_cell_name(target.db, Grade, merged.id, undefer(Grade.max_score))
            for name, grade in by_cell_name(source.db, Grade, graded.id).items():
                into = into_grades[name]
                auto = None if notebook in held else clamp(grade.auto_score, into.max_score)
                updates.append((into, "auto_score", auto))
                updates.append(
                    (into, "needs_manual_grade", into.manual_score is not None or auto is None)
                )
            into_comments = by_cell_name(target.db, Comment, merged.id)
            for name, comment in by_cell_name(source.db, Comment, graded.id).items():
                updates.append((into_comments[name], "auto_comment", comment.auto_comment))
        # every value read first, then written: a write before a read would make SQLAlchemy
        # flush and reload the row at the next read (its computed scores change)
        for row, name, value in updates:
            setattr(row, name, value)
        target.db.commit()


def by_cell_name(
    db: Session, model: type[Grade] | type[Comment], notebook_id: str, *options: object
) -> dict:
    """The *model* rows (Grade or Comment) of one submitted notebook, keyed by their cell's name."""
    rows = (
        db.query(model, BaseCell.name)
        .join(BaseCell, model.cell_id == BaseCell.id)
        .filter(model.notebook_id == notebook_id)
        .options(*options)
    )
    return {name: row for row, name in rows}


def clamp(score: float | None, points: float | None) -> float | None:
    """*score* kept within 0 and *points* (a forged partial-credit value cannot exceed them).

    >>> clamp(1e9, 2.0), clamp(-3, 2.0), clamp(None, 2.0), clamp(1.5, 2.0)
    (2.0, 0.0, None, 1.5)
    """
    if score is None:
        return None
    return min(max(float(score), 0.0), float(points or 0.0))


def notebook_score(
    class_url: str, assignment: str, student_id: str, notebook: str
) -> NotebookScore:
    """*student_id*'s score on *notebook* as the class gradebook holds it."""
    with Gradebook(class_url) as gradebook:
        submitted = gradebook.find_submission_notebook(notebook, assignment, student_id)
        grades = sorted(submitted.grades, key=lambda g: g.name)
        cells = tuple(
            CellScore(g.name, float(g.score), float(g.max_score))
            for g in grades
            if not g.needs_manual_grade
        )
        manual = tuple(g.name for g in grades if g.needs_manual_grade)
        return NotebookScore(float(submitted.score), float(submitted.max_score), cells, manual)


def max_scores(class_url: str, assignment: str) -> dict[str, float]:
    """Each notebook's maximum score in *assignment*."""
    with Gradebook(class_url) as gradebook:
        return {
            nb.name: float(nb.max_score) for nb in gradebook.find_assignment(assignment).notebooks
        }
