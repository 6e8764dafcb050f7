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


def submission(url: str, student: str, manual: dict[str, float] | None = None) -> dict:
    """The resources nbgrader passes its preprocessors for *student*, whose submission is recorded."""
    with Gradebook(url) as gb:
        gb.update_or_create_student(student)
        gb.update_or_create_submission(ASSIGNMENT, student)
        for name, score in (manual or {}).items():
            gb.find_grade(name, NOTEBOOK, ASSIGNMENT, student).manual_score = score
        gb.db.commit()
    return {
        "nbgrader": {
            "notebook": NOTEBOOK,
            "assignment": ASSIGNMENT,
            "student": student,
            "db_url": url,
        }
    }


def grade_with(classes, nb, url, student, manual: dict[str, float] | None = None):
    """Sanitize, 'execute', save and read back *nb* with (OverwriteCells, SaveAutoGrades, GetGrades) *classes*."""
    overwrite, save, get = classes
    resources = submission(url, student, manual)
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


def gradebook_cells(url: str) -> list[tuple]:
    """Every cell row generate_assignment recorded, as plain values (ids left out: they are random)."""
    with Gradebook(url) as gradebook:
        rows = []
        for notebook in gradebook.find_assignment(ASSIGNMENT).notebooks:
            for kind in ("grade_cells", "solution_cells", "task_cells", "source_cells"):
                for cell in getattr(notebook, kind):
                    values = {k: v for k, v in cell.to_dict().items() if k != "id"}
                    rows.append((notebook.name, kind, sorted(values.items())))
        return sorted(rows, key=repr)


def generate_with(save_cells, root, *, twice: bool = False) -> tuple[list[tuple], int]:
    """generate_assignment with *save_cells* in nbgrader's list: the cell rows and the commits made."""
    from nbgrader.converters import GenerateAssignment
    from nbgrader.preprocessors import SaveCells
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    from autograder.term.course import load_repo_config, nbgrader_config
    from autograder.term.nbgrader_course import generate_assignment

    shutil.copytree(REPO_ROOT / "source" / ASSIGNMENT, root / "source" / ASSIGNMENT)
    config = nbgrader_config(root, ASSIGNMENT, DEFAULT_SETTINGS, load_repo_config(REPO_ROOT))
    config.GenerateAssignment.preprocessors = [
        save_cells if step is SaveCells else step
        for step in GenerateAssignment.class_traits()["preprocessors"].default()
    ]
    commits = []

    def count(connection) -> None:
        commits.append(connection)

    event.listen(Engine, "commit", count)
    try:
        generate_assignment(config, ASSIGNMENT)
        if twice:  # the second run removes and re-adds the notebook (no submissions yet)
            generate_assignment(config, ASSIGNMENT)
    finally:
        event.remove(Engine, "commit", count)
    return gradebook_cells(db_url(root / "gradebook.db")), len(commits)


@pytest.mark.parametrize("twice", [False, True], ids=["new gradebook", "generated again"])
def test_quick_save_cells_records_the_cells_nbgrader_records_in_one_commit(tmp_path, twice):
    from nbgrader.preprocessors import SaveCells

    from autograder.grading.notebook_rows import QuickSaveCells

    stock, stock_commits = generate_with(SaveCells, tmp_path / "stock", twice=twice)
    quick, quick_commits = generate_with(QuickSaveCells, tmp_path / "quick", twice=twice)
    assert quick == stock and len(stock) > 20
    # nbgrader commits once per cell; the quick one once per notebook per run (and the
    # assignment's own rows, which both write alike)
    assert stock_commits - quick_commits >= len(stock) - 2


def test_quick_save_cells_commits_nothing_when_recording_fails(tmp_path, monkeypatch):
    from nbgrader.api import Gradebook as NbGradebook
    from nbgrader.api import InvalidEntry

    from autograder.grading.notebook_rows import QuickSaveCells

    calls = []
    original = NbGradebook.update_or_create_source_cell

    def fail_on_the_third(self, *args, **kwargs):
        calls.append(args[0])
        if len(calls) == 3:
            self.db.rollback()
            raise InvalidEntry("refused")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(NbGradebook, "update_or_create_source_cell", fail_on_the_third)
    from autograder.errors import GradingSetupError

    with pytest.raises(GradingSetupError, match="generate_assignment .* failed"):
        generate_with(QuickSaveCells, tmp_path)
    assert len(calls) == 3
    with Gradebook(db_url(tmp_path / "gradebook.db")) as gradebook:
        notebooks = gradebook.find_assignment(ASSIGNMENT).notebooks
        assert [nb.name for nb in notebooks if nb.grade_cells or nb.source_cells] == []


def restored_ids(nb: NotebookNode, url: str, student: str) -> list[str]:
    """The ids of the cells QuickOverwriteCells puts back into *nb*, after nbformat writes it."""
    resources = submission(url, student)
    handed_in = {cell.get("id") for cell in nb.cells}
    nb, _ = QuickOverwriteCells(add_missing_cells=True).preprocess(copy.deepcopy(nb), resources)
    written = nbformat.reads(nbformat.writes(nb), as_version=4)
    nbformat.validate(written)
    ids = [cell.id for cell in written.cells]
    assert len(ids) == len(set(ids)), "no two cells share an id"
    return [i for i in ids if i not in handed_in]


def test_a_deleted_test_comes_back_under_the_same_id_every_run(course, tmp_path):
    built, folders = course
    nb = readable(folders["tests_deleted"])
    path = tmp_path / "gradebook.db"
    shutil.copy(built.gradebook, path)
    first = restored_ids(nb, db_url(path), "tests_deleted")
    assert first and first == restored_ids(nb, db_url(path), "tests_deleted")
    # a student who gave a cell of theirs the id a restored test would take keeps it
    taken = copy.deepcopy(nb)
    taken.cells[0]["id"] = first[0]
    again = restored_ids(taken, db_url(path), "tests_deleted")
    assert first[0] not in again and len(again) == len(first)


def test_a_notebook_before_format_4_5_keeps_cells_without_ids(course, tmp_path):
    """nbformat's 4.0-4.4 schemas refuse a cell id: none is added, the notebook stays valid."""
    built, folders = course
    nb = readable(folders["tests_deleted"])
    nb.nbformat_minor = 4
    for cell in nb.cells:
        cell.pop("id", None)
    path = tmp_path / "gradebook.db"
    shutil.copy(built.gradebook, path)
    resources = submission(db_url(path), "tests_deleted")
    before = len(nb.cells)
    nb, _ = QuickOverwriteCells(add_missing_cells=True).preprocess(copy.deepcopy(nb), resources)
    assert len(nb.cells) > before, "the deleted tests were put back"
    assert not [cell for cell in nb.cells if "id" in cell]
    nbformat.validate(nbformat.reads(nbformat.writes(nb), as_version=4))
