"""The nbgrader course the pipeline grades in: built under ``--out``, never in the repo.

``OUT/course`` holds the gradebook, a copy of the assignment's ``source/`` (so
``generate_assignment`` records its cells and hidden tests in the gradebook), and the
usual ``submitted/``, ``autograded/`` and ``feedback/`` folders, so the instructor can
open it with formgrader afterwards.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from traitlets.config import Config, PyFileConfigLoader
from traitlets.config.loader import ConfigFileNotFound

from autograder.errors import GradingSetupError

#: Packages whose monkeypatching is undone before every test cell.
GUARDED_ROOTS = ("windowmem",)
#: Removed from stderr before scoring (unless the repo's config sets a pattern): a test that only warns still passes.
WARNING_PATTERN = r"(?i)warning"


@dataclass(frozen=True)
class Settings:
    """How to grade: per-cell time limit, per-student wall clock, output cap."""

    cell_timeout: int = 30
    student_timeout: int | None = None  # None: derived from cell_timeout and notebook size
    max_output_chars: int = 20_000
    max_output_lines: int = 200

    def wall_clock(self, code_cells: int) -> float:
        """Seconds a student's worker may run before it is killed (a last resort)."""
        if self.student_timeout is not None:
            return float(self.student_timeout)
        return 60.0 + self.cell_timeout * 2 + 2.0 * code_cells


#: The settings `grade` uses when the instructor changes none (frozen, so safe to share).
DEFAULT_SETTINGS = Settings()


def db_url(path: Path) -> str:
    """SQLAlchemy URL of the SQLite gradebook at *path* (absolute paths need 4 slashes)."""
    return "sqlite:///" + str(path.resolve())


def nbgrader_config(
    root: Path, assignment: str, settings: Settings, repo_config: Config, *, guarded_imports=()
) -> Config:
    """The course's nbgrader configuration: the repo's, with grading hardened and paths under *root*."""
    from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import (
        AssignLatePenalties,
        GetGrades,
        IgnorePattern,
        LimitOutput,
        SaveAutoGrades,
    )

    from autograder.preprocessors import CapOutput, GuardedExecute, HideHiddenTests

    c = Config()
    c.merge(repo_config)
    c.CourseDirectory.root = str(root)
    c.CourseDirectory.db_url = db_url(root / "gradebook.db")
    c.CourseDirectory.assignment_id = assignment
    c.Exchange.root = str(root / "exchange")
    c.OverwriteCells.add_missing_cells = True
    c.IgnorePattern.enabled = True
    if not repo_config.get("IgnorePattern", {}).get("pattern"):
        c.IgnorePattern.pattern = WARNING_PATTERN
    c.Execute.timeout = settings.cell_timeout
    c.Execute.interrupt_on_timeout = True
    c.GuardedExecute.guarded_roots = list(GUARDED_ROOTS)
    c.GuardedExecute.guarded_imports = list(guarded_imports)
    c.LimitOutput.max_lines = settings.max_output_lines
    c.CapOutput.max_chars = settings.max_output_chars
    # nbgrader's list, with Execute hardened, outputs capped, and without a second
    # CheckCellMetadata: the sanitizing pass just checked the same metadata
    c.Autograde.autograde_preprocessors = [
        GuardedExecute,
        IgnorePattern,
        ClearMetadataPreprocessor,
        LimitOutput,
        CapOutput,
        SaveAutoGrades,
        AssignLatePenalties,
    ]
    c.GenerateFeedback.preprocessors = [GetGrades, HideHiddenTests, CSSHTMLHeaderPreprocessor]
    return c


def load_repo_config(repo_root: Path) -> Config:
    """The repository's ``nbgrader_config.py`` (empty if there is none)."""
    try:
        return PyFileConfigLoader("nbgrader_config.py", path=str(repo_root)).load_config()
    except ConfigFileNotFound:
        return Config()


@dataclass(frozen=True)
class Course:
    """The built course: where it is, what it expects, how to configure nbgrader for it."""

    root: Path
    assignment: str
    expected: dict[str, frozenset[str]]  # notebook name -> nbgrader cell ids
    code_cells: int
    config: Config

    @property
    def gradebook(self) -> Path:
        return self.root / "gradebook.db"


def alembic_head() -> str:
    """The gradebook schema version nbgrader stamps on a new gradebook, read in-process.

    nbgrader gets it by running ``alembic heads`` in a subprocess, which imports all of
    nbgrader again (3-8 s here) and needs the venv's ``bin/`` on PATH. This reads the same
    migration scripts with alembic's API (the tests check both give the same answer).
    """
    from alembic.config import Config as AlembicConfig
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    config = AlembicConfig()
    config.set_main_option("script_location", ALEMBIC_DIR)
    head = ScriptDirectory.from_config(config).get_current_head()
    if head is None:
        raise RuntimeError("nbgrader's alembic scripts name no head revision: reinstall nbgrader")
    return head


def prepare_nbgrader() -> None:
    """Make creating a gradebook quick, and keep nbgrader's own way working as a fallback."""
    import nbgrader.api

    nbgrader.api.get_alembic_version = alembic_head
    bin_dir = str(Path(sys.executable).parent)  # nbgrader's `alembic` calls go through PATH
    if os.environ.get("PATH", "").split(os.pathsep)[0] != bin_dir:
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")


def build_course(repo_root: Path, assignment: str, out: Path, settings: Settings) -> Course:
    """Copy the assignment's source into ``out/course`` and record it in the gradebook."""
    prepare_nbgrader()
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    source = repo_root / "source" / assignment
    notebooks = sorted(source.glob("*.ipynb"))
    if not notebooks:
        raise GradingSetupError(
            f"no notebooks in {source}; run from the repository root, and check the assignment name "
            f"(available: {sorted(p.name for p in (repo_root / 'source').glob('*') if p.is_dir()) or 'none'})"
        )
    root = out / "course"
    course_source = root / "source" / assignment
    if course_source.exists():
        shutil.rmtree(course_source)
    shutil.copytree(
        source, course_source, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    )

    cells = [json.loads(p.read_text("utf-8"))["cells"] for p in notebooks]
    expected = {p.stem: frozenset(_grade_ids(c)) for p, c in zip(notebooks, cells)}
    code_cells = sum(1 for nb in cells for cell in nb if cell["cell_type"] == "code")
    imports = sorted(
        {
            m
            for nb in cells
            for cell in nb
            if cell["cell_type"] == "code"
            for m in guarded_imports("".join(cell["source"]))
        }
    )

    config = nbgrader_config(
        root, assignment, settings, load_repo_config(repo_root), guarded_imports=imports
    )
    api = NbGraderAPI(CourseDirectory(config=config), config=config)
    result = api.generate_assignment(assignment, force=True, create=True)
    if not result["success"]:
        raise GradingSetupError(
            f"nbgrader generate_assignment failed for {assignment}:\n{result['error'] or result['log']}"
        )
    return Course(root, assignment, expected, code_cells, config)


def assignment_notebooks(repo_root: Path, assignment: str) -> list[Path]:
    """The instructor notebooks of *assignment*, or a GradingSetupError saying which exist."""
    notebooks = sorted((repo_root / "source" / assignment).glob("*.ipynb"))
    if not notebooks:
        available = sorted(
            p.name
            for p in (repo_root / "source").glob("*")
            if p.is_dir() and any(p.glob("*.ipynb"))
        )
        raise GradingSetupError(
            f"no notebooks in {repo_root / 'source' / assignment}; run from the repository root (or give --repo) "
            f"and check the assignment name (available: {', '.join(available) or 'none'})"
        )
    return notebooks


def guarded_imports(code: str) -> set[str]:
    """Modules of the guarded packages that *code* imports.

    >>> sorted(guarded_imports("from windowmem.policies.n8n import N8nSimpleMemory\\nimport pandas"))
    ['windowmem.policies.n8n']
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return {n for n in names if n.split(".")[0] in GUARDED_ROOTS}


def _grade_ids(cells: list[dict]) -> list[str]:
    return [
        c["metadata"]["nbgrader"]["grade_id"]
        for c in cells
        if "grade_id" in c.get("metadata", {}).get("nbgrader", {})
    ]
