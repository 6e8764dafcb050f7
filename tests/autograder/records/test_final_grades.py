"""Final grades from the gradebook: a status for every student, a total only when final."""

from __future__ import annotations

import csv

import pytest

from autograder.records.final_grades import (
    AutograderRow,
    FinalStatus,
    final_grades,
    write_final_grades,
)

# nbgrader's add_submission trips SQLAlchemy's autoflush warnings; nothing of ours
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")


AUTOGRADER_ROWS = {
    "unreadable": [AutograderRow("nb", "malformed", False, "not valid JSON")],
    "cheat": [AutograderRow("nb", "flagged", False, "changed how the grader's cells run")],
    "nothing": [AutograderRow("nb", "missing", False, "no nb.ipynb")],
}


def test_every_student_gets_a_status_and_only_final_ones_a_total(gradebook):
    grades = final_grades(gradebook, "hw", AUTOGRADER_ROWS)
    by_id = {s.student_id: s for s in grades.students}
    assert [q.grade_id for q in grades.questions] == ["essay", "q1"]  # no source: by name
    assert grades.max_score == 5
    expected = {
        "final": (FinalStatus.FINAL, 5.0),
        "waiting": (FinalStatus.NEEDS_HAND_GRADING, None),
        "review": (FinalStatus.FINAL, 3.5),
        "late": (FinalStatus.FINAL, 4.0),
        "absent": (FinalStatus.MISSING, None),
        "unreadable": (FinalStatus.NOT_SCORED, None),
        "cheat": (FinalStatus.FLAGGED, None),
        "nothing": (FinalStatus.MISSING, None),
    }
    assert {sid: (s.status, s.total) for sid, s in by_id.items()} == expected
    assert by_id["waiting"].scores == (None, 1.0) and "essay" in by_id["waiting"].detail
    assert "flagged for review: essay" in by_id["review"].detail
    assert by_id["late"].late_penalty == 1 and "late penalty 1" in by_id["late"].detail
    assert by_id["unreadable"].scores == (None, None)
    assert (by_id["final"].first_name, by_id["final"].last_name) == ("Final", "Doe")


def test_a_flagged_notebook_counts_once_every_cell_is_graded_by_hand(gradebook):
    held = {"final": [AutograderRow("nb", "flagged", False, "held for the instructor")]}
    for cell in ("q1", "essay"):  # what the merge leaves for a held notebook
        grade = gradebook.find_grade(cell, "nb", "hw", "final")
        grade.auto_score, grade.manual_score, grade.needs_manual_grade = None, None, True
    gradebook.db.commit()
    by_id = {s.student_id: s for s in final_grades(gradebook, "hw", held).students}
    assert (by_id["final"].status, by_id["final"].total) == (FinalStatus.FLAGGED, None)
    for cell, score in (("q1", 1.0), ("essay", 2.0)):  # the instructor grades both by hand
        grade = gradebook.find_grade(cell, "nb", "hw", "final")
        grade.auto_score, grade.manual_score, grade.needs_manual_grade = None, score, False
    gradebook.db.commit()
    by_id = {s.student_id: s for s in final_grades(gradebook, "hw", held).students}
    assert (by_id["final"].status, by_id["final"].total) == (FinalStatus.FINAL, 3.0)


def test_stale_scores_of_a_notebook_not_graded_this_time_are_blank(gradebook):
    rows = {"final": [AutograderRow("nb", "error", False, "the kernel died")]}
    graded = {s.student_id: s for s in final_grades(gradebook, "hw", rows).students}
    assert (graded["final"].status, graded["final"].total) == (FinalStatus.NOT_SCORED, None)
    assert graded["final"].scores == (None, None)


def test_final_grades_csv_is_one_row_per_student(gradebook, tmp_path):
    path = write_final_grades(final_grades(gradebook, "hw", AUTOGRADER_ROWS), tmp_path / "f.csv")
    with path.open(newline="") as file:
        rows = list(csv.DictReader(file))
    assert [r["student_id"] for r in rows] == sorted(r["student_id"] for r in rows)
    assert len(rows) == len({r["student_id"] for r in rows}) == 8
    assert list(rows[0])[:8] == [
        "student_id",
        "last_name",
        "first_name",
        "email",
        "status",
        "total",
        "max_score",
        "late_penalty",
    ]
    assert list(rows[0])[8:] == ["essay", "q1", "detail"]
    unreadable = next(r for r in rows if r["student_id"] == "unreadable")
    assert (unreadable["total"], unreadable["q1"], unreadable["essay"]) == ("", "", "")
