"""The course installed as a learner installs it: the wheel in a fresh venv, the course command, a lesson run.

One fresh venv for the module (the course's runtime from pip's cache and the local index,
then the wheel built from this repository with ``--no-deps``); everything runs from
folders outside the repository, so nothing can come from the clone.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.course_setup.fresh_venv import Venv, build_wheel, make_course_venv, run_notebook

pytestmark = pytest.mark.slow

LESSON = "03_window_buffer_memory.ipynb"
START_PAGE = "00_start_here.ipynb"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Venv:
    """A fresh venv with the course's runtime and this repository's wheel."""
    root = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(REPO_ROOT, root / "dist")
    venv = make_course_venv(root / "venv")
    print(f"course runtime installed in {venv.install_seconds:.0f} s")
    venv.pip("--no-deps", str(wheel))
    return venv


def test_the_wheel_carries_the_lessons_checks_assignments_and_learner_setup(installed):
    listed = subprocess.run(
        [
            str(installed.python),
            "-c",
            "import windowmem_course, windowmem.learner.content as c;"
            "f = c.course_files(); print(f.lessons); print(f.assignments); print(f.jupyter)",
        ],
        cwd=installed.root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    lessons, assignments, jupyter = map(Path, listed)
    assert installed.root in lessons.parents, "the course must come from the venv, not the clone"
    for name in sorted(p.name for p in (REPO_ROOT / "course").glob("*.ipynb")):
        assert (lessons / name).is_file(), name
    for check in (REPO_ROOT / "course" / "checks").glob("*.py"):
        assert (lessons / "checks" / check.name).is_file(), check.name
    assert sorted(p.relative_to(assignments) for p in assignments.rglob("*.ipynb")) == sorted(
        p.relative_to(REPO_ROOT / "release") for p in (REPO_ROOT / "release").rglob("*.ipynb")
    )
    assert (jupyter / "labextensions" / "@windowmem" / "lab" / "package.json").is_file()
    assert (jupyter / "labconfig" / "page_config.json").is_file()


def test_the_course_command_copies_the_course_into_the_folder_it_runs_from(installed, tmp_path):
    done = subprocess.run(
        [str(installed.bin / "windowmem-course"), "--copy-only"],
        cwd=tmp_path,
        env=installed.env(tmp_path / "jupyter"),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    work = tmp_path / "my_course"
    assert re.search(r"copied \d+ new files into my_course/", done.stdout), done.stdout
    assert (work / START_PAGE).is_file() and (work / "reference" / "glossary.ipynb").is_file()
    assert (work / "assignments" / "lesson03_window_buffer" / "window_buffer.ipynb").is_file()
    assert not {"checks", "jupyter", "__init__.py"} & {p.name for p in work.iterdir()}


def test_a_lesson_runs_in_the_working_copy_with_the_installed_checks(installed, tmp_path):
    subprocess.run(
        [str(installed.bin / "windowmem-course"), "--copy-only", "--work", "lessons"],
        cwd=tmp_path,
        env=installed.env(tmp_path / "jupyter"),
        check=True,
        capture_output=True,
    )
    outcome = run_notebook(
        installed, tmp_path / "lessons" / LESSON, tmp_path / "lessons", tmp_path / "jupyter"
    )
    assert outcome == {"error": None, "cell": None}, outcome


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode("utf-8")


def _redirected_to(url: str) -> str:
    """The address *url* ends at once the server's redirects are followed."""
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.url


def test_the_course_command_opens_the_start_page_with_the_learner_setup(installed, tmp_path):
    port, token = _free_port(), "course-wheel-test"
    log = (tmp_path / "lab.log").open("w")
    server = subprocess.Popen(
        [
            str(installed.bin / "windowmem-course"),
            "--no-browser",
            f"--port={port}",
            "--ip=127.0.0.1",
            f"--IdentityProvider.token={token}",
            f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
        ],
        cwd=tmp_path,
        env=installed.env(tmp_path / "jupyter"),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                status, _ = _get(f"{base}/api/status?token={token}")
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "lab.log").read_text()
                assert time.monotonic() < deadline, "JupyterLab did not answer in 120 s"
                time.sleep(0.5)
        status, page = _get(f"{base}/lab/tree/{START_PAGE}?token={token}")
        assert status == 200
        config = json.loads(
            re.search(r'id="jupyter-config-data"[^>]*>(.*?)</script>', page, re.S).group(1)
        )
        # The learner's settings: nbgrader's instructor tools off, the kernel-waiting executor on.
        assert "@jupyter/nbgrader:formgrader" in config["disabledExtensions"]
        assert "@windowmem/lab" in {e["name"] for e in config["federated_extensions"]}
        # The address JupyterLab prints (the server's root) opens the start page.
        assert _redirected_to(f"{base}/?token={token}").startswith(f"{base}/lab/tree/{START_PAGE}")
        status, body = _get(f"{base}/api/contents/{START_PAGE}?token={token}&content=0")
        assert status == 200 and json.loads(body)["type"] == "notebook"
        assert (tmp_path / "my_course" / START_PAGE).is_file()
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
