"""The course a class is graded in: hardened config, guarded imports."""

from __future__ import annotations

import json
from pathlib import Path

from autograder.grading import guarded_execute
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
