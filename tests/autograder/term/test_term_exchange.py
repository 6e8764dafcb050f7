"""A whole term on a shared hub, end to end through nbgrader's exchange and the one command.

Release into the exchange, two students fetch and submit (one answers everything, one
hands in the release untouched), collect, grade, enter a hand grade and a comment (as
formgrader does), export, return feedback through the exchange, then a late
resubmission: collected, graded again, and the hand grade is still there.
Expected points come from the instructor's notebook, not from a previous run.
"""

from __future__ import annotations

import csv
import html
import json
import re
import shutil

import pytest

from tests.fixtures import make_submissions
from tests.fixtures.grading import ASSIGNMENT, CELL_TIMEOUT, NOTEBOOK, REPO_ROOT
from tests.fixtures.term import (
    autograder,
    autograder_here,
    enter_hand_grade,
    fetch,
    fetch_feedback,
    grade_other_written_cells,
    hand_grade,
    submit,
)
from tests.nbgrader_helpers import graded_points, nbgrader_meta, read_notebook

pytestmark = pytest.mark.slow

COMMENT = "Right: the window drops the oldest turns first. Name the setting next time."


def manual_cells(notebook: dict) -> dict[str, float]:
    """Graded cells a person scores (written answers), with their points."""
    return {
        nbgrader_meta(c)["grade_id"]: float(nbgrader_meta(c)["points"])
        for c in notebook["cells"]
        if nbgrader_meta(c).get("grade") and nbgrader_meta(c).get("solution")
    }


def read_csv(path) -> dict[str, dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as file:
        return {row["student_id"]: row for row in csv.DictReader(file)}


def visible_text(path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def source():
    return read_notebook(REPO_ROOT / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")


@pytest.fixture(scope="module")
def term(tmp_path_factory, source):
    """Run the whole term once; every step's output and the folders it left."""
    root = tmp_path_factory.mktemp("term-exchange")
    exchange, collected, out = root / "exchange", root / "collected", root / "out"
    steps = {}
    steps["release"] = autograder_here(
        "release", ASSIGNMENT, "--repo", REPO_ROOT, "--exchange", exchange
    )
    homes = {s: root / "home" / s for s in ("ana", "ben")}
    release_nb = read_notebook(REPO_ROOT / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
    for student, home in homes.items():
        folder = fetch(exchange, home, student, ASSIGNMENT)
        if student == "ana":
            answered = make_submissions.answered(release_nb, source)
            (folder / f"{NOTEBOOK}.ipynb").write_text(json.dumps(answered), encoding="utf-8")
        submit(exchange, home, student, ASSIGNMENT)
    steps["collect"] = autograder_here(
        "collect", ASSIGNMENT, "--repo", REPO_ROOT, "--exchange", exchange, "--into", collected
    )
    grade = (
        "grade",
        ASSIGNMENT,
        "--submissions",
        collected / "submitted",
        "--out",
        out,
        "--timeout",
        CELL_TIMEOUT,
        "--no-progress",
    )
    steps["grade"] = autograder(*grade)
    gradebook = "sqlite:///" + str(out / "course" / "gradebook.db")
    cell = next(iter(manual_cells(source)))
    enter_hand_grade(gradebook, ASSIGNMENT, NOTEBOOK, "ana", cell, 3, COMMENT)
    grade_other_written_cells(gradebook, ASSIGNMENT, NOTEBOOK, "ana", manual_cells(source), cell)
    steps["export"] = autograder_here("export", ASSIGNMENT, "--out", out)
    exported = read_csv(out / "final_grades.csv")
    steps["feedback"] = autograder_here(
        "feedback", ASSIGNMENT, "--out", out, "--exchange", exchange
    )
    pages = fetch_feedback(exchange, homes["ana"], "ana", ASSIGNMENT)

    # ben hands in again after the deadline, this time with every answer
    answered = make_submissions.answered(release_nb, source)
    (homes["ben"] / ASSIGNMENT / f"{NOTEBOOK}.ipynb").write_text(
        json.dumps(answered), encoding="utf-8"
    )
    submit(exchange, homes["ben"], "ben", ASSIGNMENT)
    steps["collect_late"] = autograder_here(
        "collect", ASSIGNMENT, "--repo", REPO_ROOT, "--exchange", exchange, "--into", collected
    )
    steps["grade_late"] = autograder(*grade)
    steps["export_late"] = autograder_here("export", ASSIGNMENT, "--out", out)
    return {
        "steps": steps,
        "out": out,
        "gradebook": gradebook,
        "cell": cell,
        "exported": exported,
        "exported_late": read_csv(out / "final_grades.csv"),
        "pages": pages,
        "changes": read_csv(out / "changes.csv"),
    }


def test_every_step_succeeds(term):
    steps = term["steps"]
    for name in ("release", "collect", "collect_late", "feedback"):
        assert steps[name].returncode == 0, f"{name}: {steps[name].stderr[-2000:]}"
    for name in ("grade", "grade_late"):  # every notebook graded: exit 0
        assert steps[name].returncode == 0, (
            f"{name}: {steps[name].stdout}{steps[name].stderr[-2000:]}"
        )
    assert "collected 2 students" in steps["collect"].stdout


def test_course_folder_opens_with_nbgrader(term):
    from autograder.term.course_config import load_course_config

    course = term["out"] / "course"
    moved = term["out"].parent / "moved-course"
    shutil.copytree(course, moved)
    config = load_course_config(moved)  # the copy finds its own gradebook, not the original's
    assert config.CourseDirectory.root == str(moved.resolve())
    assert config.CourseDirectory.db_url == "sqlite:///" + str(moved.resolve() / "gradebook.db")
    assert config.CourseDirectory.course_id == "windowmem"


def test_export_holds_the_hand_grade_and_blanks_nothing_into_zero(term, source):
    auto = sum(graded_points(source).values())
    manual = manual_cells(source)
    ana, ben = term["exported"]["ana"], term["exported"]["ben"]
    assert (ana["status"], float(ana["total"])) == ("final", auto + 3)
    assert float(ana[term["cell"]]) == 3 and float(ana["max_score"]) == auto + sum(manual.values())
    # ben handed in the release untouched: an unanswered written cell is nbgrader's 0, a final 0
    assert (ben["status"], float(ben["total"])) == ("final", 0.0)
    assert term["steps"]["export"].returncode == 0


def test_feedback_reaches_the_student_with_the_hand_grade(term):
    pages = term["pages"]
    assert [p.name for p in pages] == [f"{NOTEBOOK}.html"]
    text = visible_text(pages[0])
    assert COMMENT in text
    assert "BEGIN HIDDEN TESTS" not in text


def test_late_submission_is_regraded_and_the_hand_grade_kept(term, source):
    assert hand_grade(term["gradebook"], ASSIGNMENT, NOTEBOOK, "ana", term["cell"]) == (3, COMMENT)
    changes = term["changes"]
    assert changes["ben"]["change"] == "resubmitted"
    assert changes["ana"]["change"] == "unchanged"
    assert "ben: resubmitted" in term["steps"]["grade_late"].stdout
    assert "ana:" not in term["steps"]["grade_late"].stdout
    late = term["exported_late"]
    assert float(late["ana"]["total"]) == sum(graded_points(source).values()) + 3
    # ben's written answer is new: it waits for a grader instead of counting as 0
    assert late["ben"]["status"] == "needs_hand_grading" and late["ben"]["total"] == ""
    assert term["steps"]["export_late"].returncode == 1
