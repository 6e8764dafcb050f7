"""scripts/course_python.py, run as make runs it, against stand-in pythons on PATH.

Each test gives the script a PATH holding only stand-ins (tests/course_setup/fakes.py), so
what it finds is what the test put there, whatever Pythons this machine has.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.course_setup.fakes import fake_python, venv_python

SCRIPT = REPO_ROOT / "scripts" / "course_python.py"


def run(tmp_path: Path, *, python: str = "python3") -> subprocess.CompletedProcess:
    """The check, as `make` runs it, in *tmp_path* with only tmp_path/bin on PATH."""
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--python", python, "--venv", ".venv"],
        cwd=tmp_path,
        env={"PATH": str(tmp_path / "bin")},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    (tmp_path / "bin").mkdir()
    return tmp_path / "bin"


def test_python_3_10_is_refused_with_the_install_command(tmp_path, bin_dir):
    fake_python(bin_dir / "python3", (3, 10))
    result = run(tmp_path)
    assert result.returncode == 1
    assert "python3 is Python 3.10" in result.stderr
    assert "needs Python 3.11 or newer" in result.stderr
    assert "apt-get install python3.11-venv && make course PYTHON=python3.11" in result.stderr
    assert not (tmp_path / ".venv").exists(), "nothing is made with a Python that is too old"


def test_an_old_python3_beside_a_new_one_names_the_new_one(tmp_path, bin_dir):
    fake_python(bin_dir / "python3", (3, 10))
    fake_python(bin_dir / "python3.12", (3, 12))
    result = run(tmp_path)
    assert result.returncode == 1
    assert "Python 3.12 is installed: run  make course PYTHON=python3.12" in result.stderr


def test_python3_without_venv_says_what_to_install_and_leaves_no_half_made_venv(tmp_path, bin_dir):
    fake_python(bin_dir / "python3", (3, 11), venv_has_pip=False)
    result = run(tmp_path)
    assert result.returncode == 1
    assert "python3 -m venv cannot make a virtual environment with pip here" in result.stderr
    assert "ensurepip is not available" in result.stderr, "what python3 said is quoted"
    assert "apt-get install python3.11-venv" in result.stderr
    assert not (tmp_path / ".venv").exists(), "the next run must not find a venv without pip"


def test_a_missing_python3_says_how_to_install_it(tmp_path, bin_dir):
    result = run(tmp_path)
    assert result.returncode == 1
    assert "python3 does not run" in result.stderr
    assert "apt-get install python3 python3-venv" in result.stderr


def test_a_venv_without_pip_is_rebuilt(tmp_path, bin_dir):
    fake_python(bin_dir / "python3", (3, 11))
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    venv_python(tmp_path / ".venv" / "bin" / "python", (3, 11), has_pip=False)
    (tmp_path / ".venv" / ".installed-course-1").touch()
    result = run(tmp_path)
    assert result.returncode == 0, result.stderr
    assert ".venv has no pip" in result.stdout and "making it again" in result.stdout
    assert not (tmp_path / ".venv" / ".installed-course-1").exists(), "the old venv is gone"
    check = subprocess.run([tmp_path / ".venv" / "bin" / "python", "-m", "pip", "--version"])
    assert check.returncode == 0, "the new venv has pip"


def test_a_venv_made_with_python_3_10_is_rebuilt_with_3_11(tmp_path, bin_dir):
    fake_python(bin_dir / "python3", (3, 11))
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    venv_python(tmp_path / ".venv" / "bin" / "python", (3, 10))
    result = run(tmp_path)
    assert result.returncode == 0, result.stderr
    assert "was made with Python 3.10" in result.stdout
    probe = subprocess.run(
        [tmp_path / ".venv" / "bin" / "python", "-c", "v"], capture_output=True, text=True
    )
    assert probe.stdout.split()[:2] == ["3", "11"]


def test_a_good_venv_is_kept_and_nothing_is_said(tmp_path, bin_dir):
    fake_python(bin_dir / "python3", (3, 11))
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    venv_python(tmp_path / ".venv" / "bin" / "python", (3, 12))
    (tmp_path / ".venv" / "kept").touch()
    result = run(tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert (tmp_path / ".venv" / "kept").exists()


@pytest.mark.slow
def test_a_real_venv_without_pip_is_made_again_with_pip(tmp_path, bin_dir):
    """The real thing: a venv made without pip, found out and made again by this Python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", tmp_path / ".venv"], check=True)
    result = run(tmp_path, python=sys.executable)
    assert result.returncode == 0, result.stderr
    assert ".venv has no pip" in result.stdout and "making .venv with Python 3." in result.stdout
    pip = subprocess.run([tmp_path / ".venv" / "bin" / "python", "-m", "pip", "--version"])
    assert pip.returncode == 0
