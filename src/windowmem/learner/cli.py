"""The ``windowmem-course`` command: copy the course into a working folder and open it in JupyterLab.

::

    windowmem-course [--work DIR] [--copy-only] [JUPYTER LAB OPTIONS...]

It brings the working folder (default ``my_course`` in the current folder) up to date with
the installed course (:mod:`windowmem.learner.working_copy`: a lesson you worked in is never
overwritten), then replaces itself with ``jupyter lab`` serving that folder on the start
page, with the learner's configuration (:mod:`windowmem.learner.lab`). Options it does not
know go to ``jupyter lab`` (``--no-browser``, ``--port 8890``). ``--copy-only`` stops after
the copy. JupyterLab comes with the course extra: ``pip install 'windowmem[course]'``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from windowmem.errors import WindowMemError
from windowmem.learner.content import course_files
from windowmem.learner.lab import (
    find_jupyter,
    lab_command,
    lab_environment,
    opening_message,
    trust,
)
from windowmem.learner.working_copy import DEFAULT_WORK_NAME, report, update

#: Exit status when the course or JupyterLab is missing.
NOT_INSTALLED = 1


def parser() -> argparse.ArgumentParser:
    """The command line's options; whatever else is given goes to ``jupyter lab``."""
    p = argparse.ArgumentParser(
        prog="windowmem-course",
        description=(__doc__ or "").splitlines()[0],
        allow_abbrev=False,  # options it does not know go to jupyter lab, unshortened
    )
    p.add_argument(
        "--work",
        type=Path,
        default=Path(DEFAULT_WORK_NAME),
        help=f"the working folder (default: {DEFAULT_WORK_NAME} in the current folder)",
    )
    p.add_argument(
        "--copy-only", action="store_true", help="bring the working folder up to date and stop"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Copy the course into the working folder, then exec JupyterLab there (unless --copy-only)."""
    args, extra = parser().parse_known_args(argv)
    work = args.work.resolve()
    try:
        files = course_files()
    except WindowMemError as error:
        print(f"windowmem-course: {error}", file=sys.stderr)
        return NOT_INSTALLED
    sign = None if args.copy_only else trust
    for line in report(update(work, files.lessons, files.assignments, trust=sign), work):
        print(line)
    if args.copy_only:
        print(f"setup: your working copy is {work}")
        return 0
    jupyter = find_jupyter()
    if jupyter is None:
        print(
            f"windowmem-course: JupyterLab is not installed beside {sys.executable}: "
            "pip install 'windowmem[course]', then run windowmem-course again",
            file=sys.stderr,
        )
        return NOT_INSTALLED
    print(opening_message(work), flush=True)
    command = lab_command(work, extra, jupyter)
    os.execve(command[0], command, lab_environment(os.environ, files.jupyter))
    return 0  # not reached: exec replaces this process


if __name__ == "__main__":
    raise SystemExit(main())
