"""The autograder run again on the same output, on an LMS zip, and against a student who never stops."""

from __future__ import annotations

import difflib
import zipfile

import pandas as pd
import pytest

from tests.fixtures import make_submissions
from tests.fixtures.grading import (
    ASSIGNMENT,
    NOTEBOOK,
    REPO_ROOT,
    grade,
    processes_working_in,
    sandbox_leftovers,
)
from tests.nbgrader_helpers import graded_points, read_notebook

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def points() -> dict[str, float]:
    return graded_points(read_notebook(REPO_ROOT / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"))


def feedback_pages(out) -> dict[str, bytes]:
    return {
        str(page.relative_to(out)): page.read_bytes()
        for page in sorted((out / "course" / "feedback").rglob("*.html"))
    }


def test_second_run_gives_the_same_grades_and_feedback_pages(tmp_path):
    submissions = tmp_path / "class"
    make_submissions.make_class(
        submissions,
        ASSIGNMENT,
        only=("correct", "monkeypatch", "not_json", "wrong_name", "tests_deleted"),
    )
    out = tmp_path / "out"
    first = grade(submissions, out, "--no-progress")
    grades_first = (out / "grades.csv").read_text()
    pages_first = feedback_pages(out)
    second = grade(submissions, out, "--no-progress")
    assert (first.returncode, second.returncode) == (1, 1), second.stderr[-2000:]
    grades_second = (out / "grades.csv").read_text()
    changed = "\n".join(
        difflib.unified_diff(
            grades_first.splitlines(), grades_second.splitlines(), "first", "second", lineterm=""
        )
    )
    assert grades_second == grades_first, changed
    # a deleted test is put back under the same id: its page is the same bytes too
    assert "tests_deleted" in " ".join(pages_first)
    assert feedback_pages(out) == pages_first


def test_lms_zip_download(tmp_path, points):
    make_submissions.make_class(tmp_path / "class", ASSIGNMENT, only=("correct", "empty_file"))
    archive = tmp_path / "download.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in (tmp_path / "class").rglob("*.ipynb"):
            zipped.write(path, f"class-download/{path.relative_to(tmp_path / 'class')}")
    out = tmp_path / "out"
    run = grade(archive, out, "--no-progress", "--no-sandbox")
    grades = pd.read_csv(out / "grades.csv").set_index("student_id")
    assert run.returncode == 1
    assert grades["detail"].str.contains("WITHOUT the sandbox").all(), "every row says so"
    assert (grades.loc["correct", "status"], grades.loc["correct", "score"]) == (
        "graded",
        sum(points.values()),
    )
    assert grades.loc["empty_file", "status"] == "malformed"


def test_wall_clock_kills_worker_and_kernel(tmp_path):
    submissions = tmp_path / "class"
    make_submissions.make_class(submissions, ASSIGNMENT, only=("loop_ignores_interrupt",))
    out = tmp_path / "out"
    # the cell limit is far away: only the per-student wall clock can stop this student
    run = grade(submissions, out, "--student-timeout", "20", "--no-progress", timeout=600)
    result = pd.read_csv(out / "grades.csv").iloc[0]
    assert result.status == "timed_out" and pd.isna(result.score)
    assert "20 s limit" in result.detail
    assert processes_working_in(out) == [], "the student's kernel outlived the run"
    assert sandbox_leftovers(run.pid) == [], "the student's sandbox outlived the run"
