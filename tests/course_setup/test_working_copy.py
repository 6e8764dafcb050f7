"""scripts/working_copy.py: lessons copied once, a learner's work never overwritten, the clone clean."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, course_files_status

sys.path.insert(0, str(REPO_ROOT / "scripts"))

from working_copy import Changes, report, update  # noqa: E402


@pytest.fixture
def clone(tmp_path: Path) -> dict[str, Path]:
    """A small course/ and release/ with the kinds of file the real ones hold."""
    course, release = tmp_path / "course", tmp_path / "release"
    for path, text in {
        course / "00_start_here.ipynb": "start v1",
        course / "03_lesson.ipynb": "lesson v1",
        course / "03_diagram.svg": "<svg>v1</svg>",
        course / "lessons.json": "[]",
        course / "README.md": "maintainers",
        course / "checks" / "lesson03.py": "def check(): ...",
        release / "lesson03" / "window.ipynb": "assignment v1",
        release / "lesson03" / "data" / "chat.json": "{}",
    }.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return {"course": course, "release": release, "work": tmp_path / "my_course"}


def _update(clone: dict[str, Path]) -> Changes:
    return update(clone["work"], clone["course"], clone["release"])


def test_the_first_run_copies_lessons_assignments_and_their_files_but_not_the_checks(clone):
    changes = _update(clone)
    work = clone["work"]
    assert sorted(changes.copied) == [
        "00_start_here.ipynb",
        "03_diagram.svg",
        "03_lesson.ipynb",
        "assignments/lesson03/data/chat.json",
        "assignments/lesson03/window.ipynb",
    ]
    assert (work / "assignments" / "lesson03" / "window.ipynb").read_text() == "assignment v1"
    assert not (work / "checks").exists(), "the kernels import the clone's checks instead"
    assert not (work / "lessons.json").exists() and not (work / "README.md").exists()
    assert report(changes, work) == ["setup: copied 5 new files into my_course/."]


def test_a_second_run_with_nothing_new_changes_and_says_nothing(clone):
    _update(clone)
    changes = _update(clone)
    assert changes == Changes()
    assert report(changes, clone["work"]) == []


def test_a_lesson_the_learner_worked_in_is_kept_when_the_course_changes_it(clone):
    _update(clone)
    mine = clone["work"] / "03_lesson.ipynb"
    mine.write_text("lesson v1, with my answers")
    (clone["course"] / "03_lesson.ipynb").write_text("lesson v2")
    changes = _update(clone)
    assert changes.kept == ["03_lesson.ipynb"]
    assert mine.read_text() == "lesson v1, with my answers"
    (line,) = report(changes, clone["work"])
    assert "03_lesson.ipynb has a newer version" in line
    assert "rename my_course/03_lesson.ipynb and run make course again" in line
    mine.rename(mine.with_name("03_lesson.mine.ipynb"))
    assert _update(clone).copied == ["03_lesson.ipynb"], "renaming takes the new version"
    assert mine.read_text() == "lesson v2"


def test_an_untouched_lesson_and_any_other_file_follow_the_course(clone):
    _update(clone)
    (clone["work"] / "03_diagram.svg").write_text("<svg>mine</svg>")
    (clone["course"] / "03_lesson.ipynb").write_text("lesson v2")
    (clone["course"] / "03_diagram.svg").write_text("<svg>v2</svg>")
    (clone["course"] / "04_new_lesson.ipynb").write_text("lesson 4")
    changes = _update(clone)
    assert sorted(changes.updated) == ["03_diagram.svg", "03_lesson.ipynb"]
    assert changes.copied == ["04_new_lesson.ipynb"] and changes.kept == []
    assert (clone["work"] / "03_lesson.ipynb").read_text() == "lesson v2"
    assert (clone["work"] / "03_diagram.svg").read_text() == "<svg>v2</svg>"


def test_a_working_copy_of_the_real_course_leaves_the_clone_as_it_was(tmp_path):
    """Copying the real course/ and release/ writes nothing into the repository."""

    before = course_files_status()
    changes = update(tmp_path / "my_course")
    assert "00_start_here.ipynb" in changes.copied
    assert any(name.startswith("assignments/lesson03") for name in changes.copied)
    assert course_files_status() == before
    # The start page and the lessons link the glossary and reference pages beside them.
    reference = sorted((REPO_ROOT / "course" / "reference").glob("*.ipynb"))
    assert reference, "course/reference/ holds at least the glossary"
    for page in reference:
        assert f"reference/{page.name}" in changes.copied


def test_the_reference_pages_are_copied_and_follow_the_course_like_the_lessons(clone):
    """course/reference/ (the glossary, each lesson's notes) lands in the working copy's reference/."""
    notes = clone["course"] / "reference" / "03_lesson_notes.ipynb"
    notes.parent.mkdir()
    notes.write_text("notes v1")
    (clone["course"] / "reference" / "03_table.png").write_text("png")
    assert {"reference/03_lesson_notes.ipynb", "reference/03_table.png"} <= set(
        _update(clone).copied
    )
    assert (clone["work"] / "reference" / "03_lesson_notes.ipynb").read_text() == "notes v1"
    notes.write_text("notes v2")
    assert _update(clone).updated == ["reference/03_lesson_notes.ipynb"]
