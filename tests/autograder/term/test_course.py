"""The course a class is graded in: hardened config, guarded imports."""

from __future__ import annotations

import json
from pathlib import Path

from autograder.grading import guarded_execute
from autograder.judge.support import HIDDEN_SUPPORT
from autograder.term import course
from tests.conftest import REPO_ROOT


def test_course_config_hardens_grading_over_the_repo_config():
    repo_config = course.load_repo_config(REPO_ROOT)
    config = course.nbgrader_config(
        Path("/tmp/c"), "hw", course.Settings(cell_timeout=7), repo_config
    )
    assert (
        config.CourseDirectory.root == "/tmp/c"
        and config.CourseDirectory.db_url == "sqlite:////tmp/c/gradebook.db"
    )
    assert config.OverwriteCells.add_missing_cells is True and config.IgnorePattern.enabled is True
    assert config.Execute.timeout == 7 and config.Exchange.root == "/tmp/c/exchange"
    assert guarded_execute.GuardedExecute in config.Autograde.autograde_preprocessors


def test_guarded_imports_are_the_windowmem_modules_a_notebook_imports():
    source = json.loads(
        (REPO_ROOT / "source" / "lesson03_window_buffer" / "window_buffer.ipynb").read_text()
    )
    code = "\n".join("".join(c["source"]) for c in source["cells"] if c["cell_type"] == "code")
    found = set().union(*(course.guarded_imports(block) for block in code.split("\n\n")))
    assert found and all(name.startswith("windowmem") for name in found)


def test_the_hidden_test_support_stays_in_source(tmp_path):
    """nbgrader copies an assignment's hidden_support.py into no release, so no grading
    kernel is shown it (its home files are the release's data files)."""
    assignment = "lesson02_with_and_without_memory"
    assert (REPO_ROOT / "source" / assignment / HIDDEN_SUPPORT).is_file()
    built = course.build_course(REPO_ROOT, assignment, tmp_path, course.Settings())
    assert (built.root / "source" / assignment / HIDDEN_SUPPORT).is_file()
    released = {p.name for p in (built.root / "release" / assignment).rglob("*")}
    assert HIDDEN_SUPPORT not in released and released
    assert all(p.name != HIDDEN_SUPPORT for p in built.data_files)
    assert HIDDEN_SUPPORT in built.config.CourseDirectory.ignore
