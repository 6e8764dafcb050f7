"""The command line refuses bad input with a message that says what to do."""

from __future__ import annotations

from autograder import cli
from autograder.sandbox import bubblewrap
from tests.conftest import REPO_ROOT


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


def test_grade_refuses_without_a_sandbox_and_says_how_to_proceed(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bubblewrap, "unavailable", lambda: "'bwrap' is not installed")
    (tmp_path / "class").mkdir()
    argv = ["grade", "lesson03_window_buffer", "--submissions", str(tmp_path / "class")]
    assert cli.main([*argv, "--repo", str(REPO_ROOT), "--out", str(tmp_path / "o")]) == 2
    error = capsys.readouterr().err
    assert "'bwrap' is not installed" in error and "--no-sandbox" in error
    assert cli.main([*argv, "--pids-limit", "3"]) == 2
    assert "--pids-limit 3 is too low" in capsys.readouterr().err
