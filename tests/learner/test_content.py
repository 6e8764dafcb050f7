"""windowmem.learner.content: the installed course's folders, in a clone and in a wheel's layout."""

from __future__ import annotations

import importlib

import pytest

from tests.conftest import REPO_ROOT
from windowmem.learner.content import CourseNotInstalled, course_files, course_root


def test_in_a_clone_the_course_is_course_and_its_folders_are_beside_it():
    files = course_files()
    assert course_root() == REPO_ROOT / "course" == files.lessons
    assert files.assignments == REPO_ROOT / "release"
    assert files.jupyter == REPO_ROOT / "learner_jupyter"


def test_the_lessons_checks_import_from_the_package_and_are_the_clones():
    lesson03 = importlib.import_module("windowmem_course.checks.lesson03")
    assert lesson03.__file__ == str(REPO_ROOT / "course" / "checks" / "lesson03.py")
    assert callable(lesson03.check)


def test_in_a_wheels_layout_the_folders_are_inside_the_package(tmp_path):
    for folder in ("assignments", "jupyter"):
        (tmp_path / "windowmem_course" / folder).mkdir(parents=True)
    files = course_files(tmp_path / "windowmem_course")
    assert files.assignments == tmp_path / "windowmem_course" / "assignments"
    assert files.jupyter == tmp_path / "windowmem_course" / "jupyter"


def test_a_course_without_its_assignments_says_to_reinstall(tmp_path):
    (tmp_path / "windowmem_course").mkdir()
    with pytest.raises(CourseNotInstalled, match="no assignments/ .* no ../release/ .* reinstall"):
        course_files(tmp_path / "windowmem_course")


def test_without_the_course_package_it_says_what_to_install(monkeypatch):
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    with pytest.raises(CourseNotInstalled, match=r"pip install 'windowmem\[course\]'"):
        course_root()
