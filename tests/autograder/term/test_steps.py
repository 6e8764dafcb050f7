"""The term's command-line steps refuse what they cannot do, with a clear message."""

from __future__ import annotations

import pytest

from autograder import cli

# nbgrader's add_submission trips SQLAlchemy's autoflush warnings; nothing of ours
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")


def test_options_after_double_dash_are_only_for_formgrader(capsys):
    assert cli.main(["export", "hw", "--out", "x", "--", "--port=1"]) == 2
    assert "unexpected arguments after --" in capsys.readouterr().err


def test_export_refuses_a_folder_the_autograder_did_not_write(tmp_path, capsys):
    assert cli.main(["export", "hw", "--out", str(tmp_path)]) == 2
    assert "run grade once first" in capsys.readouterr().err


def test_an_unreachable_server_gradebook_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "nbgrader_config.py").write_text("c = get_config()\n")
    url = "postgresql://nobody@127.0.0.1:1/none"
    assert cli.main(["export", "hw", "--out", str(tmp_path), "--db-url", url]) == 2
    error = capsys.readouterr().err
    assert (
        error.startswith("autograder export:") and "127.0.0.1" in error and "Traceback" not in error
    )
