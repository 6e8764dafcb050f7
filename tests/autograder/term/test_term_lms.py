"""A whole term through an LMS, end to end: a release zip, an LMS download, a fixed test, Canvas.

The instructor uploads the release zip, downloads the class's files (named the way an
LMS names them), grades with a test that turns out to be wrong, enters a hand grade,
fixes the test and grades again (the hand grade stays, the report says who changed),
exports for Canvas from Canvas's own roster, and gets one folder of feedback per student.
"""

from __future__ import annotations

import csv
import json
import shutil
import zipfile

import pytest

from tests.autograder.term.test_term_exchange import COMMENT, manual_cells, read_csv, visible_text
from tests.fixtures import make_submissions
from tests.fixtures.grading import ASSIGNMENT, CELL_TIMEOUT, NOTEBOOK, REPO_ROOT
from tests.fixtures.term import (
    autograder,
    autograder_here,
    enter_hand_grade,
    grade_other_written_cells,
    hand_grade,
)
from tests.nbgrader_helpers import cells_by_id, graded_points, read_notebook

pytestmark = pytest.mark.slow

#: An LMS names each download <login>_<user id>_<submission id>_<original name>.
LMS_NAMES = r".*/(?P<student_id>[a-z]+)_\d+_\d+_(?P<file_id>[^/]+\.ipynb)$"
BROKEN_TEST = "test_empanadas"
CANVAS_COLUMN = "Lesson 3: window buffer (7781)"


def canvas_roster(path, students: dict[str, str]) -> None:
    """A Canvas Gradebook export: identity columns, an assignment, read-only totals."""
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(
            [
                "Student",
                "ID",
                "SIS User ID",
                "SIS Login ID",
                "Section",
                CANVAS_COLUMN,
                "Current Score",
            ]
        )
        writer.writerow(["    Points Possible", "", "", "", "", "39", "(read only)"])
        for number, (login, name) in enumerate(students.items(), start=101):
            writer.writerow([name, number, f"S{number}", login, "Memory 101", "", ""])


@pytest.fixture(scope="module")
def source():
    return read_notebook(REPO_ROOT / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")


@pytest.fixture(scope="module")
def term(tmp_path_factory, source):
    root = tmp_path_factory.mktemp("term-lms")
    steps = {}
    steps["release"] = autograder_here(
        "release", ASSIGNMENT, "--repo", REPO_ROOT, "--zip", root / "upload.zip"
    )

    # the repository as it was before the fix: one test expects the wrong thing
    broken = root / "repo-before-fix"
    shutil.copytree(REPO_ROOT / "source" / ASSIGNMENT, broken / "source" / ASSIGNMENT)
    shutil.copy(REPO_ROOT / "nbgrader_config.py", broken)
    notebook = read_notebook(broken / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
    cell = cells_by_id(notebook)[BROKEN_TEST]
    cell["source"] = '"""the expected value was typed wrong"""\nassert False\n'
    (broken / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").write_text(json.dumps(notebook))

    release_nb = read_notebook(REPO_ROOT / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
    files = {
        "ana_101_9001_window_buffer.ipynb": json.dumps(
            make_submissions.answered(release_nb, source)
        ),
        "ben_102_9002_window_buffer.ipynb": '{"cells": [',
        "cara_103_9003_window_buffer.ipynb": json.dumps(release_nb),
    }
    download = root / "download.zip"
    with zipfile.ZipFile(download, "w") as zipped:
        for name, text in files.items():
            zipped.writestr(f"submissions/{name}", text)
    out = root / "out"
    grade = (
        "grade",
        ASSIGNMENT,
        "--submissions",
        download,
        "--out",
        out,
        "--zip-regexp",
        LMS_NAMES,
    )
    grade += ("--timeout", str(CELL_TIMEOUT), "--no-progress")
    steps["grade_broken"] = autograder(*grade, "--repo", broken)
    gradebook = "sqlite:///" + str(out / "course" / "gradebook.db")
    written = next(iter(manual_cells(source)))
    enter_hand_grade(gradebook, ASSIGNMENT, NOTEBOOK, "ana", written, 4, COMMENT)
    grade_other_written_cells(gradebook, ASSIGNMENT, NOTEBOOK, "ana", manual_cells(source), written)
    before_fix = read_csv(out / "grades.csv")
    steps["grade_fixed"] = autograder(*grade)
    roster = root / "canvas-export.csv"
    canvas_roster(
        roster, {"ana": "Ana Ruiz", "ben": "Ben Okafor", "cara": "Cara Li", "dan": "Dan Wu"}
    )
    steps["export"] = autograder_here(
        "export",
        ASSIGNMENT,
        "--out",
        out,
        "--canvas-roster",
        roster,
        "--canvas-column",
        CANVAS_COLUMN,
    )
    steps["feedback"] = autograder_here("feedback", ASSIGNMENT, "--out", out)
    with (out / "canvas_grades.csv").open(newline="", encoding="utf-8") as file:
        canvas = list(csv.reader(file))
    return {
        "root": root,
        "out": out,
        "steps": steps,
        "gradebook": gradebook,
        "written": written,
        "before_fix": before_fix,
        "changes": read_csv(out / "changes.csv"),
        "final": read_csv(out / "final_grades.csv"),
        "canvas": canvas,
    }


def test_release_zip_holds_the_student_version_only(term):
    assert term["steps"]["release"].returncode == 0, term["steps"]["release"].stderr
    with zipfile.ZipFile(term["root"] / "upload.zip") as zipped:
        names = zipped.namelist()
        text = "".join(zipped.read(n).decode("utf-8", "replace") for n in names)
    released = sorted(
        str(p.relative_to(REPO_ROOT / "release"))
        for p in (REPO_ROOT / "release" / ASSIGNMENT).rglob("*")
        if p.is_file()
    )
    assert sorted(names) == released
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text


def test_fixed_test_regrades_and_keeps_the_hand_grade(term, source):
    points = graded_points(source)
    auto = sum(points.values())
    # grades.csv of the first run was written before the hand grade
    assert float(term["before_fix"]["ana"]["score"]) == auto - points[BROKEN_TEST]
    assert hand_grade(term["gradebook"], ASSIGNMENT, NOTEBOOK, "ana", term["written"]) == (
        4,
        COMMENT,
    )
    assert term["changes"]["ana"]["change"] == "regraded"
    kept = term["changes"]["ana"]["hand_graded_kept"]
    assert set(kept.split()) == set(manual_cells(source))  # every written cell's hand grade
    assert term["changes"]["cara"]["change"] == "unchanged"  # failed the test before and after
    stdout = term["steps"]["grade_fixed"].stdout
    assert "ana: regraded" in stdout and f"hand scores kept on {', '.join(kept.split())}" in stdout
    assert "cara:" not in stdout
    final = term["final"]["ana"]
    assert (final["status"], float(final["total"])) == ("final", auto + 4)
    assert float(final[BROKEN_TEST]) == points[BROKEN_TEST]


def test_final_grades_never_turn_an_ungraded_notebook_into_zero(term, source):
    final = term["final"]
    assert sorted(final) == ["ana", "ben", "cara"]
    ben = final["ben"]
    assert (ben["status"], ben["total"]) == ("not_scored", "")
    assert all(ben[q] == "" for q in graded_points(source)), "no per-question 0 either"
    assert "not valid JSON" in ben["detail"]
    assert (final["cara"]["status"], float(final["cara"]["total"])) == ("final", 0.0)
    assert term["steps"]["export"].returncode == 1  # not every student has a final grade


def test_canvas_file_follows_canvas_gradebook_layout(term, source):
    header, points, *rows = term["canvas"]
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", CANVAS_COLUMN]
    maximum = sum(graded_points(source, autograded_only=False).values())
    assert points[0] == "Points Possible" and float(points[-1]) == maximum
    by_login = {row[3]: row for row in rows}
    assert sorted(by_login) == ["ana", "ben", "cara"]  # dan handed nothing in: not touched
    assert by_login["ana"][:3] == ["Ana Ruiz", "101", "S101"]
    assert float(by_login["ana"][-1]) == sum(graded_points(source).values()) + 4
    assert by_login["ben"][-1] == ""  # not scored: blank, never 0


def test_feedback_files_to_upload(term):
    assert term["steps"]["feedback"].returncode == 0, term["steps"]["feedback"].stderr
    back = term["out"] / "return"
    assert sorted(p.relative_to(back).as_posix() for p in back.rglob("*.html")) == [
        f"ana/{NOTEBOOK}.html",
        f"cara/{NOTEBOOK}.html",
    ]
    text = visible_text(back / "ana" / f"{NOTEBOOK}.html")
    assert COMMENT in text and "BEGIN HIDDEN TESTS" not in text
