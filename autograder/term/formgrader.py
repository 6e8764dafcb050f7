"""Open JupyterLab on a graded course, where nbgrader's formgrader takes the hand grades.

nbgrader's formgrader reads ``nbgrader_config.py`` from the folder the server starts in
and needs the course root inside the server's root, so JupyterLab is started in
``OUT/course`` with its root there. In JupyterLab the grader opens *Nbgrader >
Formgrader* (or goes to ``/formgrader``), then *Manual Grading*.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from autograder.errors import GradingSetupError
from autograder.term.course_config import CONFIG_NAME, update_moved_classes


def course_root(out: Path, *, server_gradebook: bool = False) -> Path:
    """``OUT/course`` when it is a course the autograder wrote, else a GradingSetupError saying what to do.

    With *server_gradebook* (or ``NBGRADER_DB_URL`` set) no local gradebook is needed.
    """
    root = out / "course" if (out / "course").is_dir() else out
    missing = [name for name in (CONFIG_NAME, "gradebook.db") if not (root / name).is_file()]
    remote = server_gradebook or bool(os.environ.get("NBGRADER_DB_URL"))
    if missing and not (missing == ["gradebook.db"] and remote):
        raise GradingSetupError(
            f"{root} has no {' or '.join(missing)}: give the --out folder of "
            "`python -m autograder grade` (run grade once first)"
        )
    update_moved_classes(root)
    return root.resolve()


def lab_command(
    root: Path,
    *,
    port: int = 8888,
    ip: str = "127.0.0.1",
    open_browser: bool = True,
    extra: Sequence[str] = (),
) -> list[str]:
    """The ``jupyter lab`` command line serving the course at *root* (run it with cwd=root)."""
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={root}",
        f"--ServerApp.ip={ip}",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--LabApp.news_url=None",
    ]
    if not open_browser:
        command.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    return [*command, *extra]


def lab_environment() -> dict[str, str]:
    """This environment, with the interpreter's ``bin/`` first (nbgrader calls ``alembic`` through PATH)."""
    bin_dir = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", "")])}


def open_formgrader(out: Path, **options) -> int:
    """Run JupyterLab on ``OUT/course`` until it is stopped; its exit status."""
    import subprocess

    root = course_root(out)
    command = lab_command(root, **options)
    port = options.get("port", 8888)
    print(
        f"formgrader for {root}: http://{options.get('ip', '127.0.0.1')}:{port}/formgrader "
        "(in JupyterLab: Nbgrader > Formgrader); stop with Ctrl-C",
        file=sys.stderr,
    )
    return subprocess.call(command, cwd=root, env=lab_environment())
