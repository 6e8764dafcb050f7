"""A student whose every judged call starts a fork bomb still ends with a score, in time.

Each call into the student's function starts spinning processes up to the pids limit, so
each call uses its whole CPU limit. What a call starts is killed after it, and once the
judge's share of the student's time has gone (``worker.JUDGE_SHARE``), the tests left
score 0 with no call made: the row has a score and says why. Before, the worker ran
past the student's time and was killed, leaving a ``timed_out`` row with no score.
"""

from __future__ import annotations

import copy

import pandas as pd
import pytest

from tests.fixtures import judge_attacks
from tests.fixtures.grading import ASSIGNMENT, REPO_ROOT, grade, needs_sandbox, sandbox_leftovers
from tests.fixtures.make_submissions import dump
from tests.nbgrader_helpers import read_notebook

pytestmark = [pytest.mark.slow, needs_sandbox]

#: Seconds one student may take: the bomb's calls need several times more.
STUDENT_SECONDS = 100


def test_a_fork_bomb_in_every_judged_call_is_scored_within_the_students_time(tmp_path):
    (path,) = sorted((REPO_ROOT / "source" / ASSIGNMENT).glob("*.ipynb"))
    source = read_notebook(path)
    release = read_notebook(REPO_ROOT / "release" / ASSIGNMENT / path.name)
    notebooks = {
        "forks_when_judged": judge_attacks.attacked(
            release, source, "forks_when_judged", judge_attacks.FORKS_WHEN_JUDGED
        ),
        "blank": copy.deepcopy(release),
    }
    for student, nb in notebooks.items():
        folder = tmp_path / "class" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / path.name).write_text(dump(nb), encoding="utf-8")
    out = tmp_path / "out"
    run = grade(tmp_path / "class", out, "--student-timeout", str(STUDENT_SECONDS), "--no-progress")
    grades = pd.read_csv(out / "grades.csv", dtype={"student_id": str}).set_index("student_id")
    row = grades.loc["forks_when_judged"]
    assert not pd.isna(row.score), row.detail
    assert float(row.score) == float(grades.loc["blank", "score"]) == 0.0
    log = (out / "logs" / "forks_when_judged.log").read_text()
    if row.status == "timed_out":
        # The usual run: the bombed calls outlast the judge's share of the student's time.
        assert "--student-timeout" in row.detail and "not judged by then scored 0" in row.detail
        assert "left by calls killed" in log and "out of time" in log
    else:
        # A quick machine can refuse every bombed call its processes before the deadline (seen
        # once in three clean-clone CI runs, stop 47): still a score, 0, and it says why.
        assert row.status == "graded", row.detail
        assert "the kernel was refused processes past the limit" in row.detail
    assert sandbox_leftovers(run.pid) == []
