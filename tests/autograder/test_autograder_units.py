"""The autograder's parts, without a kernel: planning, guard, output caps, feedback, reports, CLI."""

from __future__ import annotations

import builtins
import json
import subprocess
import sys
import types
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder import (
    cli,
    course,
    kernel_guard,
    nbgrader_course,
    preprocessors,
    report,
    submissions,
)
from autograder.errors import GradingSetupError
from autograder.gradebook import CellScore
from autograder.report import GradeRow
from tests.conftest import REPO_ROOT

# --- planning a class -------------------------------------------------------------------


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


# --- the kernel guard --------------------------------------------------------------------


def test_snapshot_restores_patched_modules_classes_and_builtins():
    package = types.ModuleType("guardedpkg")
    exec(
        "class Point:\n    def __eq__(self, other):\n        return False\n\ndef area():\n    return 1\n",
        package.__dict__,
    )
    package.Point.__module__ = "guardedpkg"
    sys.modules["guardedpkg"] = package
    original_eq, original_area, original_sum = package.Point.__eq__, package.area, builtins.sum
    try:
        snapshot = kernel_guard.Snapshot(["guardedpkg"], [])
        package.Point.__eq__ = lambda self, other: True
        package.Point.__ne__ = lambda self, other: False  # added, not replaced
        package.area = lambda: 99
        builtins.sum = lambda *args: 0
        point = package.Point()
        restored = snapshot.restore()
        assert (
            package.Point.__eq__ is original_eq
            and package.area is original_area
            and builtins.sum is original_sum
        )
        assert "__ne__" not in vars(package.Point)
        assert point != package.Point(), "objects made before the restore use the restored class"
        assert set(restored) == {
            "builtins.sum",
            "guardedpkg.area",
            "guardedpkg.Point.__eq__",
            "guardedpkg.Point.__ne__",
        }
        assert snapshot.restore() == []
    finally:
        builtins.sum = original_sum
        del sys.modules["guardedpkg"]


def test_import_lines_keep_only_imports():
    assert preprocessors.import_lines(
        "import os\nx = 1\nfrom a.b import (c,\n d)\ndef f():\n    import json"
    ) == ["import os", "from a.b import c, d"]
    assert preprocessors.import_lines("this is not python") == []


# --- output caps and feedback -----------------------------------------------------------


def run_preprocessor(preprocessor, cell):
    notebook = new_notebook(cells=[cell])
    preprocessor.preprocess(notebook, {})
    return notebook.cells[0]


def test_cap_output_truncates_long_streams_and_drops_huge_html():
    cell = new_code_cell(
        "flood()",
        outputs=[
            new_output("stream", text="x" * 50_000),
            new_output("display_data", data={"text/html": "<p>" * 30_000, "text/plain": "ok"}),
            new_output("stream", name="stderr", text="short"),
        ],
    )
    capped = run_preprocessor(preprocessors.CapOutput(max_chars=1_000), cell)
    assert (
        capped.outputs[0].text.startswith("x" * 1_000)
        and "50,000 characters in all" in capped.outputs[0].text
    )
    assert len(capped.outputs[0].text) < 1_200
    assert capped.outputs[1].data == {"text/plain": "ok"}
    assert capped.outputs[2].text == "short"


def test_feedback_shows_a_verdict_not_the_test_or_its_output():
    source = '"""visible"""\nassert f(1) == 2\n### BEGIN HIDDEN TESTS\nassert f(41) == 42, "secret"\n### END HIDDEN TESTS'
    error = new_output(
        "error",
        ename="AssertionError",
        evalue='expected 42\nassert f(41) == 42, "secret"',
        traceback=["Traceback", '----> 4 assert f(41) == 42, "secret"', "AssertionError: secret"],
    )
    printed = new_output("stream", text="the test printed this\n")
    cell = new_code_cell(
        source,
        metadata={"nbgrader": {"grade": True, "grade_id": "t", "points": 2, "score": 0}},
        outputs=[printed, error],
    )
    leak = new_code_cell(
        "print(In[-2])",
        outputs=[new_output("stream", text='kept\nassert f(41) == 42, "secret"\n')],
    )
    notebook = new_notebook(cells=[cell, leak])
    preprocessors.HideHiddenTests().preprocess(notebook, {})
    test, other = notebook.cells
    assert "f(41)" not in test.source and "assert f(1) == 2" in test.source
    assert [o.text for o in test.outputs] == [
        "failed (0 of 2 points): AssertionError: expected 42\n"
    ]
    assert other.outputs[0].text == "kept\n", (
        "a hidden-test line printed by the student's code is removed"
    )
    passed = new_code_cell(
        "assert True",
        metadata={"nbgrader": {"grade": True, "grade_id": "u", "points": 1, "score": 1}},
        outputs=[printed.copy()],
    )
    assert run_preprocessor(preprocessors.HideHiddenTests(), passed).outputs[0].text == (
        "passed (1 of 1 points)\n"
    )


# --- nbgrader set-up --------------------------------------------------------------------


def test_in_process_alembic_head_matches_alembic_heads():
    from nbgrader.dbutil import _temp_alembic_ini

    with _temp_alembic_ini("sqlite:////tmp/unused.db") as ini:
        printed = subprocess.run(
            [str(Path(sys.executable).parent / "alembic"), "-c", ini, "heads"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    assert nbgrader_course.alembic_head() == printed.split()[0]


def test_startup_blocks_only_the_slow_format_checker():
    code = (
        "import autograder, sys, nbformat, jsonschema\n"
        "print(sys.modules['rfc3987_syntax'] is None, 'iri' in jsonschema.FormatChecker().checkers,"
        " 'uri' in jsonschema.FormatChecker().checkers)\n"
        "nbformat.validate(nbformat.v4.new_notebook())"
    )
    printed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert printed == ["True", "False", "True"]


def test_course_config_hardens_grading_over_the_repo_config():
    repo_config = course.load_repo_config(REPO_ROOT)
    config = course.nbgrader_config(
        Path("/tmp/c"), "hw", course.Settings(cell_timeout=7), repo_config
    )
    assert (
        config.CourseDirectory.root == "/tmp/c"
        and config.CourseDirectory.db_url == "sqlite:////tmp/c/gradebook.db"
    )
    assert config.OverwriteCells.add_missing_cells is True and config.IgnorePattern.enabled is True
    assert config.Execute.timeout == 7 and config.Exchange.root == "/tmp/c/exchange"
    assert preprocessors.GuardedExecute in config.Autograde.autograde_preprocessors


def test_guarded_imports_are_the_windowmem_modules_a_notebook_imports():
    source = json.loads(
        (REPO_ROOT / "source" / "lesson03_window_buffer" / "window_buffer.ipynb").read_text()
    )
    code = "\n".join("".join(c["source"]) for c in source["cells"] if c["cell_type"] == "code")
    found = set().union(*(course.guarded_imports(block) for block in code.split("\n\n")))
    assert found and all(name.startswith("windowmem") for name in found)


# --- reports ----------------------------------------------------------------------------


def rows() -> list[GradeRow]:
    cells = lambda a, b: (CellScore("q1", a, 2.0), CellScore("q2", b, 1.0))  # noqa: E731
    return [
        GradeRow("bo", "hw", "nb", 3.0, 3.0, "graded", "", cells(2.0, 1.0)),
        GradeRow("al", "hw", "nb", 1.0, 3.0, "timed_out", "", cells(0.0, 1.0)),
        GradeRow("cy", "hw", "nb", None, 3.0, "malformed", "not JSON"),
    ]


def test_question_summary_means_and_failure_rates():
    summary = report.question_summary(rows()).set_index("question")
    assert summary.loc["q1", ["max_score", "students", "mean_score", "failure_rate"]].tolist() == [
        2.0,
        2,
        1.0,
        0.5,
    ]
    assert summary.loc["q2", ["mean_score", "failure_rate"]].tolist() == [1.0, 0.0]


def test_reports_are_written(tmp_path):
    paths = report.write_reports(rows(), tmp_path)
    lines = paths["grades"].read_text().splitlines()
    assert lines[0] == "student_id,assignment,notebook,score,max_score,status,detail"
    assert lines[1].startswith("al,") and lines[3] == "cy,hw,nb,,3.0,malformed,not JSON"
    assert paths["histogram"].read_bytes()[:4] == b"\x89PNG"


def test_a_row_needs_a_known_status():
    with pytest.raises(ValueError, match="status must be one of"):
        GradeRow("a", "hw", "nb", 0.0, 1.0, "zero", "")


# --- command line -----------------------------------------------------------------------


def test_cli_rejects_bad_input_with_a_message(tmp_path, capsys):
    (tmp_path / "class").mkdir()
    assert cli.main(["grade", "hw", "--submissions", str(tmp_path / "class"), "--jobs", "0"]) == 2
    assert "--jobs must be at least 1, got 0" in capsys.readouterr().err
    assert (
        cli.main(["grade", "hw", "--submissions", str(tmp_path / "class"), "--timeout", "0"]) == 2
    )
    assert "--timeout must be at least 1" in capsys.readouterr().err
    (tmp_path / "grades.txt").write_text("")
    assert (
        cli.main(
            [
                "grade",
                "lesson03_window_buffer",
                "--submissions",
                str(tmp_path / "grades.txt"),
                "--repo",
                str(REPO_ROOT),
            ]
        )
        == 2
    )
    assert "not a .zip" in capsys.readouterr().err
    assert (
        cli.main(
            [
                "grade",
                "no_such_assignment",
                "--submissions",
                str(tmp_path / "class"),
                "--repo",
                str(REPO_ROOT),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "available: " in err and "lesson03_window_buffer" in err.split("available: ")[1]
    inside = [
        "grade",
        "lesson03_window_buffer",
        "--submissions",
        str(tmp_path / "class"),
        "--out",
        str(tmp_path / "class" / "o"),
    ]
    assert cli.main([*inside, "--repo", str(REPO_ROOT)]) == 2
    assert "inside --submissions" in capsys.readouterr().err


# --- the sandbox, safe writes and hostile input ------------------------------------------


def test_kernel_command_isolates_and_drops_privileges(tmp_path):
    from autograder import sandbox

    group = sandbox.StudentCgroup("x", (tmp_path / "memory", tmp_path / "pids"))
    notebook = tmp_path / "nb.ipynb"
    argv = sandbox.kernel_command(
        ["python", "-m", "ipykernel_launcher"],
        group,
        sandbox.SandboxLimits(),
        home_files=[notebook],
        ipc_dir=tmp_path / "ipc",
        assignment="hw",
    )
    for flag in ("--unshare-pid", "--unshare-net", "--die-with-parent", "--clearenv"):
        assert flag in argv
    assert argv[argv.index("--reuid=65534") - 1] == "setpriv" and "--no-new-privs" in argv
    assert ["--ro-bind", str(notebook), "/home/student/hw/nb.ipynb"] == argv[
        argv.index(str(notebook)) - 1 : argv.index(str(notebook)) + 2
    ]
    shown = {argv[i + 1] for i, a in enumerate(argv) if a in ("--ro-bind", "--bind")}
    assert not any(Path(p).is_relative_to(REPO_ROOT / "source") for p in shown)
    assert str(REPO_ROOT) not in shown and "/root" not in shown and "/work" not in shown


def test_grade_refuses_without_a_sandbox_and_says_how_to_proceed(tmp_path, capsys, monkeypatch):
    from autograder import sandbox

    monkeypatch.setattr(sandbox, "unavailable", lambda: "'bwrap' is not installed")
    (tmp_path / "class").mkdir()
    argv = ["grade", "lesson03_window_buffer", "--submissions", str(tmp_path / "class")]
    assert cli.main([*argv, "--repo", str(REPO_ROOT), "--out", str(tmp_path / "o")]) == 2
    error = capsys.readouterr().err
    assert "'bwrap' is not installed" in error and "--no-sandbox" in error
    assert cli.main([*argv, "--pids-limit", "3"]) == 2
    assert "--pids-limit 3 is too low" in capsys.readouterr().err


def test_reports_replace_links_instead_of_following_them(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary").symlink_to(outside, target_is_directory=True)
    (out / "grades.csv").symlink_to(outside / "grades.csv")
    report.write_reports(rows(), out)
    assert list(outside.iterdir()) == []
    assert not (out / "summary").is_symlink() and (out / "summary" / "questions.csv").is_file()
    assert not (out / "grades.csv").is_symlink()


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


def test_a_forged_score_is_clamped_to_the_cells_points():
    from autograder.gradebook import clamp

    assert (clamp(1e9, 2.0), clamp(-1.0, 2.0), clamp(None, 2.0)) == (2.0, 0.0, None)


def test_zip_members_that_escape_are_refused_for_the_right_student():
    import zipfile

    from nbgrader.plugins import FileNameCollectorPlugin

    from autograder import zipinput

    collector = FileNameCollectorPlugin(named_regexp=zipinput.layout_regexp("hw"))
    known = {"alice", "bob"}
    climb = zipinput.member_problem(zipfile.ZipInfo("dl/alice/../bob/hw/a.ipynb"))
    assert "'..'" in climb
    assert zipinput._owner("dl/alice/../bob/hw/a.ipynb", climb, known, collector) == "alice"
    absolute = zipinput.member_problem(zipfile.ZipInfo("/bob/hw/a.ipynb"))
    assert zipinput._owner("/bob/hw/a.ipynb", absolute, known, collector) is None
    link = zipfile.ZipInfo("dl/alice/hw/a.ipynb")
    link.external_attr = 0o120777 << 16
    assert "symbolic link" in zipinput.member_problem(link)
    assert zipinput.member_problem(zipfile.ZipInfo("dl/alice/hw/a.ipynb")) is None


def test_worker_outcome_round_trips_and_rejects_garbage(tmp_path):
    from autograder.outcome import CellTimeout, ExecutionReport, StepResult, WorkerOutcome

    outcome = WorkerOutcome(
        StepResult(True, "log"),
        None,
        None,
        {"autograde": 1.5},
        (),
        {"nb": ExecutionReport((CellTimeout("cell 'a'", 20.0),), restored=("builtins.sum",))},
    )
    outcome.write(tmp_path / "r.json")
    assert WorkerOutcome.read(tmp_path / "r.json") == outcome
    (tmp_path / "bad.json").write_text('{"autograde": 3}')
    assert WorkerOutcome.read(tmp_path / "bad.json") is None
    assert WorkerOutcome.read(tmp_path / "missing.json") is None
