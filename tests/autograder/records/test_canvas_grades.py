"""Canvas's Gradebook CSV layout, with and without a roster."""

from __future__ import annotations

import csv

import pytest

from autograder.records.canvas_grades import write_canvas_grades
from autograder.records.final_grades import (
    final_grades,
)

# nbgrader's add_submission trips SQLAlchemy's autoflush warnings; nothing of ours
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")


def canvas_export(path, rows) -> None:
    with path.open("w", newline="", encoding="utf-8-sig") as file:  # Canvas writes a BOM
        writer = csv.writer(file)
        writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "HW (12)"])
        writer.writerow(["    Points Possible", "", "", "", "", "5"])
        writer.writerows(rows)


def test_canvas_layout_from_a_canvas_roster(gradebook, tmp_path):
    roster = tmp_path / "roster.csv"
    canvas_export(
        roster, [["Doe, Final", "7", "S7", "final", "A", ""], ["Doe, Wait", "8", "S8", "waiting", "A", "4"]]
    )  # fmt: skip
    result = write_canvas_grades(
        final_grades(gradebook, "hw"), tmp_path / "c.csv", column="HW (12)", roster=roster
    )
    with result.path.open(newline="") as file:
        rows = list(csv.reader(file))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "HW (12)"]
    assert rows[1] == ["Points Possible", "", "", "", "", "5"]
    assert rows[2:] == [["Doe, Final", "7", "S7", "final", "A", "5"], ["Doe, Wait", "8", "S8", "waiting", "A", ""]]  # fmt: skip
    assert set(result.unmatched) == {"absent", "late", "review"}


def test_canvas_roster_that_is_not_one_is_refused(gradebook, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("name,email\nAna,ana@example.org\n")
    with pytest.raises(ValueError, match="not a Canvas Gradebook export: no column 'SIS Login ID'"):
        write_canvas_grades(final_grades(gradebook, "hw"), tmp_path / "c.csv", roster=roster)


def test_canvas_without_roster_puts_the_student_id_in_sis_login_id(gradebook, tmp_path):
    result = write_canvas_grades(final_grades(gradebook, "hw"), tmp_path / "c.csv")
    with result.path.open(newline="") as file:
        rows = {r[3]: r for r in list(csv.reader(file))[2:]}
    assert rows["final"] == ["Doe, Final", "", "", "final", "", "5"]
    assert rows["absent"][-1] == ""
