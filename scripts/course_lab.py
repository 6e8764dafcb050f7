"""Open the learner's working copy of the clone's course in JupyterLab, on the start page, quietly.

Usage: ``.venv/bin/python scripts/course_lab.py [--work DIR] [JUPYTER LAB OPTIONS...]``
(``make course`` runs it; default ``my_course``).

It is ``windowmem-course`` (:mod:`windowmem.learner`) for a clone: it brings the working copy
up to date from ``course/`` and ``release/`` (``scripts/working_copy.py``), then replaces
itself with ``jupyter lab`` serving that folder with ``learner_jupyter/`` on
``JUPYTER_CONFIG_PATH`` and ``JUPYTER_PATH`` (its README says why each setting is there),
and with ``course/`` on ``PYTHONPATH``, so a lesson that still says
``from checks.lesson03 import check`` finds the clone's self-checks (the lessons import
``windowmem_course.checks``, which the editable install maps to the same ``course/checks``).
The notebooks it copies are signed as trusted (they are the course's own outputs).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import working_copy  # noqa: E402

from windowmem.learner import lab  # noqa: E402
from windowmem.learner.lab import lab_command, trust  # noqa: E402, F401

#: The learner's Jupyter configuration, shipped with the course.
LEARNER_CONFIG = REPO / "learner_jupyter"


def lab_environment(environ: dict[str, str]) -> dict[str, str]:
    """*environ* with the learner's Jupyter configuration and the clone's checks on the paths."""
    return lab.lab_environment(environ, LEARNER_CONFIG, REPO / "course")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--work", type=Path, default=working_copy.DEFAULT_WORK)
    args, extra = parser.parse_known_args(argv)
    work = args.work.resolve()
    for line in working_copy.report(working_copy.update(work, trust=trust), work):
        print(line)
    jupyter = lab.find_jupyter()
    if jupyter is None:
        print(
            f"setup: no jupyter beside {sys.executable}: run make clean-venv, then make course",
            file=sys.stderr,
        )
        return 1
    print(lab.opening_message(work), flush=True)
    command = lab_command(work, extra, jupyter)
    os.execve(command[0], command, lab_environment(dict(os.environ)))
    return 0  # not reached: exec replaces this process


if __name__ == "__main__":
    raise SystemExit(main())
