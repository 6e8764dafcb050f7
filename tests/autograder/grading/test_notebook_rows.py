"""The quick OverwriteCells, SaveAutoGrades and GetGrades give what nbgrader's own give.

Every fixture student's notebook (the attack fixtures included) goes through nbgrader's
sanitizing preprocessors, a fixed set of outputs in place of a kernel (a failed test, a
partial-credit value, a pass, in turn), SaveAutoGrades and GetGrades twice: once with
nbgrader's classes, once with :mod:`autograder.grading.notebook_rows`, each in its own
copy of the course gradebook. The notebooks, every cell's grade and comment rows and the
feedback's scores must be identical. A second round regrades with a hand score already
entered, which nbgrader keeps and flags for review.
"""

from __future__ import annotations

import copy
import json
import shutil
from dataclasses import replace

import nbformat
import pytest
from nbformat.notebooknode import NotebookNode
from nbgrader.api import Gradebook
from nbgrader.nbgraderformat import ValidationError
from nbgrader.nbgraderformat.common import SchemaMismatchError
from nbgrader.preprocessors import (
    CheckCellMetadata,
    ClearOutput,
    DeduplicateIds,
    GetGrades,
    OverwriteCells,
    OverwriteKernelspec,
    SaveAutoGrades,
)

from autograder.grading.notebook_rows import (
    QuickGetGrades,
    QuickOverwriteCells,
    QuickSaveAutoGrades,
)
from autograder.term.course import DEFAULT_SETTINGS, build_course
from autograder.term.nbgrader_course import db_url
from tests.conftest import REPO_ROOT
from tests.fixtures import make_submissions
from tests.fixtures.grading import ASSIGNMENT, NOTEBOOK

STOCK = (OverwriteCells, SaveAutoGrades, GetGrades)
QUICK = (QuickOverwriteCells, QuickSaveAutoGrades, QuickGetGrades)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The lesson 3 course (its gradebook made by generate_assignment) and the fixture class."""
    root = tmp_path_factory.mktemp("rows")
    built = build_course(REPO_ROOT, ASSIGNMENT, root, replace(DEFAULT_SETTINGS, sandbox=None))
    folders = make_submissions.make_class(root / "class", ASSIGNMENT)
    return built, folders


def readable(folder) -> NotebookNode | None:
    try:
        return nbformat.read(folder / f"{NOTEBOOK}.ipynb", as_version=4)
    except (OSError, ValueError, KeyError, AttributeError):
        return None


def fake_outputs(nb: NotebookNode) -> None:
    """Outputs a kernel could give, chosen by position: an error, a partial-credit value, nothing."""
    for index, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        kind = index % 3
        if kind == 0:
            cell.outputs = [
                nbformat.v4.new_output("error", ename="AssertionError", evalue="", traceback=[])
            ]
        elif kind == 1:
            cell.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "0.5"})]
        else:
            cell.outputs = []


def grade_with(classes, nb, url, student, manual: dict[str, float] | None = None):
    """Sanitize, 'execute', save and read back *nb* with (OverwriteCells, SaveAutoGrades, GetGrades) *classes*."""
    overwrite, save, get = classes
    resources = {
        "nbgrader": {
            "notebook": NOTEBOOK,
            "assignment": ASSIGNMENT,
            "student": student,
            "db_url": url,
        }
    }
    with Gradebook(url) as gb:
        gb.update_or_create_student(student)
        gb.update_or_create_submission(ASSIGNMENT, student)
        for name, score in (manual or {}).items():
            gb.find_grade(name, NOTEBOOK, ASSIGNMENT, student).manual_score = score
        gb.db.commit()
    handed_in = {cell.get("id") for cell in nb.cells}
    nb = copy.deepcopy(nb)
    try:
        for step in (
            ClearOutput(),
            DeduplicateIds(),
            OverwriteKernelspec(),
            overwrite(add_missing_cells=True),
            CheckCellMetadata(),
        ):
            nb, resources = step.preprocess(nb, resources)
    except (ValidationError, SchemaMismatchError) as error:  # nbgrader refuses the notebook
        return ("refused", type(error).__name__, str(error))
    # nbgrader writes the notebook after each pass and reads it back for the next
    nb = nbformat.reads(nbformat.writes(nb), as_version=4)
    fake_outputs(nb)
    nb, resources = save().preprocess(nb, resources)
    nb = nbformat.reads(nbformat.writes(nb), as_version=4)
    nb, resources = get().preprocess(nb, resources)
    with Gradebook(url) as gb:
        submitted = gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, student)
        grades = sorted(
            (g.name, g.auto_score, g.manual_score, g.needs_manual_grade, g.score, g.max_score)
            for g in submitted.grades
        )
        comments = sorted((c.name, c.auto_comment, c.comment) for c in submitted.comments)
        totals = (submitted.score, submitted.max_score, submitted.needs_manual_grade)
    read_back = {k: v for k, v in resources["nbgrader"].items() if k != "db_url"}  # a copy each
    written = json.loads(nbformat.writes(nb))
    for cell in written["cells"]:  # a test cell put back gets a random id from nbformat
        if cell.get("id") not in handed_in:
            cell["id"] = "added"
    return (written, read_back, grades, comments, totals)


def test_the_quick_preprocessors_grade_every_fixture_student_as_nbgraders_do(course, tmp_path):
    built, folders = course
    compared, graded, refused = [], set(), set()
    for student, folder in sorted(folders.items()):
        nb = readable(folder)
        if nb is None:
            continue
        results = []
        for label, classes in (("stock", STOCK), ("quick", QUICK)):
            path = tmp_path / f"{student}-{label}.db"
            shutil.copy(built.gradebook, path)
            first = grade_with(classes, nb, db_url(path), student)
            # a regrade after a grader scored the first test cell by hand
            first_test = next(
                (
                    c.metadata.nbgrader["grade_id"]
                    for c in nb.cells
                    if c.get("metadata", {}).get("nbgrader", {}).get("grade")
                ),
                None,
            )
            again = grade_with(
                classes, nb, db_url(path), student, {first_test: 1.0} if first_test else None
            )
            results.append((first, again))
        assert results[0] == results[1], student
        compared.append(student)
        stock_first = results[0][0]
        if stock_first[0] == "refused":
            refused.add(student)
        else:
            assert stock_first[2], f"{student}: no grade rows compared"
            graded.add(student)
    # every readable fixture was compared, the attacks among them
    assert {"correct", "blank", "tests_deleted", "tests_unmarked", "always_equal"} <= graded
    assert "future_metadata" in refused


def test_a_lookup_for_another_notebook_is_refused(course, tmp_path):
    from autograder.grading.notebook_rows import NotebookRows

    built, _ = course
    with Gradebook(db_url(built.gradebook)) as gb:
        rows = NotebookRows(gb, NOTEBOOK, ASSIGNMENT)
        with pytest.raises(ValueError, match="asked for"):
            rows.find_source_cell("anything", "other_notebook", ASSIGNMENT)
        from nbgrader.api import MissingEntry

        with pytest.raises(MissingEntry):
            rows.find_source_cell("no-such-cell", NOTEBOOK, ASSIGNMENT)
