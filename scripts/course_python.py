"""Check the Python a set-up builds on, and repair the ``.venv`` an earlier run left, before installing.

Usage: ``python3 scripts/course_python.py [--python CMD] [--venv DIR]`` (every ``make``
target that installs runs it first).

It asks *CMD* (default ``python3``) for its version and refuses one older than 3.11; it
rebuilds a ``.venv`` that has no pip (made while Debian's ``python3-venv`` was missing),
whose Python is too old, or whose Python no longer runs; and it makes a missing ``.venv``
and checks that pip is in it. Whatever fails is said with the one command that fixes it,
on stderr, with exit status 1. It probes *CMD* in a child process, so it runs on whatever
``python3`` the machine has (3.7 or newer) and a test can hand it a stand-in.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: The oldest Python the project supports (pyproject.toml's requires-python).
MINIMUM = (3, 11)
#: Newer Pythons a machine may have beside an old default python3, newest first.
NEWER = ("python3.14", "python3.13", "python3.12", "python3.11")
#: What the probe asks an interpreter: its version and where it lives.
PROBE = "import sys; print(sys.version_info[0], sys.version_info[1], sys.executable)"


class SetupError(Exception):
    """What stopped the set-up, written for the learner, with the command that fixes it."""


@dataclass(frozen=True)
class Interpreter:
    """A Python found by running it: its *version* (major, minor) and *executable*."""

    version: tuple[int, int]
    executable: str

    @property
    def name(self) -> str:
        """``Python 3.11``."""
        return "Python {}.{}".format(*self.version)


def probe(command: str) -> Interpreter | None:
    """Run *command* as Python and read its version, or None if it does not run as one."""
    try:
        result = subprocess.run(
            [command, "-c", PROBE], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    fields = result.stdout.split(maxsplit=2)
    if result.returncode != 0 or len(fields) != 3 or not all(f.isdigit() for f in fields[:2]):
        return None
    return Interpreter((int(fields[0]), int(fields[1])), fields[2].strip())


def _sudo() -> str:
    """``sudo `` unless this is root already (a container, CI)."""
    return "" if hasattr(os, "geteuid") and os.geteuid() == 0 else "sudo "


def too_old(command: str, found: Interpreter) -> str:
    """The message for a Python older than MINIMUM, naming a newer one on PATH where there is one."""
    wanted = "{}.{}".format(*MINIMUM)
    message = f"{command} is {found.name} ({found.executable}); the course needs Python {wanted} or newer."
    for candidate in NEWER:
        newer = probe(candidate) if shutil.which(candidate) else None
        if newer and newer.version >= MINIMUM:
            return f"{message}\n{newer.name} is installed: run  make course PYTHON={candidate}"
    return (
        f"{message}\nInstall it, then run make again with it:  "
        f"{_sudo()}apt-get install python{wanted}-venv && make course PYTHON=python{wanted}"
        f"\n(On Ubuntu 20.04 and older, python{wanted} comes from the deadsnakes PPA.)"
    )


def check_interpreter(command: str) -> Interpreter:
    """The interpreter *command* runs, if it is new enough; else SetupError saying what to do."""
    found = probe(command)
    if found is None:
        raise SetupError(
            f"{command} does not run (or is not Python). Install Python 3 with its venv module:  "
            f"{_sudo()}apt-get install python3 python3-venv"
        )
    if found.version < MINIMUM:
        raise SetupError(too_old(command, found))
    return found


def venv_problem(venv: Path) -> str | None:
    """Why the existing *venv* cannot be used (its Python, its pip), or None if it can or is absent."""
    if not venv.exists():
        return None
    python = venv / "bin" / "python"
    if not python.exists():
        return "has no bin/python"
    found = probe(str(python))
    if found is None:
        return "has a Python that no longer runs (was the Python it was made with removed?)"
    if found.version < MINIMUM:
        return "was made with {}, older than the {}.{} the course needs".format(
            found.name, *MINIMUM
        )
    pip = subprocess.run(
        [str(python), "-m", "pip", "--version"], capture_output=True, timeout=120, check=False
    )
    if pip.returncode != 0:
        return "has no pip (it was made while Python's venv module was missing)"
    return None


def create_venv(command: str, found: Interpreter, venv: Path) -> None:
    """Make *venv* with *command* and check pip is in it; remove what a failed attempt left."""
    result = subprocess.run(
        [command, "-m", "venv", str(venv)], capture_output=True, text=True, check=False
    )
    problem = venv_problem(venv) if result.returncode == 0 else "could not be made"
    if problem is None:
        return
    shutil.rmtree(venv, ignore_errors=True)
    # Debian's message spans lines and ends with the failing command: quote its first sentence.
    said = " ".join((result.stderr or result.stdout).split()).split(". ")[0]
    detail = f" ({command} said: {said})" if said else ""
    package = "python{}.{}-venv".format(*found.version)
    raise SetupError(
        f"{command} -m venv cannot make a virtual environment with pip here{detail}.\n"
        f"Install Python's venv module, then run make again:  {_sudo()}apt-get install {package}"
    )


def prepare(command: str, venv: Path, say: Callable[[str], None] = print) -> None:
    """Check *command*, rebuild or make *venv*; *say* tells the learner each step."""
    found = check_interpreter(command)
    problem = venv_problem(venv)
    if problem:
        say(f"setup: {venv.name} {problem}: removing it and making it again.")
        shutil.rmtree(venv)
    if not venv.exists():
        say(f"setup: making {venv.name} with {found.name} ({found.executable}), a few seconds.")
        create_venv(command, found, venv)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default="python3", help="the Python to build on")
    parser.add_argument("--venv", type=Path, default=Path(".venv"), help="the venv folder")
    args = parser.parse_args(argv)
    try:
        prepare(args.python, args.venv)
    except SetupError as error:
        print(f"setup: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
