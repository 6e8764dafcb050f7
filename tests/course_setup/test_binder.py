"""binder/: what repo2docker runs after installing the course (postBuild) and before JupyterLab (start).

repo2docker itself needs Docker; here the two scripts run with this venv first on PATH, as the
image's environment is. That binder/requirements.txt resolves to the course runtime alone is
checked in tests/course_setup/test_student_edition.py, on the edition that carries it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.slow

BINDER = REPO_ROOT / "binder"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    return {**env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"}


def test_post_build_makes_the_working_copy_binder_links_open(tmp_path):
    done = subprocess.run(
        ["bash", str(BINDER / "postBuild")],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "my_course" / "00_start_here.ipynb").is_file()
    assert (tmp_path / "my_course" / "assignments" / "lesson03_window_buffer").is_dir()


def test_start_puts_the_learners_configuration_first_then_runs_the_command(tmp_path):
    env = {**_env(), "JUPYTER_PATH": "/elsewhere"}
    done = subprocess.run(
        ["bash", str(BINDER / "start"), "env"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    seen = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    config = str(REPO_ROOT / "learner_jupyter")
    assert seen["JUPYTER_CONFIG_PATH"] == config
    assert seen["JUPYTER_PATH"] == f"{config}:/elsewhere"
