"""nbgrader's OverwriteCells, SaveAutoGrades, GetGrades and SaveCells, with fewer gradebook trips.

nbgrader's preprocessors look a cell up in the gradebook with a query of five or
six joins for every cell, and SaveAutoGrades commits after every cell (SQLAlchemy then
reloads every row it touched). The subclasses here keep nbgrader's code for what happens
to each cell (restored sources, locked flags, points, checksums, added missing cells,
scores, ``needs_manual_grade``, "No response." comments) and only change where the rows
come from: :class:`NotebookRows` loads the notebook's cells, and the student's grades and
comments, in a few queries, and answers the same ``find_*`` calls with the same objects
(or the same ``MissingEntry``). SaveAutoGrades then commits once per notebook.
``tests/autograder/grading/test_notebook_rows.py`` grades the same class with nbgrader's
preprocessors and with these and compares every cell's score, comment and output.

:class:`QuickSaveCells` is generate_assignment's SaveCells with the notebook's cells recorded
in one transaction: nbgrader commits after each cell (about a hundred disk syncs for
lesson 3's assignment, 1.7 s of the grader's start-up), the same statements run in the
same order either way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Set as AbstractSet
from typing import Any

from nbformat.notebooknode import NotebookNode
from nbgrader.api import (
    Comment,
    Grade,
    Gradebook,
    GradeCell,
    MissingEntry,
    SolutionCell,
)
from nbgrader.preprocessors import GetGrades, OverwriteCells, SaveAutoGrades, SaveCells
from sqlalchemy.orm import undefer


class NotebookRows:
    """A gradebook whose per-cell lookups for one notebook are answered from rows read once.

    Everything else (``db``, other ``find_*`` methods) is the wrapped gradebook's.
    """

    def __init__(
        self, gradebook: Gradebook, notebook: str, assignment: str, student: str | None = None
    ) -> None:
        self._gradebook = gradebook
        self._notebook, self._assignment = notebook, assignment
        source = gradebook.find_notebook(notebook, assignment)
        self._source_cells = {cell.name: cell for cell in source.source_cells}
        # nbgrader looks for a grade cell of that name first, then a task cell
        self._graded_cells = {cell.name: cell for cell in source.task_cells}
        self._graded_cells.update((cell.name, cell) for cell in source.grade_cells)
        self._grades: dict[str, Grade] = {}
        self._comments: dict[str, Comment] = {}
        if student is not None:
            submitted = gradebook.find_submission_notebook(notebook, assignment, student)
            # the cells are in the session already (read above): no query per row; a grade's
            # points are deferred in nbgrader's model (a query each when read): read with it
            grades = (
                gradebook.db.query(Grade)
                .filter(Grade.notebook_id == submitted.id)
                .options(undefer(Grade.max_score))
            )
            self._grades = _by_cell_name(grades, GradeCell)
            self._comments = _by_cell_name(submitted.comments, SolutionCell)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._gradebook, name)

    def _check(self, notebook: str, assignment: str) -> None:
        if (notebook, assignment) != (self._notebook, self._assignment):
            raise ValueError(
                f"rows read for {self._assignment}/{self._notebook}, asked for {assignment}/{notebook}"
            )

    def find_source_cell(self, name: str, notebook: str, assignment: str):
        self._check(notebook, assignment)
        try:
            return self._source_cells[name]
        except KeyError:
            raise MissingEntry(f"No such source cell: {assignment}/{notebook}/{name}") from None

    def find_graded_cell(self, name: str, notebook: str, assignment: str):
        self._check(notebook, assignment)
        try:
            return self._graded_cells[name]
        except KeyError:
            raise MissingEntry(f"No such grade cell: {assignment}/{notebook}/{name}") from None

    def find_grade(self, grade_cell: str, notebook: str, assignment: str, student: str) -> Grade:
        self._check(notebook, assignment)
        try:
            return self._grades[grade_cell]
        except KeyError:
            raise MissingEntry(
                f"No such grade: {assignment}/{notebook}/{grade_cell}/{student}"
            ) from None

    def find_comment(
        self, solution_cell: str, notebook: str, assignment: str, student: str
    ) -> Comment:
        self._check(notebook, assignment)
        try:
            return self._comments[solution_cell]
        except KeyError:
            raise MissingEntry(
                f"No such comment: {assignment}/{notebook}/{solution_cell}/{student}"
            ) from None


def _by_cell_name(rows, preferred: type) -> dict:
    """*rows* (grades or comments) by their cell's name; a *preferred* cell wins a shared name."""
    found: dict = {}
    for row in sorted(rows, key=lambda r: isinstance(r.cell, preferred)):
        found[row.cell.name] = row
    return found


def _take_ids(preprocessor, resources, *, student: bool) -> None:
    """Set the ids nbgrader's preprocessor reads from *resources* at the start of ``preprocess``."""
    meta = resources["nbgrader"]
    preprocessor.notebook_id, preprocessor.assignment_id = meta["notebook"], meta["assignment"]
    preprocessor.db_url = meta["db_url"]
    if student:
        preprocessor.student_id = meta["student"]


class QuickOverwriteCells(OverwriteCells):
    """nbgrader's OverwriteCells, its cell lookups served by :class:`NotebookRows`."""

    def preprocess(self, nb, resources):
        _take_ids(self, resources, student=False)
        with Gradebook(self.db_url) as gradebook:
            self.gradebook = NotebookRows(gradebook, self.notebook_id, self.assignment_id)
            nb, resources = super(OverwriteCells, self).preprocess(nb, resources)
            if self.add_missing_cells:
                handed_in = {id(cell) for cell in nb.cells}
                nb, resources = self.add_missing_grade_cells(nb, resources)
                nb, resources = self.add_missing_task_cells(nb, resources)
                name_restored_cells(nb, handed_in)
        return nb, resources


def name_restored_cells(nb: NotebookNode, handed_in: AbstractSet[int] = frozenset()) -> None:
    """Give each cell nbgrader put back (a deleted test) an id made from its grade_id.

    nbformat gives a cell without an id a random one when a notebook of format 4.5 or later
    is written, so a deleted test came back under a new id on every run, and the autograded
    notebook and the feedback page changed with it. Only the cells nbgrader added (those
    whose ``id()`` is not in *handed_in*) are named, and only from format 4.5 on: before it
    a cell may have no id at all (nbformat's 4.0-4.4 schemas refuse one). An id already in
    the notebook (a student may have chosen any) is never reused: a number is added until
    the id is free.

    >>> from nbformat.v4 import new_code_cell, new_notebook
    >>> cell = new_code_cell("assert True", metadata={"nbgrader": {"grade_id": "test_a"}})
    >>> nb = new_notebook(cells=[new_code_cell("x = 1"), cell])
    >>> del nb.cells[1]["id"]
    >>> name_restored_cells(nb)
    >>> nb.cells[1].id
    'restored-6d557526735a'
    """
    if (nb.get("nbformat", 0), nb.get("nbformat_minor", 0)) < (4, 5):
        return
    taken = {cell.get("id") for cell in nb.cells}
    for cell in nb.cells:
        if id(cell) in handed_in or cell.get("id"):
            continue
        grade_id = str(cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", ""))
        base = "restored-" + hashlib.sha256(grade_id.encode()).hexdigest()[:12]
        candidate, number = base, 1
        while candidate in taken:
            number += 1
            candidate = f"{base}-{number}"
        cell["id"] = candidate
        taken.add(candidate)


class _CommitAtEnd:
    """A session whose ``commit`` waits for the real one at the end of the notebook."""

    def __init__(self, session) -> None:
        self._session = session

    def commit(self) -> None:
        """Nothing yet: :class:`QuickSaveAutoGrades` commits once, after the last cell."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


class _OneCommit(NotebookRows):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.db = _CommitAtEnd(self._gradebook.db)


class QuickSaveAutoGrades(SaveAutoGrades):
    """nbgrader's SaveAutoGrades, with rows read once and one commit per notebook."""

    def preprocess(self, nb, resources):
        _take_ids(self, resources, student=True)
        with Gradebook(self.db_url) as gradebook:
            self.gradebook = _OneCommit(
                gradebook, self.notebook_id, self.assignment_id, self.student_id
            )
            nb, resources = super(SaveAutoGrades, self).preprocess(nb, resources)
            gradebook.db.commit()
        return nb, resources


class QuickGetGrades(GetGrades):
    """nbgrader's GetGrades (feedback's scores and comments), its rows read once."""

    def preprocess(self, nb, resources):
        _take_ids(self, resources, student=True)
        with Gradebook(self.db_url) as gradebook:
            self.gradebook = NotebookRows(
                gradebook, self.notebook_id, self.assignment_id, self.student_id
            )
            nb, resources = super(GetGrades, self).preprocess(nb, resources)
            notebook = gradebook.find_submission_notebook(
                self.notebook_id, self.assignment_id, self.student_id
            )
            late_penalty = notebook.late_submission_penalty
            if late_penalty is None:
                late_penalty = 0
            else:
                self.log.warning(f"Late submission penalty: {late_penalty}")
            resources["nbgrader"]["score"] = notebook.score - late_penalty
            resources["nbgrader"]["max_score"] = notebook.max_score
            resources["nbgrader"]["late_penalty"] = late_penalty
        return nb, resources


class _FlushAtCommit:
    """A session whose ``commit`` only flushes: the statements run in order, one commit at the end."""

    def __init__(self, session) -> None:
        self._session = session

    def commit(self) -> None:
        self._session.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


class QuickSaveCells(SaveCells):
    """nbgrader's SaveCells (generate_assignment records a notebook's cells), in one transaction.

    Every ``commit`` nbgrader makes while recording the notebook becomes a flush, so the same
    statements reach the database in the same order; the notebook is committed once at the
    end, or not at all when recording it fails (nbgrader would have kept the cells up to
    the failing one).
    """

    def _create_notebook(self, nb) -> None:
        gradebook = self.gradebook
        session = gradebook.db
        gradebook.db = _FlushAtCommit(session)
        try:
            super()._create_notebook(nb)
        finally:
            gradebook.db = session
        session.commit()
