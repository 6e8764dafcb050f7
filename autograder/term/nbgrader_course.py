"""The one place that knows how to point nbgrader at a course folder.

The grading pipeline (:mod:`autograder.term.course`), the release script
(``scripts/release_assignments.py``) and the assignment tests
(``tests/nbgrader_helpers.py``) all build throwaway nbgrader courses; they share the
gradebook URL, the repository's configuration, the stderr pattern, the PATH fix nbgrader
needs and the way an assignment's notebooks and cell ids are read.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from traitlets.config import Config, PyFileConfigLoader
from traitlets.config.loader import ConfigFileNotFound

from autograder.errors import GradingSetupError
from autograder.judge.support import HIDDEN_SUPPORT

#: Removed from stderr before scoring: a test that only warns still passes (see PITFALLS.md).
WARNING_PATTERN = r"(?i)warning"
#: The course configuration file nbgrader reads from a course (and this repository's) root.
CONFIG_FILE = "nbgrader_config.py"


def db_url(path: Path) -> str:
    """SQLAlchemy URL of the SQLite gradebook at *path* (absolute paths need 4 slashes).

    >>> db_url(Path("/srv/course/gradebook.db"))
    'sqlite:////srv/course/gradebook.db'
    """
    return "sqlite:///" + str(Path(path).resolve())


def load_repo_config(repo_root: Path) -> Config:
    """The repository's ``nbgrader_config.py`` (empty if there is none)."""
    try:
        return PyFileConfigLoader(CONFIG_FILE, path=str(repo_root)).load_config()
    except ConfigFileNotFound:
        return Config()


#: nbgrader's own CourseDirectory.ignore (0.9), which a config that sets the list replaces.
NBGRADER_IGNORE = (".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback")
#: Files of source/<assignment>/ that nbgrader must never copy anywhere a student's code runs.
NEVER_COPIED = (HIDDEN_SUPPORT,)


def course_config(root: Path, repo_config: Config | None = None) -> Config:
    """*repo_config* pointed at the course folder *root*: its gradebook, its exchange, warnings ignored."""
    config = Config()
    if repo_config is not None:
        config.merge(repo_config)
    config.CourseDirectory.root = str(root)
    config.CourseDirectory.db_url = db_url(Path(root) / "gradebook.db")
    config.Exchange.root = str(Path(root) / "exchange")
    config.IgnorePattern.enabled = True
    if not config.get("IgnorePattern", {}).get("pattern"):
        config.IgnorePattern.pattern = WARNING_PATTERN
    # the hidden-test support stays in source/: never in a release, a submission's graded
    # folder, or the files a grading kernel is shown (whatever the repository's config says)
    ignore = list(config.get("CourseDirectory", {}).get("ignore", NBGRADER_IGNORE))
    config.CourseDirectory.ignore = [*ignore, *[n for n in NEVER_COPIED if n not in ignore]]
    return config


def prepare_nbgrader() -> None:
    """Make creating a gradebook quick, and keep nbgrader's own way working as a fallback.

    nbgrader runs ``alembic`` through PATH when it opens a gradebook, so the running
    interpreter's ``bin/`` (the venv) goes first on PATH; and the schema version it asks
    ``alembic heads`` for in a subprocess is read in-process instead.
    """
    import nbgrader.api

    nbgrader.api.get_alembic_version = alembic_head
    bin_dir = str(Path(sys.executable).parent)
    if os.environ.get("PATH", "").split(os.pathsep)[0] != bin_dir:
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")


@functools.cache
def alembic_head() -> str:
    """The gradebook schema version nbgrader stamps on a new gradebook, read in-process.

    nbgrader gets it by running ``alembic heads`` in a subprocess, which imports all of
    nbgrader again (3-8 s here) and needs the venv's ``bin/`` on PATH. This reads the
    ``revision`` and ``down_revision`` lines of the same migration scripts (alembic's own
    API, which imports every script, took 1.7 s of the grader's start-up); a layout it
    does not recognise falls back to that API. The tests check all three agree.
    """
    from nbgrader.dbutil import ALEMBIC_DIR

    head = head_revision(Path(ALEMBIC_DIR) / "versions")
    return head if head is not None else _alembic_api_head(ALEMBIC_DIR)


_REVISION = re.compile(r"""^revision\s*=\s*['"](\w+)['"]\s*$""", re.M)
_DOWN_REVISION = re.compile(r"""^down_revision\s*=\s*(?:None|['"](\w+)['"])\s*$""", re.M)


def head_revision(versions: Path) -> str | None:
    """The one revision no script names as its ``down_revision``; None if that is not clear-cut.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.py").write_text("revision = 'a1'\\ndown_revision = None\\n")
    >>> _ = (folder / "b.py").write_text("revision = 'b2'\\ndown_revision = 'a1'\\n")
    >>> head_revision(folder)
    'b2'
    """
    revisions, parents = set(), set()
    for script in versions.glob("*.py"):
        text = script.read_text(encoding="utf-8")
        revision, down = _REVISION.findall(text), _DOWN_REVISION.findall(text)
        if len(revision) != 1 or len(down) != 1:
            return None  # a merge (a tuple of parents) or another layout: ask alembic
        revisions.add(revision[0])
        parents.add(down[0])
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 and parents - {""} <= revisions else None


def _alembic_api_head(alembic_dir: str) -> str:
    from alembic.config import Config as AlembicConfig
    from alembic.script import ScriptDirectory

    config = AlembicConfig()
    config.set_main_option("script_location", alembic_dir)
    head = ScriptDirectory.from_config(config).get_current_head()
    if head is None:
        raise RuntimeError("nbgrader's alembic scripts name no head revision: reinstall nbgrader")
    return head


def generate_assignment(config: Config, assignment: str) -> Path:
    """Run nbgrader's ``generate_assignment`` in the course *config* points at; the release folder."""
    prepare_nbgrader()
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    api = NbGraderAPI(CourseDirectory(config=config), config=config)
    result = api.generate_assignment(assignment, force=True, create=True)
    if not result["success"]:
        raise GradingSetupError(
            f"nbgrader generate_assignment {assignment} failed:\n{result['error'] or result['log']}"
        )
    return Path(config.CourseDirectory.root) / "release" / assignment


def assignment_notebooks(repo_root: Path, assignment: str) -> list[Path]:
    """The instructor notebooks of *assignment*, or a GradingSetupError saying which exist."""
    notebooks = sorted((Path(repo_root) / "source" / assignment).glob("*.ipynb"))
    if not notebooks:
        raise GradingSetupError(
            f"no notebooks in {Path(repo_root) / 'source' / assignment}; run from the repository root "
            f"(or give --repo) and check the assignment name "
            f"(available: {', '.join(assignments(Path(repo_root) / 'source')) or 'none'})"
        )
    return notebooks


def assignments(source: Path) -> list[str]:
    """The assignments under *source*: its folders that hold at least one notebook, sorted."""
    if not source.is_dir():
        return []
    return sorted(p.name for p in source.iterdir() if p.is_dir() and any(p.glob("*.ipynb")))


def nbgrader_meta(cell: Mapping[str, Any]) -> Mapping[str, Any]:
    """A cell's nbgrader metadata ({} for an ordinary cell or a mangled one)."""
    metadata = cell.get("metadata") if isinstance(cell, Mapping) else None
    meta = metadata.get("nbgrader") if isinstance(metadata, Mapping) else None
    return meta if isinstance(meta, Mapping) else {}


def grade_ids(cells: Iterable[Mapping[str, Any]]) -> list[str]:
    """The nbgrader ``grade_id`` of every cell that has one, in order.

    >>> grade_ids([{"metadata": {"nbgrader": {"grade_id": "q1"}}}, {"metadata": {}}, "junk"])
    ['q1']
    """
    return [str(meta["grade_id"]) for meta in map(nbgrader_meta, cells) if meta.get("grade_id")]


def notebook_grade_ids(path: Path) -> frozenset[str]:
    """The nbgrader cell ids in the notebook file at *path* (empty when it cannot be read)."""
    try:
        cells = json.loads(Path(path).read_text("utf-8")).get("cells", [])
        return frozenset(grade_ids(cells if isinstance(cells, list) else []))
    except (OSError, ValueError, RecursionError, AttributeError):
        return frozenset()
