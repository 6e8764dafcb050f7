"""Grading where the cgroup v2 tier runs it: a small honest class, and the heaviest attacks beside two victims.

Run by ``in_guest.sh`` inside the cgroup v2 guest, as root and as a user with a delegated
subtree (it is no ``test_*`` file, so the host's own test run does not collect it; it
holds on any machine that can sandbox). The honest class's ``grades.csv`` is copied to
``$CGROUP2_RESULTS/<label>-honest.csv``, where the host compares it with its own cgroup
v1 grading of the same class (``tests/cgroup2/test_guest.py``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from tests.fixtures import attacks, make_submissions
from tests.fixtures.grading import ASSIGNMENT, REPO_ROOT, grade, needs_sandbox, sandbox_leftovers

pytestmark = [pytest.mark.slow, needs_sandbox]

#: A small honest class: full marks, nothing done, a harmless warning, an extra notebook.
HONEST = ("correct", "blank", "stderr_warning", "two_notebooks")
#: The attacks that lean on the cgroup: a memory bomb, and a fork bomb with lingering processes.
HEAVY = ("allocates_memory", "outlives_grading")
#: Which honest student each victim is (the same notebook, built the same way).
VICTIM_TWINS = {"victim_correct": "correct", "victim_blank": "blank"}
#: Sized for a guest about 10x slower than this machine: a cell's CPU seconds, a student's
#: seconds on the clock, the whole command's seconds. Only ceilings: an honest class that
#: grades within the usual ones grades the same within these.
GUEST_SIZED = {"timeout": 300, "wait": 3000.0}
STUDENT_TIMEOUT = ("--student-timeout", "2400")


def grade_sized(submissions: Path, out: Path):
    """``grade`` with two workers and the guest's ceilings."""
    return grade(submissions, out, "--jobs", "2", "--no-progress", *STUDENT_TIMEOUT, **GUEST_SIZED)


def read_grades(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "grades.csv", dtype={"student_id": str}).set_index("student_id")


def grade_honest_class(root: Path) -> tuple[Path, pd.DataFrame]:
    """Grade :data:`HONEST` under *root*; the reports' folder and grades."""
    submissions, out = root / "honest", root / "honest-out"
    make_submissions.make_class(submissions, ASSIGNMENT, only=HONEST)
    run = grade_sized(submissions, out)
    assert (out / "grades.csv").is_file(), run.stderr[-3000:]
    return out, read_grades(out)


@pytest.fixture(scope="module")
def honest(tmp_path_factory) -> pd.DataFrame:
    out, grades = grade_honest_class(tmp_path_factory.mktemp("honest"))
    results = os.environ.get("CGROUP2_RESULTS")
    if results:
        label = os.environ.get("TIER_LABEL", "guest")
        shutil.copyfile(out / "grades.csv", Path(results) / f"{label}-honest.csv")
        shutil.copytree(out / "logs", Path(results) / f"{label}-honest-logs", dirs_exist_ok=True)
    return grades


@pytest.fixture(scope="module")
def heavy(tmp_path_factory):
    root = tmp_path_factory.mktemp("heavy")
    submissions = root / "class"
    folders = attacks.make_attack_class(submissions, ASSIGNMENT, REPO_ROOT)
    for student in folders:
        if student not in HEAVY and student not in VICTIM_TWINS:
            shutil.rmtree(submissions / student)
    run = grade_sized(submissions, root / "out")
    return run, read_grades(root / "out"), sandbox_leftovers(run.pid)


def test_the_honest_class_is_graded(honest):
    assert sorted(set(honest.index)) == sorted(HONEST)
    assert "every autograded test passed" in honest.loc["correct", "detail"]
    assert honest.loc["blank", "score"] == 0


@pytest.mark.parametrize("student", HEAVY)
def test_each_heavy_attack_gains_nothing(heavy, student):
    _, grades, _ = heavy
    row = grades.loc[student]
    assert (row.status, float(row.score)) == attacks.EXPECTED[student], row.detail


def test_the_limits_are_reported(heavy):
    _, grades, _ = heavy
    assert "memory limit" in grades.loc["allocates_memory"].detail
    assert "refused processes past the limit" in grades.loc["outlives_grading"].detail


def test_the_victims_grade_as_in_the_honest_class(heavy, honest):
    _, grades, _ = heavy
    for victim, twin in VICTIM_TWINS.items():
        mine, clean = grades.loc[victim], honest.loc[twin]
        assert (mine.status, mine.score, mine.detail) == (clean.status, clean.score, clean.detail)


def test_nothing_outlives_the_command(heavy):
    run, _, left = heavy
    assert left == [], left
    assert sandbox_leftovers(run.pid) == []
