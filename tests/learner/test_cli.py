"""windowmem-course: the installed course copied into a working folder, then JupyterLab there.

The wheel installed in a fresh venv, and its JupyterLab answering, are in
tests/course_setup/test_course_wheel.py; here the command runs on the clone's course.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO_ROOT, course_files_status
from windowmem.learner import cli, lab
from windowmem.learner.working_copy import NOT_COPIED, RECORD, report, sources, update


def test_copy_only_makes_my_course_in_the_current_folder_and_leaves_the_clone(
    tmp_path, monkeypatch, capsys
):
    before = course_files_status()
    monkeypatch.chdir(tmp_path)
    assert cli.main(["--copy-only"]) == 0
    out = capsys.readouterr().out
    work = tmp_path / "my_course"
    assert f"setup: your working copy is {work}" in out
    assert (work / "00_start_here.ipynb").is_file()
    assert (work / "assignments" / "lesson03_window_buffer" / "window_buffer.ipynb").is_file()
    copied = json.loads((work / RECORD).read_text())
    assert not [name for name in copied if NOT_COPIED.intersection(name.split("/"))]
    assert course_files_status() == before
    assert cli.main(["--copy-only"]) == 0 and "copied" not in capsys.readouterr().out


def test_a_wheels_package_folders_and_module_are_not_lessons(tmp_path):
    course, release = tmp_path / "windowmem_course", tmp_path / "windowmem_course" / "assignments"
    for path in (
        course / "__init__.py",
        course / "03_lesson.ipynb",
        course / "checks" / "lesson03.py",
        course / "jupyter" / "labconfig" / "page_config.json",
        release / "lesson03" / "window.ipynb",
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    assert [name for _, name in sources(course, release)] == [
        "03_lesson.ipynb",
        "assignments/lesson03/window.ipynb",
    ]


def test_a_kept_lesson_names_the_command_to_run_again(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / "03_lesson.ipynb").write_text("v1")
    work = tmp_path / "work"
    update(work, course, tmp_path / "none")
    (work / "03_lesson.ipynb").write_text("mine")
    (course / "03_lesson.ipynb").write_text("v2")
    (line,) = report(update(work, course, tmp_path / "none"), work)
    assert line.endswith("rename work/03_lesson.ipynb and run windowmem-course again.")


def test_without_jupyterlab_it_says_which_extra_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "find_jupyter", lambda: None)
    assert cli.main([]) == cli.NOT_INSTALLED
    assert "pip install 'windowmem[course]'" in capsys.readouterr().err


def test_it_execs_jupyter_lab_on_the_start_page_with_the_learner_configuration(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "trust", lambda notebook: None)
    monkeypatch.setattr(cli, "find_jupyter", lambda: "/venv/bin/jupyter")
    ran = {}

    def execve(program, command, env):
        ran.update(program=program, command=command, env=env)
        raise SystemExit(0)

    monkeypatch.setattr("os.execve", execve)
    with pytest.raises(SystemExit):
        cli.main(["--work", "w", "--no-browser", "--port=8890"])
    assert ran["command"][:4] == [
        "/venv/bin/jupyter",
        "lab",
        f"--ServerApp.root_dir={tmp_path / 'w'}",
        "--LabApp.default_url=/lab/tree/00_start_here.ipynb",
    ]
    assert ran["command"][-2:] == ["--no-browser", "--port=8890"]
    config = str(REPO_ROOT / "learner_jupyter")
    assert ran["env"]["JUPYTER_CONFIG_PATH"].split(":")[0] == config
    assert ran["env"]["JUPYTER_PATH"].split(":")[0] == config


def test_the_environment_puts_the_configuration_first_and_keeps_the_rest(tmp_path):
    env = lab.lab_environment({"JUPYTER_PATH": "/elsewhere", "HOME": "/h"}, tmp_path)
    assert env["JUPYTER_PATH"] == f"{tmp_path}:/elsewhere"
    assert env["JUPYTER_CONFIG_PATH"] == str(tmp_path) and env["HOME"] == "/h"
    assert "PYTHONPATH" not in env
