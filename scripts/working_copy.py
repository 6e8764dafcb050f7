"""The learner's working copy of the clone's course (``make course``): lessons and assignments copied once.

Usage: ``python scripts/working_copy.py [--work DIR]`` (``make course`` runs it through
``scripts/course_lab.py``; default ``my_course``, git-ignored).

The logic is the package's, :mod:`windowmem.learner.working_copy` (what ``windowmem-course``
runs for an installed course); this file gives it the clone's folders, ``course/`` and
``release/``, and says ``make course`` where the package says ``windowmem-course``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from windowmem.learner.working_copy import (  # noqa: F401  (this script's interface)
    NOT_COPIED,
    RECORD,
    Changes,
    checksum,
    sources,
)
from windowmem.learner.working_copy import report as _report
from windowmem.learner.working_copy import update as _update

REPO = Path(__file__).resolve().parents[1]
DEFAULT_WORK = REPO / "my_course"
#: The command that brings a clone's working copy up to date.
RERUN = "make course"


def update(
    work: Path,
    course: Path = REPO / "course",
    release: Path = REPO / "release",
    trust: Callable[[Path], None] | None = None,
) -> Changes:
    """Bring *work* up to date with the clone's *course* and *release* (see the package's update)."""
    return _update(work, course, release, trust)


def report(changes: Changes, work: Path) -> list[str]:
    """What to tell the learner about *changes* in *work*, naming ``make course``."""
    return _report(changes, work, RERUN)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--work", type=Path, default=DEFAULT_WORK, help="the working folder")
    args = parser.parse_args(argv)
    work = args.work.resolve()
    for line in report(update(work), work):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
