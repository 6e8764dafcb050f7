"""Opening formgrader on a graded course."""

from __future__ import annotations

import os

import pytest

from autograder import cli
from autograder.term import formgrader

# nbgrader's add_submission trips SQLAlchemy's autoflush warnings; nothing of ours
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")


def test_formgrader_refuses_a_folder_the_autograder_did_not_write(tmp_path, capsys):
    assert cli.main(["formgrader", str(tmp_path), "--no-browser"]) == 2
    assert "give the --out folder of `python -m autograder grade`" in capsys.readouterr().err


def test_lab_command_serves_the_course_root(tmp_path):
    command = formgrader.lab_command(tmp_path, port=9999, open_browser=False, extra=["--x=1"])
    assert f"--ServerApp.root_dir={tmp_path}" in command and "--ServerApp.port=9999" in command
    assert "--no-browser" in command and command[-1] == "--x=1"
    assert ("--allow-root" in command) == (os.geteuid() == 0)
