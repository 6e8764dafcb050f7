"""Finding each student's notebooks: misnamed, ambiguous, unreadable and hostile files."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.errors import GradingSetupError
from autograder.intake import submissions


def notebook_with_ids(*grade_ids: str) -> str:
    cells = [
        new_code_cell(
            "x = 1",
            metadata={
                "nbgrader": {"grade_id": g, "grade": False, "solution": True, "locked": False}
            },
        )
        for g in grade_ids
    ]
    return nbformat.writes(new_notebook(cells=cells))


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "the file is empty (0 bytes)"),
        (b"  \n", "the file is empty (3 bytes)"),
        (b"\xff\xfe{}", "not UTF-8 text"),
        (b'{"cells": [', "not valid JSON: Expecting value at line 1, column 12"),
        (b"[1, 2]", "valid JSON but not a Jupyter notebook"),
        (
            b'{"cells": [{"metadata": {}}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
            "lack a type or source",
        ),
    ],
)
def test_notebook_problem_says_what_is_wrong(tmp_path, content, problem):
    path = tmp_path / "a.ipynb"
    path.write_bytes(content)
    assert problem in submissions.notebook_problem(path)


def test_a_valid_notebook_has_no_problem(tmp_path):
    path = tmp_path / "a.ipynb"
    path.write_text(notebook_with_ids("q1"))
    assert submissions.notebook_problem(path) is None


def student_folder(tmp_path: Path, files: dict[str, str], assignment: str = "hw") -> Path:
    folder = tmp_path / "alice"
    for name, text in files.items():
        (folder / assignment / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / assignment / name).write_text(text)
    return folder


EXPECTED = {"part1": frozenset({"a1", "t1"}), "part2": frozenset({"a2", "t2"})}


def test_misnamed_notebooks_are_matched_by_their_cell_ids(tmp_path):
    folder = student_folder(
        tmp_path,
        {
            "part1 copy.ipynb": notebook_with_ids("a1", "t1"),
            "Part 2.ipynb": notebook_with_ids("a2"),
        },
    )
    plan = {nb.notebook: nb for nb in submissions.plan_student(folder, "hw", EXPECTED).notebooks}
    assert plan["part1"].path.name == "part1 copy.ipynb" and plan["part1"].status is None
    assert plan["part2"].path.name == "Part 2.ipynb"
    assert "submitted as 'Part 2.ipynb', graded as part2.ipynb" in plan["part2"].detail


def test_ambiguous_copies_are_reported_missing_not_guessed(tmp_path):
    text = notebook_with_ids("a1", "t1")
    folder = student_folder(
        tmp_path, {"part2.ipynb": notebook_with_ids("a2", "t2"), "x.ipynb": text, "y.ipynb": text}
    )
    plan = {nb.notebook: nb for nb in submissions.plan_student(folder, "hw", EXPECTED).notebooks}
    assert plan["part1"].status == "missing" and "found: x.ipynb, y.ipynb" in plan["part1"].detail
    assert (
        plan["part2"].status is None
        and "ignored other notebook(s): x.ipynb, y.ipynb" in plan["part2"].detail
    )


def test_checkpoints_are_ignored_and_a_missing_folder_is_explained(tmp_path):
    folder = student_folder(
        tmp_path, {".ipynb_checkpoints/part1-checkpoint.ipynb": notebook_with_ids("a1", "t1")}
    )
    (folder / "notes.txt").write_text("")
    plan = submissions.plan_student(folder, "hw", EXPECTED)
    assert [nb.status for nb in plan.notebooks] == ["missing", "missing"]
    other = submissions.plan_student(folder, "hw2", EXPECTED)
    assert (
        "no folder alice/hw2/" in other.notebooks[0].detail
        and "notes.txt" in other.notebooks[0].detail
    )


def test_find_class_refuses_a_missing_folder(tmp_path):
    with pytest.raises(GradingSetupError, match="not a folder"):
        submissions.find_class(tmp_path / "nope", "hw", EXPECTED)


def test_hostile_notebook_files_are_malformed_not_a_crash(tmp_path):
    deep = tmp_path / "deep.ipynb"
    deep.write_text('{"cells": [], "x": ' + "[" * 10_000 + "]" * 10_000 + "}")
    assert "nested more than" in submissions.notebook_problem(deep)
    big = tmp_path / "big.ipynb"
    big.write_text(notebook_with_ids("q1"))
    assert "byte limit" in submissions.notebook_problem(big, max_bytes=10)
    link = tmp_path / "link.ipynb"
    link.symlink_to(big)
    assert "symbolic link" in submissions.notebook_problem(link)
    folder = tmp_path / "folder.ipynb"
    folder.mkdir()
    assert "not a regular file" in submissions.notebook_problem(folder)
