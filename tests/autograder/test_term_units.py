"""The term's parts without a kernel: course config, final grades, Canvas layout, changes, CLI."""

from __future__ import annotations

import csv
import os

import pytest
from nbgrader.api import Gradebook
from traitlets.config import Config

from autograder import cli, course_config, formgrader
from autograder.changes import Change, RunSnapshot, compare, describe
from autograder.export import (
    AutograderRow,
    FinalStatus,
    final_grades,
    write_canvas_grades,
    write_final_grades,
)
from autograder.nbgrader_course import prepare_nbgrader
from autograder.server_gradebook import sqlalchemy_url

# nbgrader's add_submission trips SQLAlchemy's autoflush warnings; nothing of ours
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")

# --- the course's own config ---------------------------------------------------------------


def grading_config() -> Config:
    config = Config()
    config.CourseDirectory.course_id = "windowmem"
    config.CourseDirectory.root = "/elsewhere"  # never copied: the file finds its own folder
    config.IgnorePattern.pattern = "Warning"
    config.GenerateFeedback.preprocessors = ["autograder.preprocessors.HideHiddenTests"]
    return config


def test_course_config_is_relative_to_its_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("NBGRADER_DB_URL", raising=False)
    course_config.write_course_config(tmp_path, grading_config())
    loaded = course_config.load_course_config(tmp_path)
    assert loaded.CourseDirectory.root == str(tmp_path.resolve())
    assert loaded.CourseDirectory.db_url == f"sqlite:///{tmp_path.resolve() / 'gradebook.db'}"
    assert loaded.CourseDirectory.course_id == "windowmem"
    assert loaded.IgnorePattern.pattern == "Warning"
    assert loaded.GenerateFeedback.preprocessors == ["autograder.preprocessors.HideHiddenTests"]
    assert "Exchange" not in loaded  # a hub's own exchange setting is left alone
    assert loaded.HTMLExporter.sanitize_html is True


def test_course_config_takes_a_server_gradebook_and_exchange_from_the_environment(
    tmp_path, monkeypatch
):
    course_config.write_course_config(tmp_path, grading_config())
    monkeypatch.setenv("NBGRADER_DB_URL", "postgresql+psycopg://grader@db.example/course")
    monkeypatch.setenv("NBGRADER_EXCHANGE_ROOT", "/srv/nbgrader/exchange")
    loaded = course_config.load_course_config(tmp_path)
    assert loaded.CourseDirectory.db_url == "postgresql+psycopg://grader@db.example/course"
    assert loaded.Exchange.root == "/srv/nbgrader/exchange"


def test_a_planted_config_link_is_replaced_not_followed(tmp_path):
    outside = tmp_path / "outside.py"
    outside.write_text("print('planted')\n")
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").symlink_to(outside)
    course_config.write_course_config(course, grading_config())
    assert not (course / "nbgrader_config.py").is_symlink()
    assert outside.read_text() == "print('planted')\n"
    assert [p.name for p in course.iterdir()] == ["nbgrader_config.py"]  # no temporary left


def test_a_folder_without_config_is_refused_with_what_to_do(tmp_path):
    with pytest.raises(FileNotFoundError, match="give the --out folder"):
        course_config.load_course_config(tmp_path)


# --- final grades ---------------------------------------------------------------------------


@pytest.fixture
def gradebook(tmp_path):
    """hw/nb: q1 autograded (2 points), essay graded by hand (3 points); five students."""
    prepare_nbgrader()
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}", "windowmem") as gb:
        gb.update_or_create_assignment("hw")
        gb.update_or_create_notebook("nb", "hw")
        gb.update_or_create_grade_cell("q1", "nb", "hw", max_score=2, cell_type="code")
        gb.update_or_create_grade_cell("essay", "nb", "hw", max_score=3, cell_type="markdown")
        gb.update_or_create_solution_cell("essay", "nb", "hw")
        states = {
            # student: (q1 auto, essay manual, essay needs a grader, late penalty)
            "final": (2, 3, False, 0),
            "waiting": (1, None, True, 0),
            "review": (2, 1.5, True, 0),
            "late": (2, 3, False, 1),
        }
        for student, (auto, manual, needs, penalty) in states.items():
            gb.update_or_create_student(student, first_name=student.title(), last_name="Doe")
            gb.add_submission("hw", student)
            q1 = gb.find_grade("q1", "nb", "hw", student)
            q1.auto_score, q1.needs_manual_grade = auto, False
            essay = gb.find_grade("essay", "nb", "hw", student)
            essay.auto_score, essay.manual_score, essay.needs_manual_grade = None, manual, needs
            gb.find_submission_notebook("nb", "hw", student).late_submission_penalty = penalty
        gb.update_or_create_student("absent")
        gb.db.commit()
        yield gb


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


# --- what changed between runs -------------------------------------------------------------


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


# --- the command line ------------------------------------------------------------------------


def test_options_after_double_dash_are_only_for_formgrader(capsys):
    assert cli.main(["export", "hw", "--out", "x", "--", "--port=1"]) == 2
    assert "unexpected arguments after --" in capsys.readouterr().err


def test_formgrader_refuses_a_folder_the_autograder_did_not_write(tmp_path, capsys):
    assert cli.main(["formgrader", str(tmp_path), "--no-browser"]) == 2
    assert "give the --out folder of `python -m autograder grade`" in capsys.readouterr().err


def test_export_refuses_a_folder_the_autograder_did_not_write(tmp_path, capsys):
    assert cli.main(["export", "hw", "--out", str(tmp_path)]) == 2
    assert "run grade once first" in capsys.readouterr().err


def test_lab_command_serves_the_course_root(tmp_path):
    command = formgrader.lab_command(tmp_path, port=9999, open_browser=False, extra=["--x=1"])
    assert f"--ServerApp.root_dir={tmp_path}" in command and "--ServerApp.port=9999" in command
    assert "--no-browser" in command and command[-1] == "--x=1"
    assert ("--allow-root" in command) == (os.geteuid() == 0)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgresql://u:p@127.0.0.1:5432/db", "postgresql+psycopg://u:p@127.0.0.1:5432/db"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg://u@h/db"),
        ("sqlite:////tmp/g.db", "sqlite:////tmp/g.db"),
    ],
)
def test_server_urls_get_an_installed_driver(url, expected):
    pytest.importorskip("psycopg")
    assert sqlalchemy_url(url) == expected


def test_snapshot_reads_automatic_scores_statuses_and_submissions(gradebook, tmp_path):
    import shutil

    from autograder.changes import hand_graded_cells, snapshot, submission_hash

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


def test_an_unreachable_server_gradebook_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "nbgrader_config.py").write_text("c = get_config()\n")
    url = "postgresql://nobody@127.0.0.1:1/none"
    assert cli.main(["export", "hw", "--out", str(tmp_path), "--db-url", url]) == 2
    error = capsys.readouterr().err
    assert (
        error.startswith("autograder export:") and "127.0.0.1" in error and "Traceback" not in error
    )
