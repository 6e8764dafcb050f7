"""The hub's Python environment: the course installed as a hub administrator installs it.

Every user's server and kernels run the hub's interpreter as that user, so it and
everything it imports must be readable by every user. The test's own ``.venv`` may not
be: its interpreter can be a link into root's home (pyenv) and its ``windowmem`` an
editable install pointing into the clone. So the hub tier makes a venv from the system's
Python (Debian's ``/usr/bin/python3``) in a folder every user can read and installs this
repository into it, not editable, with the ``course`` and ``hub`` extras:
``pip install '.[course,hub]'``, which is what ``docs/jupyterhub.md`` tells an
instructor to run.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import REPO_ROOT
from tests.course_setup.fresh_venv import course_requirements

#: Interpreters every user can run, first found wins: the system's, then this one's.
CANDIDATES = ("/usr/bin/python3.11", "/usr/bin/python3")


def system_python() -> str:
    """A Python 3.11+ that every user can run (not under root's home), for the hub's venv."""
    for candidate in CANDIDATES:
        if os.access(candidate, os.X_OK) and _version_ok(candidate):
            return candidate
    raise RuntimeError(
        f"no Python 3.11+ that every user can run was found (looked for {', '.join(CANDIDATES)}): "
        "install it (apt-get install python3 python3-venv)"
    )


def _version_ok(python: str) -> bool:
    probe = subprocess.run(
        [python, "-c", "import sys, venv; print(sys.version_info >= (3, 11))"],
        capture_output=True,
        text=True,
    )
    return probe.stdout.strip() == "True"


#: Where the hub tier keeps its environment: readable by every user, outside any clone, kept
#: between runs (one per set of requirements and system Python), as n8n's install is.
ENVIRONMENTS = Path(os.environ.get("WINDOWMEM_HUB_ENVS") or "/var/tmp/windowmem-hub")
#: Written last into an environment whose dependencies installed completely.
COMPLETE = ".installed"


def hub_requirements() -> list[str]:
    """What ``pip install '.[course,hub]'`` installs besides windowmem, as pyproject.toml states it.

    >>> any(r.startswith("jupyterhub") for r in hub_requirements())
    True
    """
    return course_requirements(extras=("course", "hub"))


def environment_key(python: str) -> str:
    """What the environment depends on: the requirements it installs and the system Python's version.

    Only those: an edit elsewhere in pyproject.toml (the test tools, pytest's settings) keeps
    the environment, whose install takes minutes on a busy machine.
    """
    version = subprocess.run(
        [python, "-c", "import sys; print(sys.version)"], capture_output=True, text=True
    ).stdout
    digest = hashlib.sha256("\n".join([*hub_requirements(), version]).encode())
    return digest.hexdigest()[:12]


@contextlib.contextmanager
def hub_environment(timeout_s: float = 1800) -> Iterator[Path]:
    """The hub's ``python``, with this clone's windowmem installed; no other run changes it meanwhile.

    The dependencies are installed once per set of requirements (minutes on a busy machine);
    this clone's ``windowmem`` and ``autograder`` are installed afresh on every run (seconds).
    A lock keeps two runs from installing into the environment at once.
    """
    ENVIRONMENTS.mkdir(parents=True, exist_ok=True)
    ENVIRONMENTS.chmod(0o755)
    system = system_python()
    with open(ENVIRONMENTS / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        folder = ENVIRONMENTS / f"env-{environment_key(system)}"
        python = folder / "bin" / "python"
        if not (folder / COMPLETE).exists():
            for old in ENVIRONMENTS.glob("env-*"):
                shutil.rmtree(old, ignore_errors=True)
            subprocess.run([system, "-m", "venv", str(folder)], check=True, timeout=120)
            _pip_install(python, "[course,hub]", timeout_s)
            # the course's own quick start-up for Jupyter's tools (README.md), here too
            subprocess.run(
                [str(python), str(REPO_ROOT / "scripts" / "fast_jupyter_startup.py")],
                check=True,
                capture_output=True,
                timeout=120,
            )
            (folder / COMPLETE).touch()
        else:
            _pip_install(python, "", timeout_s, "--no-deps", "--force-reinstall")
        yield python


def _pip_install(python: Path, extras: str, timeout_s: float, *options: str) -> None:
    """``pip install`` this clone (a copy without its venv and git history) into *python*'s environment."""
    with tempfile.TemporaryDirectory(prefix="windowmem-hub-source-") as tmp:
        source = Path(tmp) / "windowmem"
        shutil.copytree(
            REPO_ROOT,
            source,
            ignore=shutil.ignore_patterns(
                ".venv", ".git", "_build", "my_course", "node_modules", "__pycache__", "*.egg-info"
            ),
        )
        installed = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", *options, f"{source}{extras}"],
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
    if installed.returncode != 0:
        raise RuntimeError(
            f"pip install of this clone into the hub's environment failed:\n{installed.stderr[-4000:]}"
        )
