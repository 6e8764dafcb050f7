"""The whole grading pipeline on the fixture class: every student's score, status and detail.

The class is built from release/ and source/ by tests/fixtures/make_submissions.py, and
graded once per session with the real command (``python -m autograder grade ...``).
Expected scores come from the source notebook's points, not from a previous run.
Re-runs, zip input and the wall clock are in test_autograder_runs.py (so pytest-xdist's
``--dist loadscope`` runs them beside this module).
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from tests.fixtures import make_submissions
from tests.fixtures.grading import ASSIGNMENT, CELL_TIMEOUT, NOTEBOOK, REPO_ROOT, grade, tree_hashes
from tests.nbgrader_helpers import cell_text, graded_points, read_notebook

pytestmark = pytest.mark.slow


def visible_text(path: Path) -> str:
    """What a student reads in a feedback page: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")))


@pytest.fixture(scope="session")
def source_notebook() -> dict:
    return read_notebook(REPO_ROOT / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")


@pytest.fixture(scope="session")
def points(source_notebook) -> dict[str, float]:
    """Autograded points per test cell, from the instructor's notebook."""
    return graded_points(source_notebook)


@pytest.fixture(scope="session")
def graded_class(tmp_path_factory):
    """The fixture class, its hashes before grading, the command's output, and the reports."""
    root = tmp_path_factory.mktemp("autograder")
    submissions = root / "submissions"
    make_submissions.make_class(submissions, ASSIGNMENT)
    before = tree_hashes(submissions)
    out = root / "out"
    run = grade(submissions, out, "--jobs", "2")
    grades = pd.read_csv(out / "grades.csv", dtype={"student_id": str})
    return {
        "submissions": submissions,
        "before": before,
        "run": run,
        "out": out,
        "grades": grades.set_index("student_id"),
    }


def row(graded_class, student: str) -> pd.Series:
    return graded_class["grades"].loc[student]


def test_command_reports_problems_and_exits_1(graded_class):
    run = graded_class["run"]
    assert run.returncode == 1, run.stderr[-3000:]  # some notebooks were not graded: say so
    assert "grading lesson03_window_buffer" in run.stderr and "100%" in run.stderr, (
        "no progress bar"
    )
    assert "not_json/window_buffer: malformed" in run.stdout


def test_one_row_per_student_and_notebook(graded_class):
    grades = graded_class["grades"].reset_index()
    assert list(grades.columns) == [
        "student_id",
        "assignment",
        "notebook",
        "score",
        "max_score",
        "status",
        "detail",
    ]
    assert sorted(grades["student_id"]) == sorted(make_submissions.STUDENTS)
    assert set(grades["notebook"]) == {NOTEBOOK} and set(grades["assignment"]) == {ASSIGNMENT}
    assert grades["detail"].notna().all(), "every row says what happened"


@pytest.mark.parametrize(
    "student",
    [
        "correct",
        "tests_deleted",
        "tests_unmarked",
        "stderr_warning",
        "two_notebooks",
        "wrong_name",
        "flood",
    ],
)
def test_full_marks(graded_class, points, source_notebook, student):
    result = row(graded_class, student)
    assert (result.status, result.score) == ("graded", sum(points.values())), result.detail
    assert result.max_score == sum(graded_points(source_notebook, autograded_only=False).values())
    assert "every autograded test passed" in result.detail


@pytest.mark.parametrize(
    "student", ["blank", "tests_edited", "tests_emptied", "always_equal", "monkeypatch"]
)
def test_no_points(graded_class, student):
    result = row(graded_class, student)
    assert (result.status, result.score) == ("graded", 0.0), result.detail


def test_misnamed_and_extra_notebooks_are_explained(graded_class):
    assert "submitted as 'window_buffer (1).ipynb'" in row(graded_class, "wrong_name").detail
    assert "ignored other notebook(s): scratch.ipynb" in row(graded_class, "two_notebooks").detail


def test_monkeypatching_is_undone_and_reported(graded_class):
    detail = row(graded_class, "monkeypatch").detail
    for patched in (
        "builtins.sum",
        "windowmem.tokens.count_text",
        "windowmem.messages.Message.__eq__",
    ):
        assert patched in detail


def test_interruptible_loop_times_out_and_the_rest_is_graded(graded_class, points):
    result = row(graded_class, "loop")
    assert (result.status, result.score) == ("timed_out", sum(points.values()))
    assert f"ran past {CELL_TIMEOUT} s and was interrupted" in result.detail


def test_loop_ignoring_interrupts_kills_the_kernel_and_keeps_earlier_points(
    graded_class, source_notebook
):
    first_test = next(c for c in source_notebook["cells"] if make_submissions.is_test_cell(c))
    result = row(graded_class, "loop_ignores_interrupt")
    assert (result.status, result.score) == (
        "timed_out",
        float(first_test["metadata"]["nbgrader"]["points"]),
    )
    assert "ignored the interrupt: kernel killed" in result.detail


@pytest.mark.parametrize(
    ("student", "says"), [("not_json", "not valid JSON"), ("empty_file", "the file is empty")]
)
def test_unreadable_notebooks_are_malformed_not_zero(graded_class, student, says):
    result = row(graded_class, student)
    assert result.status == "malformed" and pd.isna(result.score)
    assert says in result.detail


def test_a_notebook_nbgrader_refuses_is_an_error_with_its_reason(graded_class):
    result = row(graded_class, "future_metadata")
    assert result.status == "error" and pd.isna(result.score)
    assert "newer version of the nbgrader metadata format" in result.detail


def test_nothing_handed_in_is_missing(graded_class):
    result = row(graded_class, "nothing_handed_in")
    assert (
        result.status == "missing"
        and pd.isna(result.score)
        and "no window_buffer.ipynb" in result.detail
    )


def test_submissions_are_untouched(graded_class):
    assert tree_hashes(graded_class["submissions"]) == graded_class["before"]


def test_gradebook_holds_the_csv_scores(graded_class):
    from nbgrader.api import Gradebook

    grades = graded_class["grades"]
    with Gradebook(
        "sqlite:///" + str(graded_class["out"] / "course" / "gradebook.db")
    ) as gradebook:
        for student in grades.index[grades["status"].isin(["graded", "timed_out"])]:
            submitted = gradebook.find_submission_notebook(NOTEBOOK, ASSIGNMENT, student)
            assert submitted.score == grades.loc[student, "score"], student
        with pytest.raises(
            Exception
        ):  # no silent zeros: unreadable notebooks never reach the gradebook
            gradebook.find_submission(ASSIGNMENT, "not_json")


def test_feedback_hides_hidden_tests(graded_class, source_notebook):
    hidden = []
    for cell in source_notebook["cells"]:
        text = cell_text(cell)
        if "BEGIN HIDDEN TESTS" in text:
            region = text.split("### BEGIN HIDDEN TESTS", 1)[1].split("### END HIDDEN TESTS", 1)[0]
            hidden += [line.strip() for line in region.splitlines() if len(line.strip()) > 25]
    visible = [
        line.strip()
        for c in source_notebook["cells"]
        if make_submissions.is_test_cell(c)
        for line in cell_text(c).split("### BEGIN HIDDEN TESTS")[0].splitlines()
        if len(line.strip()) > 25
    ]
    released = "\n".join(
        cell_text(c)
        for c in read_notebook(REPO_ROOT / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")["cells"]
    )
    hidden = [
        line for line in hidden if line not in released
    ]  # some lines are also in the visible tests
    assert hidden
    pages = sorted((graded_class["out"] / "course" / "feedback").rglob("*.html"))
    assert len(pages) == 14  # every student with a readable notebook
    for page in pages:
        text = visible_text(page)
        assert visible[0] in text, f"{page}: the visible tests should be shown"
        leaked = [line for line in hidden if line in text]
        assert not leaked, f"{page} shows hidden tests: {leaked[:3]}"


def test_feedback_regenerated_from_the_course_is_the_page_grade_wrote(graded_class, tmp_path):
    """The course's config names grading's exporter, so formgrader's pages match grade's."""
    from autograder.records.feedback import regenerate
    from autograder.records.feedback_page import FeedbackExporter
    from autograder.term.course_config import load_course_config

    course = graded_class["out"] / "course"
    config = load_course_config(course)
    assert config.GenerateFeedback.exporter_class.endswith(FeedbackExporter.__qualname__)
    assert config.Exporter.optimistic_validation is True  # checked once, after the last step
    page = course / "feedback" / "correct" / ASSIGNMENT / f"{NOTEBOOK}.html"
    written = page.read_text()
    copy = tmp_path / "course"
    shutil.copytree(course, copy, symlinks=True)
    result = regenerate(copy, ASSIGNMENT)
    assert "correct" in result.written and not result.failed
    again = (copy / "feedback" / "correct" / ASSIGNMENT / f"{NOTEBOOK}.html").read_text()
    assert again == written


def test_flooded_output_is_truncated_in_feedback(graded_class):
    page = graded_class["out"] / "course" / "feedback" / "flood" / ASSIGNMENT / f"{NOTEBOOK}.html"
    assert page.stat().st_size < 1_000_000
    assert "Output truncated" in visible_text(page) or "output truncated" in visible_text(page)


def test_summary_per_question_and_histogram(graded_class, points):
    out, grades = graded_class["out"], graded_class["grades"]
    questions = pd.read_csv(out / "summary" / "questions.csv").set_index("question")
    assert set(points) <= set(questions.index)
    scored = grades[grades["status"].isin(["graded", "timed_out"])]
    assert (questions.loc[list(points), "students"] == len(scored)).all()
    # test_buffer_turns_seed is failed exactly by the students who scored 0 or were stopped before it
    failing = sum(s == 0 for s in scored["score"])
    assert questions.loc["test_buffer_turns_seed", "failure_rate"] == round(
        failing / len(scored), 3
    )
    assert (out / "summary" / "histogram.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    statuses = pd.read_csv(out / "summary" / "statuses.csv").set_index("status")["notebooks"]
    assert (
        statuses.to_dict()
        == grades["status"].value_counts().reindex(statuses.index, fill_value=0).to_dict()
    )


def test_nothing_is_written_into_the_repository(graded_class):
    for leftover in ("gradebook.db", "autograded", "feedback", "submitted"):
        assert not (REPO_ROOT / leftover).exists(), leftover


def test_the_run_leaves_no_work_folder(graded_class):
    """Every student's private course and the shared render cache are gone once grading ends."""
    assert not (graded_class["out"] / "work").exists()
