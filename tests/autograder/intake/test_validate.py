"""``validate-assignment`` reports in its exit status what ``nbgrader validate`` only prints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.intake.validate import Finding, findings, main, report

REPO = Path(__file__).resolve().parents[3]
ASSIGNMENT = "lesson03_window_buffer"
NOTEBOOK = "window_buffer.ipynb"


def _nbgrader(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _student_copy(tmp_path: Path, answered: bool) -> Path:
    """The released notebook with its data, answered from source/ when *answered*."""
    folder = tmp_path / ASSIGNMENT
    subprocess.run(["cp", "-r", str(REPO / "release" / ASSIGNMENT), str(folder)], check=True)
    if answered:
        release = json.loads((folder / NOTEBOOK).read_text())
        source = json.loads((REPO / "source" / ASSIGNMENT / NOTEBOOK).read_text())
        answers = {_nbgrader(c)["grade_id"]: c["source"] for c in source["cells"] if _nbgrader(c)}
        for cell in release["cells"]:
            meta = _nbgrader(cell)
            if meta.get("solution") and not meta.get("locked"):
                cell["source"] = answers[meta["grade_id"]]
        (folder / NOTEBOOK).write_text(json.dumps(release))
    return folder / NOTEBOOK


def _run(*args: str) -> subprocess.CompletedProcess:
    bin_dir = str(Path(sys.executable).parent)
    env = {"PATH": bin_dir + ":/usr/bin:/bin", "HOME": str(Path.home())}
    return subprocess.run(
        [sys.executable, "-m", "autograder.intake.validate", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_findings_name_each_kind_of_problem():
    """Failed tests, empty written answers, edited locked cells and changed cell types all count."""
    results = {
        "type_changed": [{"source": "x = 1", "old_type": "code", "new_type": "markdown"}],
        "changed": [{"source": '"""a locked test"""\nassert True'}],
        "failed": [
            {"source": '"""t"""\nassert f() == 2', "raw_error": "\x1b[31mAssertionError\x1b[39m"},
            {"source": "YOUR ANSWER HERE", "raw_error": "You did not provide a response."},
        ],
    }
    found = findings(results)
    assert [f.kind for f in found] == ["type changed", "changed", "failed", "unanswered"]
    assert found[2] == Finding("failed", '"""t"""', "AssertionError")
    assert "NOT READY" in report(Path("nb.ipynb"), found)
    assert "every visible test passes" in report(Path("nb.ipynb"), [])


@pytest.mark.slow
def test_an_unanswered_assignment_exits_1_and_lists_every_failing_test(tmp_path):
    """The released notebook as a student first gets it: every test fails, and the status says so."""
    notebook = _student_copy(tmp_path, answered=False)
    stock = subprocess.run(
        [str(Path(sys.executable).parent / "nbgrader"), "validate", str(notebook)],
        capture_output=True,
        text=True,
        env={"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"},
        timeout=300,
    )
    assert "VALIDATION FAILED" in stock.stdout and stock.returncode == 0, "nbgrader changed"
    result = _run(str(notebook))
    assert result.returncode == 1, result.stdout + result.stderr
    test_cells = [
        c
        for c in json.loads(notebook.read_text())["cells"]
        if _nbgrader(c).get("grade") and c["cell_type"] == "code"
    ]
    assert result.stdout.count("  - failed: ") == len(test_cells)
    assert "unanswered" in result.stdout
    assert "\x1b[" not in result.stdout


@pytest.mark.slow
def test_a_finished_assignment_exits_0(tmp_path, capsys, monkeypatch):
    """With the solutions typed in, every visible test passes and the command exits 0."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
    notebook = _student_copy(tmp_path, answered=True)
    # The written answer needs words of the student's own; give some.
    nb = json.loads(notebook.read_text())
    for cell in nb["cells"]:
        if _nbgrader(cell).get("solution") and cell["cell_type"] == "markdown":
            cell["source"] = "The buffer is too small for a fact from turn 1."
    notebook.write_text(json.dumps(nb))
    # In this process (the other cases run the command as a learner would).
    assert main([str(notebook)]) == 0
    assert "every visible test passes" in capsys.readouterr().out


@pytest.mark.slow
def test_an_edited_test_cell_is_reported(tmp_path):
    """A weakened locked test cell exits 1 and names it."""
    notebook = _student_copy(tmp_path, answered=True)
    nb = json.loads(notebook.read_text())
    locked = next(c for c in nb["cells"] if _nbgrader(c).get("grade") and c["cell_type"] == "code")
    locked["source"] = '"""weakened"""\nassert True'
    notebook.write_text(json.dumps(nb))
    result = _run(str(notebook))
    assert result.returncode == 1 and "changed: " in result.stdout, result.stdout + result.stderr


def test_a_path_that_is_no_notebook_exits_2(tmp_path, capsys):
    """A missing file or a file that is not a notebook is refused, saying what to give instead."""
    (tmp_path / "notes.txt").write_text("hello")
    assert main([str(tmp_path / "nowhere.ipynb"), str(tmp_path / "notes.txt")]) == 2
    assert capsys.readouterr().err.count("not a notebook file") == 2
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{not json")
    assert main([str(broken)]) == 2
    assert "could not be checked" in capsys.readouterr().err
