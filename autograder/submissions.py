"""Find each student's notebooks in nbgrader's submitted layout, and check they can be read.

A class folder holds ``<student_id>/<assignment>/*.ipynb``. For every notebook the
assignment expects, each student gets one :class:`PlannedNotebook`: a readable file to
grade, or a status (``missing``, ``malformed``) with a detail saying what was found.
A notebook saved under another name is still graded when it is recognisably the
assignment's (it carries the expected nbgrader cell ids, or it is the only candidate).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.errors import GradingSetupError

#: Folders that editors and OSes leave beside notebooks.
IGNORED_DIRS = frozenset({".ipynb_checkpoints", "__MACOSX", "__pycache__"})


@dataclass(frozen=True)
class PlannedNotebook:
    """One expected notebook of one student: a file to grade, or why there is none."""

    student_id: str
    notebook: str
    path: Path | None
    status: str | None  # None: ready to grade; else "missing" or "malformed"
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


def notebook_problem(path: Path) -> str | None:
    """Why *path* cannot be graded as a notebook, or None when it can.

    >>> import tempfile, pathlib
    >>> empty = pathlib.Path(tempfile.mkdtemp()) / "a.ipynb"; _ = empty.write_text("")
    >>> notebook_problem(empty)
    'the file is empty (0 bytes)'
    """
    raw = path.read_bytes()
    if not raw.strip():
        return f"the file is empty ({len(raw)} bytes)"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"not UTF-8 text ({error.reason} at byte {error.start}), so not a notebook"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
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


def grade_ids(path: Path) -> frozenset[str]:
    """The nbgrader cell ids in the notebook at *path* (empty when unreadable)."""
    try:
        cells = json.loads(path.read_text("utf-8")).get("cells", [])
        return frozenset(
            c["metadata"]["nbgrader"]["grade_id"]
            for c in cells
            if isinstance(c, dict)
            and isinstance(c.get("metadata", {}).get("nbgrader"), dict)
            and "grade_id" in c["metadata"]["nbgrader"]
        )
    except (ValueError, UnicodeDecodeError, AttributeError, TypeError, KeyError):
        return frozenset()


def find_class(
    submissions: Path, assignment: str, expected: Mapping[str, frozenset[str]]
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
        if p.is_dir() and p.name not in IGNORED_DIRS and not p.name.startswith(".")
    )
    return tuple(plan_student(folder, assignment, expected) for folder in students)


def plan_student(
    folder: Path, assignment: str, expected: Mapping[str, frozenset[str]]
) -> StudentSubmission:
    """Match one student's files to the *expected* notebooks."""
    student_id = folder.name
    assignment_dir = folder / assignment
    if not assignment_dir.is_dir():
        found = sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
        detail = (
            f"no folder {student_id}/{assignment}/; the student folder holds {found or 'nothing'}"
        )
        return StudentSubmission(
            student_id,
            folder,
            tuple(
                PlannedNotebook(student_id, n, None, "missing", detail) for n in sorted(expected)
            ),
        )

    files = sorted(
        p
        for p in assignment_dir.rglob("*.ipynb")
        if not (IGNORED_DIRS & set(p.relative_to(assignment_dir).parts[:-1]))
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
                    "missing",
                    f"no {name}.ipynb in {student_id}/{assignment}/ (found: {present})",
                )
            )
            continue
        note = (
            f"submitted as '{_rel(path, assignment_dir)}', graded as {name}.ipynb"
            if path.stem != name or path.parent != assignment_dir
            else ""
        )
        problem = notebook_problem(path)
        detail = "; ".join(x for x in (problem, note, extra_note) if x)
        planned.append(
            PlannedNotebook(student_id, name, path, "malformed" if problem else None, detail)
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
