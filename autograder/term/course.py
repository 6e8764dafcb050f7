"""The nbgrader course the pipeline grades in: built under ``--out``, never in the repo.

``OUT/course`` holds the gradebook, a copy of the assignment's ``source/`` (so
``generate_assignment`` records its cells and hidden tests in the gradebook), and the
usual ``submitted/``, ``autograded/`` and ``feedback/`` folders, so the instructor can
open it with formgrader afterwards.
"""

from __future__ import annotations

import ast
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from traitlets.config import Config

from autograder.judge.hidden_tests import is_setup
from autograder.sandbox.library_reach import library_files
from autograder.sandbox.limits import SandboxLimits
from autograder.term.nbgrader_course import (
    assignment_notebooks,
    course_config,
    generate_assignment,
    grade_ids,
    load_repo_config,
)

#: Packages whose monkeypatching is undone before every test cell.
GUARDED_ROOTS = ("windowmem",)
#: Largest notebook file graded, in bytes (a real one is well under 1 MB without outputs).
MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024


@dataclass(frozen=True)
class Settings:
    """How to grade: per-cell time limit, per-student wall clock, output cap, sandbox limits."""

    cell_timeout: int = 30  # seconds of the kernel's CPU time
    wall_clock_factor: float = 3.0  # a cell stops after cell_timeout x this on the clock
    student_timeout: int | None = None  # None: derived from cell_timeout and notebook size
    max_output_chars: int = 20_000
    max_output_lines: int = 200
    sandbox: SandboxLimits | None = SandboxLimits()  # None: --no-sandbox
    max_notebook_bytes: int = MAX_NOTEBOOK_BYTES

    def wall_clock(self, code_cells: int) -> float:
        """Seconds a student's worker may run before it is killed (a last resort)."""
        if self.student_timeout is not None:
            return float(self.student_timeout)
        return 60.0 + self.cell_timeout * self.wall_clock_factor * 2 + 2.0 * code_cells


#: The settings `grade` uses when the instructor changes none (frozen, so safe to share).
DEFAULT_SETTINGS = Settings()


def nbgrader_config(
    root: Path, assignment: str, settings: Settings, repo_config: Config, *, guarded_imports=()
) -> Config:
    """The course's nbgrader configuration: the repo's, with grading hardened and paths under *root*."""
    from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
    from nbgrader.converters import GenerateAssignment
    from nbgrader.preprocessors import (
        AssignLatePenalties,
        CheckCellMetadata,
        ClearOutput,
        DeduplicateIds,
        IgnorePattern,
        LimitOutput,
        OverwriteKernelspec,
        SaveCells,
    )

    from autograder.grading.cap_output import CapOutput
    from autograder.grading.guarded_execute import GuardedExecute
    from autograder.grading.notebook_rows import (
        QuickGetGrades,
        QuickOverwriteCells,
        QuickSaveAutoGrades,
        QuickSaveCells,
    )
    from autograder.records.hide_hidden_tests import HideHiddenTests

    c = course_config(root, repo_config)
    c.CourseDirectory.assignment_id = assignment
    c.OverwriteCells.add_missing_cells = True
    c.Execute.timeout = settings.cell_timeout
    # a kernel may take as long to start as a cell may run on the clock (nbclient's 60 s
    # default fails every student on a slow or busy machine)
    c.Execute.startup_timeout = max(60, round(settings.cell_timeout * settings.wall_clock_factor))
    c.Execute.interrupt_on_timeout = True
    c.GuardedExecute.wall_clock_factor = settings.wall_clock_factor
    c.GuardedExecute.guarded_roots = list(GUARDED_ROOTS)
    c.GuardedExecute.guarded_imports = list(guarded_imports)
    c.LimitOutput.max_lines = settings.max_output_lines
    c.CapOutput.max_chars = settings.max_output_chars
    # nbgrader's lists; OverwriteCells, SaveAutoGrades and GetGrades read each notebook's
    # gradebook rows once (autograder.grading.notebook_rows), the same cells restored and scored
    c.Autograde.sanitize_preprocessors = [
        ClearOutput,
        DeduplicateIds,
        OverwriteKernelspec,
        QuickOverwriteCells,
        CheckCellMetadata,
    ]
    # with Execute hardened, outputs capped, and without a second CheckCellMetadata: the
    # sanitizing pass just checked the same metadata
    c.Autograde.autograde_preprocessors = [
        GuardedExecute,
        IgnorePattern,
        ClearMetadataPreprocessor,
        LimitOutput,
        CapOutput,
        QuickSaveAutoGrades,
        AssignLatePenalties,
    ]
    c.GenerateFeedback.preprocessors = [QuickGetGrades, HideHiddenTests, CSSHTMLHeaderPreprocessor]
    # nbconvert checks the notebook against its schema after every preprocessor (about 16 a
    # student); once, after the last, is the same check of what is written, at a sixteenth
    c.Exporter.optimistic_validation = True
    # nbconvert's page without its second parse of the whole page (same tree: see the module)
    c.GenerateFeedback.exporter_class = "autograder.records.feedback_page.FeedbackExporter"
    # nbgrader's list, its SaveCells recording each notebook's cells in one transaction
    c.GenerateAssignment.preprocessors = [
        QuickSaveCells if step is SaveCells else step
        for step in GenerateAssignment.class_traits()["preprocessors"].default()
    ]
    return c


@dataclass(frozen=True)
class Course:
    """The built course: where it is, what it expects, how to configure nbgrader for it."""

    root: Path
    assignment: str
    expected: dict[str, frozenset[str]]  # notebook name -> nbgrader cell ids
    code_cells: int
    config: Config
    data_files: tuple[Path, ...] = ()  # what the release holds besides notebooks
    # windowmem's files a grading kernel is shown: what the setup cells load (library_reach)
    library_files: tuple[Path, ...] | None = None

    @property
    def gradebook(self) -> Path:
        return self.root / "gradebook.db"


def build_course(repo_root: Path, assignment: str, out: Path, settings: Settings) -> Course:
    """Copy the assignment's source into ``out/course`` and record it in the gradebook."""
    source = repo_root / "source" / assignment
    notebooks = assignment_notebooks(repo_root, assignment)
    root = out / "course"
    course_source = root / "source" / assignment
    if course_source.exists():
        shutil.rmtree(course_source)
    shutil.copytree(
        source, course_source, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    )

    cells = [json.loads(p.read_text("utf-8"))["cells"] for p in notebooks]
    expected = {p.stem: frozenset(grade_ids(c)) for p, c in zip(notebooks, cells)}
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
    release = generate_assignment(config, assignment)
    data = tuple(sorted(p for p in release.iterdir() if p.suffix != ".ipynb"))
    library = None
    if settings.sandbox is not None:
        setups = ["".join(cell["source"]) for nb in cells for cell in nb if is_setup(cell)]
        library = library_files(setups, course_source)
    return Course(root, assignment, expected, code_cells, config, data, library)


def guarded_imports(code: str) -> set[str]:
    """Modules of the guarded packages that *code* imports.

    >>> sorted(guarded_imports("from windowmem.policies.n8n import N8nSimpleMemory\\nimport pandas"))
    ['windowmem.policies.n8n']
    """
    if "import" not in code:  # no import statement without the keyword: skip the parse
        return set()
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
