"""What a re-run changed, and the snapshot it compares."""

from __future__ import annotations

import pytest

from autograder.records.changes import Change, RunSnapshot, compare, describe

# nbgrader's add_submission trips SQLAlchemy's autoflush warnings; nothing of ours
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")


def test_compare_names_every_kind_of_change():
    before = RunSnapshot(
        {
            "same": {"nb": ("3", "graded")},
            "late": {"nb": ("1", "graded")},
            "fixed": {"nb": ("1", "graded")},
            "left": {"nb": ("2", "graded")},
        },
        {"same": "a", "late": "b", "fixed": "c", "left": "d"},
    )
    after = RunSnapshot(
        {
            "same": {"nb": ("3", "graded")},
            "late": {"nb": ("3", "graded")},
            "fixed": {"nb": ("3", "graded")},
            "new": {"nb": ("", "malformed")},
        },
        {"same": "a", "late": "B", "fixed": "c"},
    )
    changes = {c.student_id: c for c in compare(before, after, {"fixed": ("essay",)})}
    assert {sid: c.change for sid, c in changes.items()} == {
        "fixed": Change.REGRADED,
        "late": Change.RESUBMITTED,
        "left": Change.GONE,
        "new": Change.NEW,
        "same": Change.UNCHANGED,
    }
    lines = describe(tuple(changes.values()))
    assert len(lines) == 4 and not any("same" in line for line in lines)
    assert any("fixed: regraded" in line and "hand scores kept on essay" in line for line in lines)


def test_snapshot_reads_automatic_scores_statuses_and_submissions(gradebook, tmp_path):
    import shutil

    from autograder.records.changes import hand_graded_cells, snapshot, submission_hash

    out = tmp_path / "out"
    (out / "course" / "submitted" / "final" / "hw").mkdir(parents=True)
    (out / "course" / "submitted" / "final" / "hw" / "nb.ipynb").write_text("{}")
    shutil.copy(tmp_path / "gradebook.db", out / "course" / "gradebook.db")
    (out / "grades.csv").write_text(
        "student_id,assignment,notebook,score,max_score,status,detail\n"
        "final,hw,nb,5,5,graded,\nwaiting,hw,nb,1,5,graded,\nunreadable,hw,nb,,5,malformed,x\n"
        "final,other,nb,1,5,graded,\n"
    )
    taken = snapshot(out, "hw")
    # automatic points only: the hand score of 3 on the essay is not part of it
    assert taken.results == {
        "final": {"nb": ("2", "graded")},
        "waiting": {"nb": ("1", "graded")},
        "unreadable": {"nb": ("", "malformed")},
    }
    assert taken.submissions == {"final": submission_hash(out / "course/submitted/final/hw")}
    assert hand_graded_cells(f"sqlite:///{out / 'course' / 'gradebook.db'}", "hw") == {
        "final": ("essay",),
        "late": ("essay",),
        "review": ("essay",),
    }
    assert snapshot(tmp_path / "nothing-here", "hw").empty
