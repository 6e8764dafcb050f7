"""Helpers for assignment tests: read notebooks, generate a release, grade a class with the pipeline.

Grading goes through ``python -m autograder grade``, the command instructors run, into a
throwaway folder, so a test never writes a gradebook or a log into the repository. A
typical test::

    run = grade_class_with_pipeline(tmp_path, "lesson03_window_buffer", MUTANTS)
    run.grades["solution"]                          # PipelineGrade(score, max_score, status, failed, detail)
    run.autograded_notebook("off_by_one", "window_buffer.ipynb")
"""

from __future__ import annotations

import copy
import fcntl
import importlib.util
import json
import re
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import pytest

from autograder.term.nbgrader_course import nbgrader_meta
from tests.conftest import REPO_ROOT

Notebook = dict[str, Any]

SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
HIDDEN_MARKERS = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")


def support_namespace(assignment: str) -> dict[str, Any]:
    """What a hidden test cell's code finds when it runs here rather than in the judge: the
    names the judge gives every test (a fresh case counter, ``_sealed``, the plain types) and
    *assignment*'s hidden_support.py helpers (from its source folder, whatever the working
    folder), the module itself as ``_support``."""
    from autograder.judge.support import hidden_support, hidden_test_names

    return hidden_test_names(hidden_support(REPO_ROOT / "source" / assignment))


#: A part's heading in an assignment notebook, e.g. ``## Part A: ... (12 points)``.
PART_HEADING = re.compile(r"^## (Part [A-Z]).*\((\d+) points\)", re.M)


def assignment_notebooks() -> list[tuple[str, str]]:
    """Every (assignment, notebook file name) under ``source/``, sorted."""
    from autograder.term.nbgrader_course import assignments

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
    from autograder.term.nbgrader_course import grade_ids

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


#: A student who gets something wrong: (answer cell they edit, its new source, what they lose):
#: a set of cells that must score 0, or a dict of cell -> points lost (partial credit: a test
#: cell worth several points scores each of its cases on its own).
Mutant = tuple[str, str, "set[str] | dict[str, float]"]


def always_equal_cheat(function_source: str, *, hide_from_type_checks: bool = True) -> str:
    """An answer cell that cheats: *function_source* returns a list equal to anything.

    With *hide_from_type_checks* the cell also rebinds ``type`` and ``isinstance`` for every
    later cell (which breaks any later answer that uses them).
    """
    hide = """


# and hide it from type checks in every later cell
type = lambda obj, *rest: list  # noqa: E731
isinstance = lambda obj, cls: True  # noqa: E731
"""
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
        + (hide if hide_from_type_checks else "\n")
    )


def error_outputs(cell: dict[str, Any]) -> list[dict[str, Any]]:
    """The error outputs of an executed code cell."""
    return [output for output in cell.get("outputs", []) if output["output_type"] == "error"]


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


# ---------------------------------------------------------------- through the instructors' pipeline


@dataclass(frozen=True)
class PipelineGrade:
    """One student's row of ``grades.csv``, as ``python -m autograder grade`` wrote it."""

    score: float | None
    max_score: float
    status: str
    failed: frozenset[str]
    detail: str


@dataclass(frozen=True)
class PipelineRun:
    """A class graded by ``python -m autograder grade``: its grades and where it wrote them."""

    out: Path
    assignment: str
    grades: dict[str, PipelineGrade]

    def autograded_notebook(self, student: str, name: str) -> Notebook:
        """The notebook the pipeline executed and scored for *student*."""
        return read_notebook(self.out / "course" / "autograded" / student / self.assignment / name)

    def cell_scores(self, student: str, name: str) -> dict[str, float]:
        """*student*'s autograded score in each graded cell of notebook *name*, from the gradebook."""
        from nbgrader.api import Gradebook

        url = "sqlite:///" + str(self.out / "course" / "gradebook.db")
        with Gradebook(url) as gradebook:
            notebook = gradebook.find_submission_notebook(Path(name).stem, self.assignment, student)
            return {g.name: g.auto_score for g in notebook.grades if g.auto_score is not None}


def _failed_cells(detail: str) -> frozenset[str]:
    # grades.csv's detail reads "36/42 points; failed: a, b; to grade by hand: c".
    for part in detail.split("; "):
        if part.startswith("failed: "):
            return frozenset(part[len("failed: ") :].split(", "))
    return frozenset()


def read_grades(out: Path) -> dict[str, PipelineGrade]:
    """``OUT/grades.csv``, one :class:`PipelineGrade` per student (one notebook per assignment)."""
    import csv

    with open(Path(out) / "grades.csv", newline="", encoding="utf-8") as handle:
        return {
            row["student_id"]: PipelineGrade(
                float(row["score"]) if row["score"] else None,
                float(row["max_score"]),
                row["status"],
                _failed_cells(row["detail"]),
                row["detail"],
            )
            for row in csv.DictReader(handle)
        }


def grade_class_with_pipeline(
    workdir: Path,
    assignment: str,
    mutants: dict[str, Mutant],
    cell_timeout: int = 20,
    skimmers: dict[str, dict[str, str]] | None = None,
) -> PipelineRun:
    """Hand in the solution, the committed release untouched and every mutant; grade them all
    with ``python -m autograder grade``, the command instructors run; read its ``grades.csv``."""
    import subprocess

    release = REPO_ROOT / "release" / assignment
    source = REPO_ROOT / "source" / assignment
    notebook = sorted(p.name for p in release.glob("*.ipynb"))
    if len(notebook) != 1:
        raise ValueError(f"{assignment}: one notebook expected, found {notebook}")
    name = notebook[0]
    skimmers = skimmers or {}
    solution = read_notebook(source / name)
    students = {"solution": solution, "untouched": read_notebook(release / name)}
    for student, (grade_id, answer, _) in mutants.items():
        students[student] = with_cell_source(solution, grade_id, answer.strip("\n"))
    for student, answers in skimmers.items():
        # a skimmer hands in the release with their own answers in the cells they filled
        nb = read_notebook(release / name)
        for cell, text in answers.items():
            nb = with_cell_source(nb, cell, text.strip("\n"))
        students[student] = nb
    submissions = Path(workdir) / "submitted"
    for student, nb in students.items():
        folder = submissions / student / assignment
        shutil.copytree(release, folder)
        (folder / name).write_text(
            json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
    out = Path(workdir) / "graded"
    command = [
        sys.executable, "-m", "autograder", "grade", assignment,
        "--submissions", str(submissions), "--out", str(out),
        "--timeout", str(cell_timeout), "--no-progress",
    ]  # fmt: skip
    run = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=1800)
    if run.returncode not in (0, 1) or not (out / "grades.csv").is_file():
        raise AssertionError(
            f"autograder grade failed ({run.returncode}):\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
        )
    return PipelineRun(out, assignment, read_grades(out))


def pipeline_graded_once(
    request: Any,
    tmp_path_factory: Any,
    assignment: str,
    mutants: dict[str, Mutant],
    skimmers: dict[str, dict[str, str]] | None = None,
) -> PipelineRun:
    """The class :func:`grade_class_with_pipeline` grades for *assignment*, once per test run."""
    workdir = built_once(
        request,
        tmp_path_factory,
        f"{assignment}-pipeline",
        lambda folder: grade_class_with_pipeline(folder, assignment, mutants, skimmers=skimmers),
    )
    return PipelineRun(workdir / "graded", assignment, read_grades(workdir / "graded"))


def check_pipeline_loses_exactly(
    grade: PipelineGrade,
    affected: set[str] | dict[str, float],
    points: dict[str, float],
    student: str,
) -> None:
    """Raise AssertionError unless *student* failed exactly the *affected* autograded cells and
    lost their points (all of a set's cells' points; a dict's points per cell)."""
    lost = affected if isinstance(affected, dict) else {cell: points[cell] for cell in affected}
    failed = {cell for cell in grade.failed if cell in points}
    if grade.status != "graded":
        raise AssertionError(f"{student}: status {grade.status}: {grade.detail}")
    if failed != set(lost):
        raise AssertionError(f"{student}: failed {sorted(failed)}, expected {sorted(lost)}")
    expected = sum(points.values()) - sum(lost.values())
    # partial credit is rounded to hundredths per cell
    if grade.score is None or abs(grade.score - expected) > 0.011 * len(lost):
        raise AssertionError(
            f"{student}: scored {grade.score}, expected {expected} (partial marks?)"
        )


def check_runs_clean(notebook: Notebook) -> None:
    """Raise AssertionError if any cell of an executed *notebook* failed or wrote to stderr."""
    for i, cell in enumerate(notebook["cells"]):
        where = nbgrader_meta(cell).get("grade_id") or cell.get("id") or i
        for output in cell.get("outputs", []):
            if output["output_type"] == "error":
                raise AssertionError(f"{where}: {output.get('ename')}: {output.get('evalue')}")
            if output.get("name") == "stderr":
                raise AssertionError(f"{where} writes to stderr: {output.get('text')}")


def check_pipeline_full_marks(
    grade: PipelineGrade, points: dict[str, float], max_score: float, hand_graded: set[str]
) -> None:
    """Raise AssertionError unless *grade* passed every autograded test and left *hand_graded* to a person."""
    got = (grade.status, grade.score, grade.failed, grade.max_score)
    want = ("graded", sum(points.values()), frozenset(), max_score)
    if got != want:
        raise AssertionError(f"the solution: {got}, expected {want}: {grade.detail}")
    if f"to grade by hand: {', '.join(sorted(hand_graded))}" not in grade.detail:
        raise AssertionError(
            f"the solution should leave {sorted(hand_graded)} to grade by hand: {grade.detail}"
        )


def check_untouched_scores_zero(
    run: PipelineRun,
    notebook: str,
    points: dict[str, float],
    setup_cells: Sequence[str] = ("setup",),
) -> None:
    """Raise AssertionError unless the untouched release scored 0, failing every autograded
    cell in *points*, and its *setup_cells* ran without an error (no silent zero: the
    student's own cells failed, not the assignment's)."""
    grade = run.grades["untouched"]
    if (grade.status, grade.score) != ("graded", 0):
        raise AssertionError(
            f"the untouched release: {grade.status}, {grade.score}: {grade.detail}"
        )
    if not set(points) <= grade.failed:
        raise AssertionError(
            f"the untouched release passed {sorted(set(points) - grade.failed)}: {grade.detail}"
        )
    executed = cells_by_id(run.autograded_notebook("untouched", notebook))
    for setup in setup_cells:
        if error_outputs(executed[setup]):
            raise AssertionError(
                f"{setup} must run on a blank release: {error_outputs(executed[setup])}"
            )


def check_shortcut_fails_on_import(
    run: PipelineRun, student: str, notebook: str, grade_id: str, module: str
) -> None:
    """Raise AssertionError unless *student*'s *grade_id* test failed because the answer
    reached windowmem's *module* (a right value reached by the library's own answer).

    Two ways are right: the grading kernel does not have the module at all (the answer's
    import fails in its cell, saying which module), or it has it and the behaviour check
    refused it during a judged call (the feedback says a helper was used; the instructor's
    log names it)."""
    executed = run.autograded_notebook(student, notebook)
    if grade_id not in run.grades[student].failed:
        raise AssertionError(f"{student}: {grade_id} should fail")
    errors = [
        f"{o.get('ename', '')}: {o.get('evalue', '')}"
        for cell in executed["cells"]
        if nbgrader_meta(cell).get("solution")
        for o in error_outputs(cell)
    ]
    if any("No module named 'windowmem" in e for e in errors):
        return
    cell = cells_by_id(executed)[grade_id]
    shown = [o.get("evalue", "") for o in error_outputs(cell)]
    shown += [
        "".join(o.get("text", "")) for o in cell.get("outputs", []) if o.get("name") == "stdout"
    ]
    if not any("used a windowmem helper this question does not allow" in text for text in shown):
        raise AssertionError(f"{student}: {grade_id} should say a helper was used: {shown}")
    # which helper is for the instructor: the judge's log of the student names it
    log = (run.out / "logs" / f"{student}.log").read_text(encoding="utf-8", errors="replace")
    section = log.split(f"--- {grade_id}\n", 1)[-1].split("\n[INFO] judge", 1)[0]
    if not (f"windowmem.{module}" in section and "not allowed here" in section):
        raise AssertionError(
            f"{student}: {grade_id}'s log should name windowmem.{module}: {section[-2000:]}"
        )


def pipeline_fixture(
    assignment: str,
    mutants: dict[str, Mutant],
    skimmer: dict[str, str] | None = None,
    sharper: dict[str, dict[str, str]] | None = None,
) -> Any:
    """A module fixture ``graded``: *assignment*'s solution, untouched release, *mutants*, the
    *skimmer* (student ``"skimmer"``) and any *sharper* skimmers (each under its own name),
    graded once by ``python -m autograder grade`` (``graded = pipeline_fixture(...)``)."""
    skimmers = ({"skimmer": skimmer} if skimmer else {}) | (sharper or {})

    @pytest.fixture(scope="module")
    def graded(request: Any, tmp_path_factory: Any) -> PipelineRun:
        return pipeline_graded_once(request, tmp_path_factory, assignment, mutants, skimmers)

    return graded


class GradingRoundTrip:
    """The checks every assignment's run through ``python -m autograder grade`` must pass.

    An assignment's test module subclasses it, names its assignment's *notebook*,
    *mutants*, grade *contract* and *hand_graded* cells, and has the module fixtures
    ``graded`` (:func:`pipeline_fixture`) and ``source_nb`` (the source notebook). The
    solution earns every autograded point and runs clean; the untouched release scores 0
    with its *setup_cells* running (no silent zero); each mutant loses exactly its points.
    """

    notebook: ClassVar[str]
    mutants: ClassVar[dict[str, Mutant]]
    contract: ClassVar[dict[str, int]]
    hand_graded: ClassVar[set[str]]
    setup_cells: ClassVar[tuple[str, ...]] = ("setup",)
    #: Whether the prompts already leave the skimmer at most a quarter (issue 23, step 4); a
    #: strict xfail until they do, so the day they do the test says so.
    skimmer_bar_met: ClassVar[bool] = False

    def pytest_generate_tests(self, metafunc: Any) -> None:
        if "student" in metafunc.fixturenames and metafunc.function.__name__.startswith(
            "test_a_mistake_or_shortcut"
        ):
            metafunc.parametrize("student", sorted(self.mutants))

    @pytest.mark.slow
    def test_the_solution_scores_full_marks_and_runs_clean(
        self, graded: PipelineRun, source_nb: Notebook
    ) -> None:
        points = graded_points(source_nb)
        check_pipeline_full_marks(
            graded.grades["solution"], points, sum(self.contract.values()), self.hand_graded
        )
        check_runs_clean(graded.autograded_notebook("solution", self.notebook))

    @pytest.mark.slow
    def test_the_untouched_release_scores_zero_without_crashing(
        self, graded: PipelineRun, source_nb: Notebook
    ) -> None:
        points = graded_points(source_nb)
        check_untouched_scores_zero(graded, self.notebook, points, self.setup_cells)

    @pytest.mark.slow
    def test_a_skimmer_earns_at_most_a_quarter(
        self, graded: PipelineRun, source_nb: Notebook, request: Any
    ) -> None:
        """The model skimmer (the prompt's wording, the lesson's printed cells, labels matched
        by keyword) earns at most SKIMMER_SHARE of the autograded points."""
        if "skimmer" not in graded.grades:
            pytest.skip("this assignment's tests hand in no skimmer")
        if not self.skimmer_bar_met:
            request.applymarker(
                pytest.mark.xfail(
                    strict=True, reason="issue 23 step 4: the prompts still word the procedures"
                )
            )
        check_skimmer_share(graded, source_nb, "skimmer")

    @pytest.mark.slow
    def test_a_mistake_or_shortcut_loses_exactly_its_points(
        self, graded: PipelineRun, source_nb: Notebook, student: str
    ) -> None:
        points = graded_points(source_nb)
        check_pipeline_loses_exactly(
            graded.grades[student], self.mutants[student][2], points, student
        )


# ---------------------------------------------------------------- one shortcut, every way to reach it

#: A stand-in that looks its object up at each use: the shortcut's object is reached only by
#: the path the mutant names, at run time, like a student who hides it would.
_LATE = '''
class _Late:
    """The library object *find* returns, looked up again at every use."""

    def __init__(self, find):
        self._find = find

    def __call__(self, *args, **kwargs):
        return self._find()(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._find(), name)

'''

#: How each path reaches ``NAME`` of ``MODULE`` (``{module}``, ``{name}``, ``{alias}``).
REACH_PATHS = {
    # the module is loaded here; the answer finds it only through sys.modules when it runs
    "via_sys_modules": (
        "import sys\nimport {module}  # noqa: F401\n\n"
        "{alias} = _Late(lambda: getattr(sys.modules[{module!r}], {name!r}))\n"
    ),
    "via_importlib": (
        "import importlib\n\n"
        "{alias} = _Late(lambda: getattr(importlib.import_module({module!r}), {name!r}))\n"
    ),
    "via_container": (
        "from {module} import {name} as _found\n\n"
        "_TOOLS = {{'{alias}': [_found]}}\ndel _found\n"
        "{alias} = _Late(lambda: _TOOLS[{alias!r}][0])\n"
    ),
    "via_closure": (
        "def _keep():\n    from {module} import {name} as found\n\n"
        "    return lambda: found\n\n\n"
        "{alias} = _Late(_keep())\ndel _keep\n"
    ),
}


def reached_every_way(mutants: dict[str, Mutant], base: str, module: str) -> dict[str, Mutant]:
    """The shortcut mutant *base*, once per way of reaching *module* other than a plain import.

    Each top-level ``from MODULE import A[ as B], ...`` line of *base*'s answer becomes the
    path's own way to the same objects; everything else is unchanged, so each mutant gets
    the same values as *base* and must lose exactly *base*'s points.
    """
    cell, source, affected = mutants[base]
    line = re.compile(rf"^from {re.escape(module)} import (?P<names>[^\n(]+)\n", re.M)
    found = line.search(source)
    if not found:
        raise ValueError(f"{base} has no line 'from {module} import ...'")
    out: dict[str, Mutant] = {}
    for path, template in REACH_PATHS.items():
        lines = []
        for part in found.group("names").split(","):
            name, _, alias = part.strip().partition(" as ")
            lines.append(template.format(module=module, name=name, alias=alias or name))
        rewritten = _LATE + "\n".join(lines)
        out[f"{base}_{path}"] = (
            cell,
            source[: found.start()] + rewritten + source[found.end() :],
            affected,
        )
    return out


# ---------------------------------------------------------------- the skimmer


#: The most of the autograded points a skimmer may earn (issue 23's bar).
SKIMMER_SHARE = 0.25


def transcribed(source_nb: Notebook, *cells: str) -> dict[str, str]:
    """The skimmer's answer where the prompt states the whole procedure: the procedure as
    the prompt words it, which is the model answer's code (so a prompt that spells its
    steps shows up as points a skimmer earns)."""
    by_id = cells_by_id(source_nb)
    return {cell: cell_text(by_id[cell]) for cell in cells}


def skimmer_share(grade: PipelineGrade, points: dict[str, float]) -> float:
    """The share of the autograded points *grade* earned (hand-graded cells left out)."""
    return (grade.score or 0.0) / sum(points.values())


def check_skimmer_share(
    graded: PipelineRun, source_nb: Notebook, student: str, bound: float = SKIMMER_SHARE
) -> float:
    """Assert that skimmer *student* was graded and earned at most *bound* of the autograded
    points of *source_nb*; its share."""
    grade = graded.grades[student]
    share = skimmer_share(grade, graded_points(source_nb))
    assert grade.status == "graded", grade.detail
    assert share <= bound, f"{student} earns {share:.0%}: {grade.detail}"
    return share


def with_partial_losses(
    mutants: dict[str, Mutant], losses: dict[str, dict[str, float]]
) -> dict[str, Mutant]:
    """*mutants* whose losses are partial: each mutant still names the cells it affects; *losses*
    says how many of each cell's points it loses (the cases it gets wrong), for those cells only."""
    out = dict(mutants)
    for student, lost in losses.items():
        cell, source, affected = mutants[student]
        if set(lost) != set(affected):
            raise ValueError(
                f"{student}: partial losses for {sorted(lost)}, affects {sorted(affected)}"
            )
        out[student] = (cell, source, dict(lost))
    return out


def run_preprocessor(preprocessor, cell):
    """Run one nbgrader preprocessor over a one-cell notebook; the cell it leaves."""
    _fast_nbformat()
    import nbformat

    notebook = nbformat.v4.new_notebook(cells=[cell])
    preprocessor.preprocess(notebook, {})
    return notebook.cells[0]
