"""Helpers for assignment tests: generate a release, autograde notebooks, read the scores.

Everything happens in a throwaway nbgrader course directory with its own SQLite
gradebook, built from the repository's ``nbgrader_config.py`` and ``source/``, so a
test never writes a gradebook or a log into the repository.

A typical test::

    course = GradingCourse.create(tmp_path, "lesson03_window_buffer")
    course.submit("alice", notebook_json)           # a dict, as json.load gives it
    course.autograde("alice")
    course.scores("alice")                          # {grade_id: Score(...)}
"""

from __future__ import annotations

import copy
import fcntl
import importlib.util
import json
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

from autograder.nbgrader_course import nbgrader_meta
from tests.conftest import REPO_ROOT

Notebook = dict[str, Any]

SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
HIDDEN_MARKERS = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")

#: A part's heading in an assignment notebook, e.g. ``## Part A: ... (12 points)``.
PART_HEADING = re.compile(r"^## (Part [A-Z]).*\((\d+) points\)", re.M)


def assignment_notebooks() -> list[tuple[str, str]]:
    """Every (assignment, notebook file name) under ``source/``, sorted."""
    from autograder.nbgrader_course import assignments

    source = REPO_ROOT / "source"
    return sorted((a, nb.name) for a in assignments(source) for nb in (source / a).glob("*.ipynb"))


@lru_cache(maxsize=1)
def release_script() -> ModuleType:
    """``scripts/release_assignments.py``, imported as a module."""
    path = REPO_ROOT / "scripts" / "release_assignments.py"
    spec = importlib.util.spec_from_file_location("release_assignments", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("release_assignments", module)
    spec.loader.exec_module(module)
    return module


def _fast_nbformat() -> None:
    # The autograder package keeps nbformat's import quick (see autograder/startup.py);
    # use it when it is there, and carry on at normal speed when it is not.
    try:
        import autograder.startup  # noqa: F401
    except ImportError:
        pass


def read_notebook(path: Path) -> Notebook:
    """A notebook file as plain JSON data."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def cell_text(cell: dict[str, Any]) -> str:
    """A cell's source as one string (notebook files may store it as a list of lines)."""
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def cells_by_id(nb: Notebook) -> dict[str, dict[str, Any]]:
    """The notebook's nbgrader cells, keyed by grade_id."""
    from autograder.nbgrader_course import grade_ids

    return dict(
        zip(grade_ids(nb["cells"]), (c for c in nb["cells"] if nbgrader_meta(c).get("grade_id")))
    )


def graded_points(nb: Notebook, *, autograded_only: bool = True) -> dict[str, float]:
    """Points per grade_id of the graded cells (test cells; with manual cells if asked)."""
    out = {}
    for cell in nb["cells"]:
        meta = nbgrader_meta(cell)
        if not meta.get("grade"):
            continue
        if autograded_only and meta.get("solution"):
            continue  # a graded answer cell is graded by hand
        out[meta["grade_id"]] = float(meta.get("points", 0))
    return out


def part_points(nb: Notebook) -> dict[str, tuple[int, float]]:
    """Per part heading, in order: the points it states and the points of the graded cells under it."""
    points = graded_points(nb, autograded_only=False)
    parts: dict[str, tuple[int, float]] = {}
    current = None
    for cell in nb["cells"]:
        heading = PART_HEADING.search(cell_text(cell)) if cell["cell_type"] == "markdown" else None
        if heading:
            current = heading.group(1)
            parts[current] = (int(heading.group(2)), 0.0)
        grade_id = nbgrader_meta(cell).get("grade_id")
        if current and grade_id in points:
            stated, total = parts[current]
            parts[current] = (stated, total + points[grade_id])
    return parts


def with_cell_source(nb: Notebook, grade_id: str, source: str) -> Notebook:
    """A copy of *nb* whose cell *grade_id* holds *source* (a student's edited answer)."""
    out = copy.deepcopy(nb)
    cell = cells_by_id(out).get(grade_id)
    if cell is None:
        raise KeyError(f"no cell with grade_id {grade_id!r}")
    cell["source"] = source
    return out


def generate_release(assignment: str, out_dir: Path) -> Path:
    """Generate the clean student version of *assignment* into ``out_dir/assignment``."""
    _fast_nbformat()
    return release_script().generate(assignment, Path(out_dir))


@dataclass(frozen=True)
class Score:
    """One graded cell's result: the points it earned automatically, of how many."""

    auto_score: float | None
    max_score: float


@dataclass(frozen=True)
class GradingCourse:
    """A temporary nbgrader course for one assignment, generated and ready to grade."""

    root: Path
    assignment: str

    @classmethod
    def create(cls, workdir: Path, assignment: str) -> GradingCourse:
        """Generate *assignment* in a course under *workdir*, with its gradebook and clean release."""
        _fast_nbformat()
        root = Path(workdir) / "course"
        root.mkdir(parents=True)
        release_script().generate(assignment, root / "clean_release", course_root=root)
        return cls(root, assignment)

    @property
    def release_dir(self) -> Path:
        """What students receive: nbgrader's release, cleaned by the release script."""
        return self.root / "clean_release" / self.assignment

    @property
    def db_url(self) -> str:
        from autograder.nbgrader_course import db_url

        return db_url(self.root / "gradebook.db")

    def notebook_names(self) -> list[str]:
        """The assignment's notebooks, by file name."""
        return sorted(p.name for p in self.release_dir.glob("*.ipynb"))

    def release_notebook(self, name: str | None = None) -> Notebook:
        """The generated student version of a notebook (the only one if *name* is None)."""
        return read_notebook(self.release_dir / (name or self._only_notebook()))

    def source_notebook(self, name: str | None = None) -> Notebook:
        """The instructor version of a notebook (the only one if *name* is None)."""
        return read_notebook(
            self.root / "source" / self.assignment / (name or self._only_notebook())
        )

    def _only_notebook(self) -> str:
        names = self.notebook_names()
        if len(names) != 1:
            raise ValueError(f"{self.assignment} has {len(names)} notebooks: name the one you mean")
        return names[0]

    def submit(self, student: str, notebook: Notebook, name: str | None = None) -> Path:
        """Hand in *notebook* for *student*, beside a copy of the release's other files."""
        folder = self.root / "submitted" / student / self.assignment
        if folder.exists():
            shutil.rmtree(folder)
        shutil.copytree(self.release_dir, folder)
        path = folder / (name or self._only_notebook())
        path.write_text(json.dumps(notebook, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        return path

    def autograde(self, student: str) -> None:
        """Run nbgrader's autograde on *student*'s submission; raise if nbgrader fails."""
        from nbgrader.apps import NbGraderAPI

        from autograder.nbgrader_course import prepare_nbgrader

        prepare_nbgrader()

        api = NbGraderAPI(config=release_script().course_config(self.root))
        result = api.autograde(self.assignment, student, force=True, create=True)
        if not result["success"]:
            raise AssertionError(
                f"autograde of {student} failed:\n{result['error']}\n{result['log']}"
            )

    def scores(self, student: str, name: str | None = None) -> dict[str, Score]:
        """*student*'s score per grade_id, read from the gradebook."""
        from nbgrader.api import Gradebook

        notebook_id = Path(name or self._only_notebook()).stem
        with Gradebook(self.db_url) as gradebook:
            submission = gradebook.find_submission_notebook(notebook_id, self.assignment, student)
            return {
                grade.name: Score(grade.auto_score, grade.max_score) for grade in submission.grades
            }

    def autograded_notebook(self, student: str, name: str | None = None) -> Notebook:
        """The executed notebook nbgrader graded for *student*."""
        return read_notebook(
            self.root / "autograded" / student / self.assignment / (name or self._only_notebook())
        )


#: A student who gets something wrong: (answer cell they edit, its new source, cells that must score 0).
Mutant = tuple[str, str, set[str]]


def grade_everyone(workdir: Path, assignment: str, mutants: dict[str, Mutant]) -> GradingCourse:
    """Autograde, in a course under *workdir*: the instructor solution, the untouched release, each mutant."""
    course = GradingCourse.create(workdir, assignment)
    source = course.source_notebook()
    course.submit("solution", source)
    course.submit("untouched", course.release_notebook())
    for student, (grade_id, answer, _) in mutants.items():
        course.submit(student, with_cell_source(source, grade_id, answer.strip("\n")))
    for student in ("solution", "untouched", *mutants):
        course.autograde(student)
    return course


def graded_once(
    request: Any, tmp_path_factory: Any, assignment: str, mutants: dict[str, Mutant]
) -> GradingCourse:
    """The course :func:`grade_everyone` makes for *assignment*, built once per test run (see :func:`built_once`)."""
    workdir = built_once(
        request,
        tmp_path_factory,
        f"{assignment}-graded",
        lambda folder: grade_everyone(folder, assignment, mutants),
    )
    return GradingCourse(workdir / "course", assignment)


def always_equal_cheat(function_source: str) -> str:
    """An answer cell that cheats: *function_source* returns a list equal to anything, and type checks pass."""
    return (
        '''
class SameAsAnything(list):
    """A list that claims to equal whatever it is compared with."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = None


'''
        + function_source.strip("\n")
        + """


# and hide it from type checks in every later cell
type = lambda obj, *rest: list  # noqa: E731
isinstance = lambda obj, cls: True  # noqa: E731
"""
    )


def error_outputs(cell: dict[str, Any]) -> list[dict[str, Any]]:
    """The error outputs of an executed code cell."""
    return [output for output in cell.get("outputs", []) if output["output_type"] == "error"]


def check_scores_nothing(scores: dict[str, Score]) -> None:
    """Raise AssertionError unless there are scores and every one of them is zero."""
    if not scores or any(score.auto_score != 0 for score in scores.values()):
        raise AssertionError(f"expected every cell to score 0: {scores}")


def check_loses_exactly(scores: dict[str, Score], affected: set[str], student: str) -> None:
    """Raise AssertionError unless the *affected* cells score 0 and every other cell scores full marks."""
    zero = {k for k, s in scores.items() if s.auto_score == 0}
    full = {k for k, s in scores.items() if s.auto_score == s.max_score}
    if zero != affected:
        raise AssertionError(f"{student}: lost {sorted(zero)}, expected to lose {sorted(affected)}")
    if full != set(scores) - affected:
        raise AssertionError(f"{student}: partial marks on {sorted(set(scores) - zero - full)}")


def iter_files(folder: Path) -> Iterator[Path]:
    """Every file under *folder*, sorted."""
    return iter(sorted(p for p in Path(folder).rglob("*") if p.is_file()))


def built_once(
    request: Any, tmp_path_factory: Any, name: str, build: Callable[[Path], None]
) -> Path:
    """A folder that *build* fills once per test run, even when pytest-xdist splits the tests.

    Under xdist every worker asks for it; the first one builds it while holding a lock
    in the run's shared temporary folder, and the others wait and reuse it. Without
    xdist it is an ordinary fresh temporary folder.
    """
    if getattr(request.config, "workerinput", None) is None:
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    shared = tmp_path_factory.getbasetemp().parent  # one per run, shared by its workers
    folder = shared / name
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (folder / ".built").exists():
                if folder.exists():
                    shutil.rmtree(folder)  # a worker that failed half-way: start again
                folder.mkdir()
                build(folder)
                (folder / ".built").touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder
