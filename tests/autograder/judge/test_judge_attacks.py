"""A class that goes after the hidden tests (tests/fixtures/judge_attacks.py), graded for real.

Asserted, on lessons 1, 3 and 6: no attack scores more than the blank notebook it started
from; the honest notebook whose helpers carry every name the hidden tests define scores
full marks; no line of a hidden test, and no hidden input, reaches a feedback page, a
verdict or ``grades.csv``; and a student who records their function's inputs sees only
the visible checks' calls.
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from nbclient import NotebookClient

from tests.fixtures import judge_attacks
from tests.fixtures.grading import REPO_ROOT, grade, needs_sandbox
from tests.nbgrader_helpers import graded_points, read_notebook

pytestmark = [pytest.mark.slow, needs_sandbox]

ASSIGNMENTS = ("lesson01_scope_and_storage", "lesson03_window_buffer", "lesson06_token_budget")


def notebook_name(assignment: str) -> str:
    (path,) = sorted((REPO_ROOT / "source" / assignment).glob("*.ipynb"))
    return path.stem


@pytest.fixture(scope="module", params=ASSIGNMENTS)
def graded(request, tmp_path_factory):
    assignment = request.param
    root = tmp_path_factory.mktemp(assignment)
    judge_attacks.make_judge_class(root / "class", assignment, REPO_ROOT)
    out = root / "out"
    run = grade(root / "class", out, "--jobs", "2", "--no-progress", assignment=assignment)
    grades = pd.read_csv(out / "grades.csv", dtype={"student_id": str}).set_index("student_id")
    return {"assignment": assignment, "root": root, "out": out, "run": run, "grades": grades}


def page_text(out: Path, student: str, assignment: str) -> str:
    """The student's feedback page as a reader sees it: entities decoded, zero-width spaces gone."""
    page = out / "course" / "feedback" / student / assignment / f"{notebook_name(assignment)}.html"
    return html.unescape(page.read_text(encoding="utf-8")).replace("\u200b", "")


def autograded_points(assignment: str) -> float:
    source = read_notebook(REPO_ROOT / "source" / assignment / f"{notebook_name(assignment)}.ipynb")
    return sum(graded_points(source).values())


def test_the_run_grades_everyone(graded):
    assert graded["run"].returncode in (0, 1), graded["run"].stderr[-3000:]
    honest = {"honest_with_their_names"}
    if graded["assignment"] == "lesson03_window_buffer":
        honest.add("honest_with_a_rebound_helper")
    assert set(graded["grades"].index) == {*judge_attacks.FUNCTION_ATTACKS, "blank", *honest}


@pytest.mark.parametrize("attack", sorted(judge_attacks.FUNCTION_ATTACKS))
def test_no_attack_scores_more_than_the_blank_notebook(graded, attack):
    grades = graded["grades"]
    row, blank = grades.loc[attack], grades.loc["blank"]
    assert row.status in ("graded", "flagged", "timed_out"), row.detail
    if row.status == "graded":
        assert float(row.score) <= float(blank.score), row.detail


@pytest.mark.parametrize("student", ["honest_with_their_names", "honest_with_a_rebound_helper"])
def test_an_honest_student_scores_full_marks_whatever_their_helpers_are_called(graded, student):
    if student not in graded["grades"].index:
        pytest.skip(f"{graded['assignment']} has no such student")
    row = graded["grades"].loc[student]
    manual = sum(
        points
        for points in graded_points(
            read_notebook(
                REPO_ROOT
                / "source"
                / graded["assignment"]
                / f"{notebook_name(graded['assignment'])}.ipynb"
            ),
            autograded_only=False,
        ).values()
    ) - autograded_points(graded["assignment"])
    assert row.status == "graded", row.detail
    assert float(row.score) == float(row.max_score) - manual, row.detail


def test_nothing_of_a_hidden_test_reaches_a_page_or_the_grades(graded):
    assignment = graded["assignment"]
    name = notebook_name(assignment)
    source = read_notebook(REPO_ROOT / "source" / assignment / f"{name}.ipynb")
    release = read_notebook(REPO_ROOT / "release" / assignment / f"{name}.ipynb")
    hidden = judge_attacks.hidden_lines(source, release)
    assert len(hidden) > 50  # the check has something to look for
    shown = {"grades.csv": (graded["out"] / "grades.csv").read_text()}
    for summary in (graded["out"] / "summary").glob("*.csv"):
        shown[summary.name] = summary.read_text()
    for student in graded["grades"].index:
        shown[student] = page_text(graded["out"], student, assignment)
    leaks = [(where, line) for where, text in shown.items() for line in hidden if line in text]
    assert leaks == []


def plain_run(graded, tmp_path, student: str) -> str:
    """What *student*'s notebook prints run plainly beside the release: the visible checks only."""
    assignment = graded["assignment"]
    name = notebook_name(assignment)
    submitted = graded["root"] / "class" / student / assignment / f"{name}.ipynb"
    nb = nbformat.read(submitted, as_version=4)
    folder = tmp_path / assignment
    shutil.copytree(REPO_ROOT / "release" / assignment, folder)
    client = NotebookClient(
        nb, timeout=120, allow_errors=True, resources={"metadata": {"path": str(folder)}}
    )
    client.execute()
    texts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            texts.append(
                output.get("text", "") + output.get("ename", "") + output.get("evalue", "")
            )
    return "".join(texts)


def test_a_recording_student_sees_only_the_visible_checks_calls(graded, tmp_path):
    """The count of calls the last cell prints is the count a plain run of the release makes."""
    pattern = re.escape(judge_attacks.CAUGHT) + r" (\d+) "
    plain = plain_run(graded, tmp_path, "records_inputs")
    page = page_text(graded["out"], "records_inputs", graded["assignment"])
    assert int(re.search(pattern, page).group(1)) == int(re.search(pattern, plain).group(1))


def test_an_exception_class_named_for_its_inputs_shows_only_visible_ones(graded, tmp_path):
    tags = re.compile(r"Leak_[A-Z2-7]{4,}")
    plain = set(tags.findall(plain_run(graded, tmp_path, "names_its_exception")))
    page = set(tags.findall(page_text(graded["out"], "names_its_exception", graded["assignment"])))
    # a page may cut a long name where it colours a traceback: each is the start of a plain one
    assert plain and all(any(whole.startswith(tag) for whole in plain) for tag in page)


#: What a grading kernel may import of the library's answer-computing modules: what the
#: assignment's setup cells load (lesson 3's: the types, the tokenizer, every policy; lesson
#: 6's: nothing, its reference table is a data file), never more.
REACHABLE = {
    "lesson01_scope_and_storage": [],
    "lesson03_window_buffer": [],  # Part C no longer hands out N8nSimpleMemory
    "lesson06_token_budget": [],
}


def test_the_grading_kernel_imports_only_what_the_setup_loads(graded):
    page = page_text(graded["out"], "records_inputs", graded["assignment"])
    said = re.search(re.escape(judge_attacks.CAUGHT) + r" library: (\[.*?\])", page).group(1)
    assert said == repr(REACHABLE[graded["assignment"]])


def test_the_grading_kernel_cannot_reach_the_hidden_test_support(graded):
    """No grading kernel imports the judge's support, nor finds a hidden_support.py to read."""
    page = page_text(graded["out"], "records_inputs", graded["assignment"])
    said = re.search(re.escape(judge_attacks.CAUGHT) + r" support: (\[.*?\])", page).group(1)
    assert said == "[]"
