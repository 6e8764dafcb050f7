"""Find each student's notebooks in nbgrader's submitted layout, and check they can be read.

A class folder holds ``<student_id>/<assignment>/*.ipynb``. For every notebook the
assignment expects, each student gets one :class:`PlannedNotebook`: a readable file to
grade, or a status (``missing``, ``malformed``) with a detail saying what was found.
A notebook saved under another name is still graded when it is recognisably the
assignment's (it carries the expected nbgrader cell ids, or it is the only candidate).
"""

from __future__ import annotations

import json
import stat
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import nbformat

from autograder.errors import GradingSetupError
from autograder.grading.status import Status
from autograder.term.nbgrader_course import notebook_grade_ids as grade_ids

#: Deepest nesting of lists and objects a notebook may have (real ones stay under 15).
MAX_DEPTH = 64
#: Largest notebook read when no limit is given, in bytes.
DEFAULT_MAX_BYTES = 20 * 1024 * 1024

#: Folders that editors and OSes leave beside notebooks.
IGNORED_DIRS = frozenset({".ipynb_checkpoints", "__MACOSX", "__pycache__"})


@dataclass(frozen=True)
class PlannedNotebook:
    """One expected notebook of one student: a file to grade, or why there is none."""

    student_id: str
    notebook: str
    path: Path | None
    status: Status | None  # None: ready to grade; else missing or malformed
    detail: str


@dataclass(frozen=True)
class StudentSubmission:
    """Everything one student handed in for the assignment."""

    student_id: str
    folder: Path
    notebooks: tuple[PlannedNotebook, ...]

    @property
    def gradable(self) -> tuple[PlannedNotebook, ...]:
        return tuple(n for n in self.notebooks if n.status is None)

    def refuse(self, why: str) -> StudentSubmission:
        """The same student with every notebook refused as malformed, for *why*."""
        return replace(
            self,
            notebooks=tuple(
                replace(
                    n,
                    path=None,
                    status=Status.MALFORMED,
                    detail="; ".join(x for x in (why, n.detail) if x),
                )
                for n in self.notebooks
            ),
        )

    @classmethod
    def refused(
        cls, student_id: str, folder: Path, expected: Mapping[str, frozenset[str]], why: str
    ) -> StudentSubmission:
        """A student with nothing usable: every expected notebook malformed, for *why*."""
        return cls(
            student_id,
            folder,
            tuple(
                PlannedNotebook(student_id, n, None, Status.MALFORMED, why)
                for n in sorted(expected)
            ),
        )


def notebook_problem(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> str | None:
    """Why *path* cannot be graded as a notebook, or None when it can. Never raises.

    >>> import tempfile, pathlib
    >>> empty = pathlib.Path(tempfile.mkdtemp()) / "a.ipynb"; _ = empty.write_text("")
    >>> notebook_problem(empty)
    'the file is empty (0 bytes)'
    """
    try:
        return _problem(path, max_bytes)
    except Exception as error:  # noqa: BLE001 - one student's file must not stop the class
        return f"could not be read: {type(error).__name__}: {str(error)[:200]}"


def _problem(path: Path, max_bytes: int) -> str | None:
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link, not a file: hand in the notebook itself"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_size > max_bytes:
        return f"is {info.st_size:,} bytes, over the {max_bytes:,}-byte limit for a notebook (clear large outputs and hand it in again)"
    raw = path.read_bytes()
    if not raw.strip():
        return f"the file is empty ({len(raw)} bytes)"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"not UTF-8 text ({error.reason} at byte {error.start}), so not a notebook"
    too_deep = _nesting_over(text, MAX_DEPTH)
    if too_deep:
        return f"nested more than {MAX_DEPTH} levels deep, so not a notebook nbgrader can read"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
    except RecursionError:
        return f"nested more than {MAX_DEPTH} levels deep, so not a notebook nbgrader can read"
    if not isinstance(data, dict) or "cells" not in data and "worksheets" not in data:
        return "valid JSON but not a Jupyter notebook (no 'cells')"
    try:
        notebook = nbformat.reads(text, as_version=4)
    except Exception as error:  # noqa: BLE001 - nbformat raises many kinds
        return f"not a readable Jupyter notebook: {type(error).__name__}: {error}"
    bad = [
        i + 1
        for i, c in enumerate(notebook.cells)
        if not isinstance(c, dict) or "cell_type" not in c or "source" not in c
    ]
    if bad:
        return f"not a readable Jupyter notebook: cells {bad[:5]} lack a type or source"
    return None


def _nesting_over(text: str, limit: int) -> bool:
    """True when JSON *text* nests brackets deeper than *limit* (strings skipped), without parsing.

    >>> _nesting_over('{"a": [[1]], "b": "[[[["}', 3), _nesting_over('[[[1]]]', 2)
    (False, True)
    """
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def find_class(
    submissions: Path,
    assignment: str,
    expected: Mapping[str, frozenset[str]],
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> tuple[StudentSubmission, ...]:
    """Every student folder under *submissions*, planned against the *expected* notebooks.

    *expected* maps each notebook name (without ``.ipynb``) to its nbgrader cell ids.
    """
    if not submissions.is_dir():
        raise GradingSetupError(
            f"--submissions {submissions} is not a folder; give the folder holding <student_id>/{assignment}/"
        )
    students = sorted(
        p
        for p in submissions.iterdir()
        if (p.is_dir() or p.is_symlink())
        and p.name not in IGNORED_DIRS
        and not p.name.startswith(".")
    )
    return tuple(plan_student(folder, assignment, expected, max_bytes) for folder in students)


def plan_student(
    folder: Path,
    assignment: str,
    expected: Mapping[str, frozenset[str]],
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> StudentSubmission:
    """Match one student's files to the *expected* notebooks."""
    student_id = folder.name
    assignment_dir = folder / assignment
    for linked in (folder, assignment_dir):
        if linked.is_symlink():
            return StudentSubmission.refused(
                student_id,
                folder,
                expected,
                f"{linked.relative_to(folder.parent)} is a symbolic link; hand in real folders",
            )
    if not assignment_dir.is_dir():
        found = sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
        detail = (
            f"no folder {student_id}/{assignment}/; the student folder holds {found or 'nothing'}"
        )
        return StudentSubmission(
            student_id,
            folder,
            tuple(
                PlannedNotebook(student_id, n, None, Status.MISSING, detail)
                for n in sorted(expected)
            ),
        )

    files = sorted(
        p
        for p in assignment_dir.rglob("*.ipynb")
        if not (IGNORED_DIRS & set(p.relative_to(assignment_dir).parts[:-1]))
        and (p.is_file() or p.is_symlink())
    )
    by_name = {p.stem: p for p in files if p.parent == assignment_dir}
    unclaimed = [p for p in files if p.stem not in expected or p.parent != assignment_dir]
    wanted = sorted(n for n in expected if n not in by_name)
    renamed = _match_renamed(wanted, unclaimed, expected)
    extras = [p for p in unclaimed if p not in renamed.values()]
    extra_note = (
        f"ignored other notebook(s): {', '.join(_rel(p, assignment_dir) for p in extras)}"
        if extras
        else ""
    )

    planned = []
    for name in sorted(expected):
        path = by_name.get(name) or renamed.get(name)
        if path is None:
            present = ", ".join(_rel(p, assignment_dir) for p in unclaimed) or "no notebooks"
            planned.append(
                PlannedNotebook(
                    student_id,
                    name,
                    None,
                    Status.MISSING,
                    f"no {name}.ipynb in {student_id}/{assignment}/ (found: {present})",
                )
            )
            continue
        note = (
            f"submitted as '{_rel(path, assignment_dir)}', graded as {name}.ipynb"
            if path.stem != name or path.parent != assignment_dir
            else ""
        )
        problem = notebook_problem(path, max_bytes)
        detail = "; ".join(x for x in (problem, note, extra_note) if x)
        planned.append(
            PlannedNotebook(student_id, name, path, Status.MALFORMED if problem else None, detail)
        )
    return StudentSubmission(student_id, folder, tuple(planned))


def _match_renamed(
    wanted: list[str], unclaimed: list[Path], expected: Mapping[str, frozenset[str]]
) -> dict[str, Path]:
    """Pair missing notebook names with misnamed files, only where the pairing is unambiguous."""
    matches: dict[str, Path] = {}
    taken: set[Path] = set()
    for name in wanted:
        ids = expected[name]
        candidates = [p for p in unclaimed if p not in taken and ids and ids & grade_ids(p)]
        if len(candidates) > 1:  # prefer the one sharing the most cell ids
            best = max(len(ids & grade_ids(p)) for p in candidates)
            candidates = [p for p in candidates if len(ids & grade_ids(p)) == best]
        if len(candidates) == 1:
            matches[name] = candidates[0]
            taken.add(candidates[0])
    left = [n for n in wanted if n not in matches]
    spare = [p for p in unclaimed if p not in taken]
    if len(left) == 1 and len(spare) == 1:  # one gap, one stray file: it can only be that
        matches[left[0]] = spare[0]
    return matches


def _rel(path: Path, base: Path) -> str:
    return str(path.relative_to(base))
