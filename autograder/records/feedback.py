"""Feedback after the hand grades: regenerate it from the class gradebook, lay it out to return.

``grade`` writes feedback as soon as a notebook is autograded, before anyone has graded
by hand. Once the graders are done in formgrader, :func:`regenerate` runs nbgrader's
``generate_feedback`` again in ``OUT/course`` (with the course's own configuration, so
hidden tests stay hidden) and the pages carry the hand scores and comments.
:func:`feedback_files` copies them to ``OUT/return/<student_id>/<notebook>.html``, the
files to upload to an LMS; :func:`autograder.intake.exchange.return_feedback` releases them
through nbgrader's exchange instead.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from traitlets.config import Config

from autograder.term.course_config import load_course_config
from autograder.term.nbgrader_course import prepare_nbgrader


@dataclass(frozen=True)
class FeedbackResult:
    """Students whose feedback was written, and those for whom nbgrader failed (with why)."""

    written: tuple[str, ...]
    failed: tuple[tuple[str, str], ...]


def graded_students(course_root: Path, assignment: str) -> list[str]:
    """Students with an autograded copy of *assignment* in the course."""
    autograded = course_root / "autograded"
    if not autograded.is_dir():
        return []
    return sorted(p.name for p in autograded.iterdir() if (p / assignment).is_dir())


def regenerate(course_root: Path, assignment: str, config: Config | None = None) -> FeedbackResult:
    """Run nbgrader's generate_feedback for every autograded student, from the gradebook as it is now."""
    prepare_nbgrader()
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    config = config or load_course_config(course_root)
    api = NbGraderAPI(CourseDirectory(config=config), config=config)
    written, failed = [], []
    for student in graded_students(course_root, assignment):
        result = api.generate_feedback(assignment, student, force=True)
        if result.get("success"):
            written.append(student)
        else:
            failed.append((student, str(result.get("error") or result.get("log"))[-500:]))
    return FeedbackResult(tuple(written), tuple(failed))


def feedback_files(course_root: Path, assignment: str, into: Path) -> dict[str, list[Path]]:
    """Copy each student's feedback pages to ``into/<student_id>/``; the pages by student."""
    source = course_root / "feedback"
    pages: dict[str, list[Path]] = {}
    if into.exists():
        shutil.rmtree(into)
    for folder in sorted(source.glob(f"*/{assignment}")) if source.is_dir() else []:
        student = folder.parent.name
        for page in sorted(folder.glob("*.html")):
            target = into / student / page.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(page, target)
            pages.setdefault(student, []).append(target)
    return pages
