"""grades.csv, the per-question summary and the histogram."""

from __future__ import annotations

import pytest

from autograder.records import report
from autograder.records.gradebook import CellScore
from autograder.records.report import GradeRow


def rows() -> list[GradeRow]:
    cells = lambda a, b: (CellScore("q1", a, 2.0), CellScore("q2", b, 1.0))  # noqa: E731
    return [
        GradeRow("bo", "hw", "nb", 3.0, 3.0, "graded", "", cells(2.0, 1.0)),
        GradeRow("al", "hw", "nb", 1.0, 3.0, "timed_out", "", cells(0.0, 1.0)),
        GradeRow("cy", "hw", "nb", None, 3.0, "malformed", "not JSON"),
    ]


def test_question_summary_means_and_failure_rates():
    summary = report.question_summary(rows()).set_index("question")
    assert summary.loc["q1", ["max_score", "students", "mean_score", "failure_rate"]].tolist() == [
        2.0,
        2,
        1.0,
        0.5,
    ]
    assert summary.loc["q2", ["mean_score", "failure_rate"]].tolist() == [1.0, 0.0]


def test_reports_are_written(tmp_path):
    paths = report.write_reports(rows(), tmp_path)
    lines = paths["grades"].read_text().splitlines()
    assert lines[0] == "student_id,assignment,notebook,score,max_score,status,detail"
    assert lines[1].startswith("al,") and lines[3] == "cy,hw,nb,,3.0,malformed,not JSON"
    assert paths["histogram"].read_bytes()[:4] == b"\x89PNG"


def test_a_row_needs_a_known_status():
    with pytest.raises(ValueError, match="status must be one of"):
        GradeRow("a", "hw", "nb", 0.0, 1.0, "zero", "")


def test_reports_replace_links_instead_of_following_them(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary").symlink_to(outside, target_is_directory=True)
    (out / "grades.csv").symlink_to(outside / "grades.csv")
    report.write_reports(rows(), out)
    assert list(outside.iterdir()) == []
    assert not (out / "summary").is_symlink() and (out / "summary" / "questions.csv").is_file()
    assert not (out / "grades.csv").is_symlink()
