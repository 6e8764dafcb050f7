"""The ``nbgrader_config.py`` written into ``OUT/course``, so nbgrader's own tools open it.

Formgrader, ``nbgrader export`` and ``nbgrader generate_feedback`` read the
configuration of the folder they start in. The file written here makes ``OUT/course``
a course of its own: its root and its SQLite gradebook are found relative to the file,
so the folder still opens after it is moved or copied to another machine, and
``NBGRADER_DB_URL`` points it at a server gradebook (PostgreSQL) instead. The settings
that decide scores and what feedback shows are copied from the configuration the
autograder graded with, so a grader who regenerates feedback from formgrader never
shows a hidden test.

The parent process writes it afresh on every run (never through a link), since nbgrader
executes this file whenever it opens the course.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from traitlets.config import Config

CONFIG_NAME = "nbgrader_config.py"

#: Plain settings copied from the grading configuration: (section, trait).
COPIED_VALUES = (
    ("CourseDirectory", "course_id"),
    ("IgnorePattern", "pattern"),
    ("IgnorePattern", "enabled"),
    ("OverwriteCells", "add_missing_cells"),
    ("Execute", "timeout"),
    ("Execute", "interrupt_on_timeout"),
    ("LimitOutput", "max_lines"),
    ("GenerateFeedback", "exporter_class"),
    ("Exporter", "optimistic_validation"),
    ("ClearSolutions", "code_stub"),
    ("ClearSolutions", "text_stub"),
    ("ClearSolutions", "begin_solution_delimeter"),  # nbgrader's spelling
    ("ClearSolutions", "end_solution_delimeter"),
    ("ClearHiddenTests", "begin_test_delimeter"),
    ("ClearHiddenTests", "end_test_delimeter"),
    ("ClearHiddenTests", "enforce_metadata"),
)
#: Lists of preprocessor classes copied by import path.
COPIED_CLASS_LISTS = (("GenerateFeedback", "preprocessors"),)

#: Import paths an earlier autograder wrote into a course's config, and where the class is now
#: (autograder/ was laid out in stages): a term's graded folder keeps opening after an upgrade.
MOVED_CLASSES = {
    "autograder.preprocessors.HideHiddenTests": "autograder.records.hide_hidden_tests.HideHiddenTests",
}

HEADER = '''"""nbgrader configuration of this graded course (written by `python -m autograder grade`).

Rewritten on every run of the autograder: edits here are overwritten. The course root
is this folder and the gradebook is gradebook.db beside this file, wherever the folder
is; set NBGRADER_DB_URL (an SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db) to
use a server gradebook, and NBGRADER_EXCHANGE_ROOT for nbgrader's exchange.
"""

import os
from pathlib import Path

c = get_config()  # noqa: F821 - traitlets provides get_config to config files

HERE = Path(__file__).resolve().parent
c.CourseDirectory.root = str(HERE)
c.CourseDirectory.db_url = os.environ.get("NBGRADER_DB_URL") or "sqlite:///" + str(HERE / "gradebook.db")
if os.environ.get("NBGRADER_EXCHANGE_ROOT"):
    c.Exchange.root = os.environ["NBGRADER_EXCHANGE_ROOT"]

# Formgrader and feedback pages show what students' code printed: never run its scripts
# (in formgrader they would act with the instructor's Jupyter session)
c.HTMLExporter.sanitize_html = True

# Copied from the configuration the autograder graded with:
'''


def class_path(value: object) -> str:
    """The import path nbgrader needs to find a preprocessor class (or a path already given).

    >>> from autograder.records.hide_hidden_tests import HideHiddenTests
    >>> class_path(HideHiddenTests)
    'autograder.records.hide_hidden_tests.HideHiddenTests'
    """
    if isinstance(value, str):
        return value
    return f"{value.__module__}.{value.__qualname__}"  # type: ignore[attr-defined]


def config_text(config: Config) -> str:
    """The text of the course's config file: fixed paths, then the copied settings."""
    lines = [HEADER]
    for section, trait in COPIED_VALUES:
        if section in config and trait in config[section]:
            lines.append(f"c.{section}.{trait} = {config[section][trait]!r}")
    for section, trait in COPIED_CLASS_LISTS:
        if section in config and trait in config[section]:
            paths = [class_path(v) for v in config[section][trait]]
            lines.append(f"c.{section}.{trait} = {paths!r}")
    return "\n".join(lines) + "\n"


def write_course_config(root: Path, config: Config) -> Path:
    """Write ``root/nbgrader_config.py`` atomically, replacing whatever was there (a link too)."""
    target = root / CONFIG_NAME
    _replace_file(target, config_text(config))
    return target


def _replace_file(target: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=".nbgrader_config.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)  # replaces a symlink itself, never its target
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def update_moved_classes(root: Path) -> bool:
    """Point ``root/nbgrader_config.py`` at the classes' current import paths; True if it changed.

    nbgrader imports the classes the file names whenever it opens the course (formgrader,
    feedback), so a course graded before a class moved would stop opening; its grades and
    hand scores are in the gradebook beside the file and stay as they are.
    """
    target = root / CONFIG_NAME
    if not target.is_file():
        return False
    text = target.read_text(encoding="utf-8")
    updated = text
    for old, new in MOVED_CLASSES.items():
        updated = updated.replace(repr(old), repr(new))
    if updated == text:
        return False
    _replace_file(target, updated)
    return True


def load_course_config(root: Path) -> Config:
    """The configuration nbgrader reads in the course at *root* (its ``nbgrader_config.py``)."""
    from traitlets.config import PyFileConfigLoader

    if not (root / CONFIG_NAME).is_file():
        raise FileNotFoundError(
            f"{root} has no {CONFIG_NAME}: it is not a course the autograder wrote; "
            "give the --out folder of `python -m autograder grade` (it holds course/)"
        )
    update_moved_classes(root)
    return PyFileConfigLoader(CONFIG_NAME, path=str(root)).load_config()
