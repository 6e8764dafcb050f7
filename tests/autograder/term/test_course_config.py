"""The course's own nbgrader_config.py: relative to its folder, never followed through a link."""

from __future__ import annotations

import pytest
from traitlets.config import Config

from autograder.term import course_config

# nbgrader's add_submission trips SQLAlchemy's autoflush warnings; nothing of ours
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")


def grading_config() -> Config:
    config = Config()
    config.CourseDirectory.course_id = "windowmem"
    config.CourseDirectory.root = "/elsewhere"  # never copied: the file finds its own folder
    config.IgnorePattern.pattern = "Warning"
    config.GenerateFeedback.preprocessors = ["autograder.records.hide_hidden_tests.HideHiddenTests"]
    return config


def test_course_config_is_relative_to_its_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("NBGRADER_DB_URL", raising=False)
    course_config.write_course_config(tmp_path, grading_config())
    loaded = course_config.load_course_config(tmp_path)
    assert loaded.CourseDirectory.root == str(tmp_path.resolve())
    assert loaded.CourseDirectory.db_url == f"sqlite:///{tmp_path.resolve() / 'gradebook.db'}"
    assert loaded.CourseDirectory.course_id == "windowmem"
    assert loaded.IgnorePattern.pattern == "Warning"
    assert loaded.GenerateFeedback.preprocessors == [
        "autograder.records.hide_hidden_tests.HideHiddenTests"
    ]
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


def test_a_course_graded_before_the_stages_still_opens(tmp_path):
    """A config naming autograder.preprocessors.HideHiddenTests (before the move) is brought up to date."""
    course_config.write_course_config(tmp_path, grading_config())
    target = tmp_path / course_config.CONFIG_NAME
    new = "autograder.records.hide_hidden_tests.HideHiddenTests"
    target.write_text(target.read_text().replace(new, "autograder.preprocessors.HideHiddenTests"))
    loaded = course_config.load_course_config(tmp_path)
    assert list(loaded.GenerateFeedback.preprocessors) == [new]
    assert "autograder.preprocessors" not in target.read_text()
    assert course_config.update_moved_classes(tmp_path) is False  # once is enough
