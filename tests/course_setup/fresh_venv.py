"""A fresh venv with the course's runtime, a wheel of windowmem installed in it, a notebook run there.

The course tests install windowmem as a learner does, away from the repository: a venv made
for the test, the course's dependencies installed into it by pip (from pip's cache and the
local package index, as ``make course`` does), then the wheel with ``--no-deps``. Nothing in
it sees the repository: its notebooks run from a folder outside it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import REPO_ROOT

RUNNER = Path(__file__).with_name("run_notebook.py")


def course_requirements(
    pyproject: Path = REPO_ROOT / "pyproject.toml", extras: tuple[str, ...] = ("course",)
) -> list[str]:
    """windowmem's own dependencies and its *extras*' (the course extra's by default), as
    pyproject.toml states them."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    return [*project["dependencies"]] + [
        r for extra in extras for r in project["optional-dependencies"][extra]
    ]


@dataclass(frozen=True)
class Venv:
    """A venv made for a test: its folder and how long pip took to install the course's runtime."""

    root: Path
    install_seconds: float

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    def env(self, data_dir: Path) -> dict[str, str]:
        """An environment in which this venv comes first and Jupyter's user folders are *data_dir*'s."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "PYTHON"))}
        return {
            **env,
            "PATH": f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}",
            "JUPYTER_DATA_DIR": str(data_dir / "data"),
            "JUPYTER_CONFIG_DIR": str(data_dir / "config"),
            "JUPYTER_RUNTIME_DIR": str(data_dir / "runtime"),
            "IPYTHONDIR": str(data_dir / "ipython"),
        }

    def pip(self, *args: str) -> None:
        subprocess.run(
            [str(self.python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *args],
            check=True,
            capture_output=True,
            text=True,
        )


def make_course_venv(root: Path) -> Venv:
    """A new venv at *root* with windowmem's course runtime installed, windowmem itself not."""
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    started = time.monotonic()
    venv = Venv(root, 0.0)
    venv.pip(*course_requirements())
    return Venv(root, time.monotonic() - started)


def build_wheel(project: Path, out: Path) -> Path:
    """The wheel pip builds from *project* into *out*, as a learner's ``pip install`` would."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(project), "-w", str(out)],
        check=True,
        capture_output=True,
        text=True,
    )
    (wheel,) = out.glob("windowmem-*.whl")
    return wheel


def run_notebook(venv: Venv, notebook: Path, cwd: Path, data_dir: Path) -> dict:
    """Run *notebook* in *venv*'s kernel from *cwd*: ``{"error": None}`` or the first error."""
    done = subprocess.run(
        [str(venv.python), str(RUNNER), str(notebook), str(cwd)],
        cwd=cwd,
        env=venv.env(data_dir),
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
