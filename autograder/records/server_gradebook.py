"""Publish a graded class into a server gradebook (PostgreSQL) that several graders share.

On a shared JupyterHub, formgrader and every grader open one gradebook on a database
server (``CourseDirectory.db_url``). The autograder grades into its own SQLite gradebook
(each worker works on a copy of it), then :func:`publish` copies the assignment, the
students and their automatic scores into the server gradebook. The copy goes through the
same merge as the class gradebook: a hand score or comment a grader already entered on
the server is kept, so re-running the autograder and publishing again loses no one's work.
"""

from __future__ import annotations

import importlib.util
import warnings
from dataclasses import dataclass

from nbgrader.api import Gradebook, MissingEntry
from sqlalchemy.exc import SAWarning

from autograder.records.gradebook import merge_student

#: Attributes of each kind of cell that nbgrader's gradebook stores.
GRADE_CELL = ("max_score", "cell_type")
SOURCE_CELL = ("cell_type", "locked", "source", "checksum")


@dataclass(frozen=True)
class Published:
    """What one publish copied."""

    students: tuple[str, ...]
    notebooks: tuple[str, ...]


def sqlalchemy_url(url: str) -> str:
    """*url* with a PostgreSQL driver SQLAlchemy can load here (psycopg 3 when psycopg2 is absent).

    >>> sqlalchemy_url("sqlite:////tmp/gradebook.db")
    'sqlite:////tmp/gradebook.db'
    """
    if (
        url.startswith(("postgresql://", "postgres://"))
        and importlib.util.find_spec("psycopg2") is None
    ):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def copy_assignment(source: Gradebook, target: Gradebook, assignment: str) -> tuple[str, ...]:
    """Create or update *assignment*'s notebooks and cells in *target* as *source* has them."""
    found = source.find_assignment(assignment)
    target.update_or_create_assignment(assignment, duedate=found.duedate)
    names = []
    for notebook in found.notebooks:
        target.update_or_create_notebook(notebook.name, assignment)
        for cell in notebook.grade_cells:
            target.update_or_create_grade_cell(
                cell.name, notebook.name, assignment, **{k: getattr(cell, k) for k in GRADE_CELL}
            )
        for cell in notebook.solution_cells:
            target.update_or_create_solution_cell(cell.name, notebook.name, assignment)
        for cell in notebook.task_cells:
            target.update_or_create_task_cell(
                cell.name,
                notebook.name,
                assignment,
                max_score=cell.max_score,
                cell_type=cell.cell_type,
            )
        for cell in notebook.source_cells:
            target.update_or_create_source_cell(
                cell.name, notebook.name, assignment, **{k: getattr(cell, k) for k in SOURCE_CELL}
            )
        names.append(notebook.name)
    return tuple(sorted(names))


def publish(local_url: str, server_url: str, assignment: str) -> Published:
    """Copy *assignment* and every student's automatic scores from *local_url* into *server_url*."""
    server_url = sqlalchemy_url(server_url)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)
        with Gradebook(local_url) as local:
            course_id = local.find_assignment(assignment).course_id
        with Gradebook(local_url) as local, Gradebook(server_url, course_id) as server:
            notebooks = copy_assignment(local, server, assignment)
            students = []
            for student in local.students:
                try:
                    local.find_submission(assignment, student.id)
                except MissingEntry:
                    continue
                server.update_or_create_student(
                    student.id,
                    first_name=student.first_name,
                    last_name=student.last_name,
                    email=student.email,
                )
                students.append(student.id)
    for student_id in students:
        merge_student(server_url, local_url, assignment, student_id, notebooks)
    return Published(tuple(sorted(students)), notebooks)
