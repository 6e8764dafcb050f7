"""Where the installed course's files are: the lessons, the assignments, the learner's Jupyter setup.

The course is the package ``windowmem_course`` (built from the repository's ``course/``, see
``setup.py``). In a wheel, the student assignments and the learner's Jupyter configuration
are inside it (``assignments/``, ``jupyter/``); in a clone installed with ``pip install -e .``
they stay where the repository keeps them, ``release/`` and ``learner_jupyter/`` beside
``course/``. Each function here answers for both.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from windowmem.errors import WindowMemError

#: The package the course is installed as.
COURSE_PACKAGE = "windowmem_course"
#: The page JupyterLab opens first.
START_PAGE = "00_start_here.ipynb"


class CourseNotInstalled(WindowMemError):
    """The ``windowmem_course`` package, or one of its folders, is missing from this Python."""


@dataclass(frozen=True)
class CourseFiles:
    """The three folders the learner's copy is made from, and how they are laid out."""

    lessons: Path
    assignments: Path
    jupyter: Path


def course_root() -> Path:
    """The folder of the installed ``windowmem_course`` package (``course/`` in a clone)."""
    spec = importlib.util.find_spec(COURSE_PACKAGE)
    if spec is None or spec.origin is None:
        raise CourseNotInstalled(
            f"the course package {COURSE_PACKAGE} is not installed in this Python: "
            "install windowmem with its course (pip install 'windowmem[course]'), "
            "or from a clone: pip install -e '.[course]'"
        )
    return Path(spec.origin).resolve().parent


def _inside_or_beside(root: Path, packaged: str, in_clone: str) -> Path:
    for folder in (root / packaged, root.parent / in_clone):
        if folder.is_dir():
            return folder
    raise CourseNotInstalled(
        f"the course at {root} has no {packaged}/ (a wheel) and no ../{in_clone}/ (a clone): "
        "reinstall windowmem"
    )


def course_files(root: Path | None = None) -> CourseFiles:
    """The lessons, assignments and Jupyter configuration of the course at *root* (default: installed)."""
    root = course_root() if root is None else root
    return CourseFiles(
        lessons=root,
        assignments=_inside_or_beside(root, "assignments", "release"),
        jupyter=_inside_or_beside(root, "jupyter", "learner_jupyter"),
    )
