"""Stand-in ``python3`` commands for the set-up checks: shell scripts that answer as a Python would.

Each answers the version probe (``-c ...``) with the version it is given, and
``-m pip --version`` as a venv with or without pip would. ``-m venv DIR`` makes a venv
whose ``bin/python`` is a stand-in of the same version; without ``venv_has_pip`` it
fails as Debian's python3 does without ``python3-venv``: the folder is left behind, with
no pip in it, and the command says ensurepip is missing.
"""

from __future__ import annotations

import stat
from pathlib import Path

#: What Debian's python3 prints on `-m venv` without python3-venv (shortened).
NO_ENSUREPIP = (
    "The virtual environment was not created successfully because ensurepip is not\n"
    "available.  On Debian/Ubuntu systems, you need to install the python3-venv package"
)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def _script(version: tuple[int, int], has_pip: bool, make_venv: str) -> str:
    pip = "echo 'pip 24.0'; exit 0" if has_pip else "echo 'No module named pip' >&2; exit 1"
    # The test's PATH holds only stand-ins: the script finds mkdir and cp by its own.
    return f"""#!/bin/sh
PATH=/usr/bin:/bin
case "$1 $2" in
  "-c "*) echo "{version[0]} {version[1]} $0"; exit 0 ;;
  "-m pip") {pip} ;;
  "-m venv") {make_venv} ;;
esac
echo "fake python: unexpected arguments: $*" >&2
exit 3
"""


def venv_python(path: Path, version: tuple[int, int], *, has_pip: bool = True) -> Path:
    """A venv's ``bin/python`` stand-in at *path*: answers the probe, and pip if *has_pip*."""
    return _write(path, _script(version, has_pip, "exit 3"))


def fake_python(path: Path, version: tuple[int, int], *, venv_has_pip: bool = True) -> Path:
    """A system ``python3`` stand-in at *path* whose ``-m venv`` works if *venv_has_pip*."""
    inner = venv_python(path.with_name(path.name + "-in-venv"), version, has_pip=venv_has_pip)
    copy = f'mkdir -p "$3/bin" && cp "{inner}" "$3/bin/python"'
    if venv_has_pip:
        make_venv = f"{copy}; exit 0"
    else:
        message = NO_ENSUREPIP.replace("\n", " ")
        make_venv = f"{copy}; echo '{message}'; exit 1"
    return _write(path, _script(version, True, make_venv))
