"""Release, collect and return through nbgrader's exchange, or as files for an LMS.

On a shared JupyterHub the exchange is a folder every user can reach (nbgrader's
default is ``/srv/nbgrader/exchange``): the instructor releases into it, students fetch
and submit from JupyterLab's Assignments tab, the instructor collects, and feedback goes
back the same way. Without a hub, :func:`release_zip` packs ``release/<assignment>`` for
an LMS upload, the LMS download (a zip) goes straight to ``grade --submissions``, and
:func:`feedback_files` lays the feedback out one folder per student for upload.

Every call runs nbgrader's own exchange classes (through ``NbGraderAPI``) with the
configuration given, and raises :class:`ExchangeError` with nbgrader's reason when one
fails.
"""

from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path

from traitlets.config import Config

from autograder.errors import GradingSetupError
from autograder.term.nbgrader_course import course_config, load_repo_config, prepare_nbgrader

#: Files of a released assignment a student never needs.
NOT_RELEASED = (".ipynb_checkpoints", "__pycache__", ".DS_Store")


class ExchangeError(GradingSetupError):
    """nbgrader's exchange refused a step; the message carries its reason."""


def _api(config: Config):
    prepare_nbgrader()
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    return NbGraderAPI(CourseDirectory(config=config), config=config)


def _check(result: dict, step: str) -> str:
    if not result or not result.get("success"):
        raise ExchangeError(
            f"nbgrader {step} failed: {(result or {}).get('error') or (result or {}).get('log')}"
        )
    return result.get("log") or ""


def exchange_config(
    root: Path, exchange: Path, course_id: str, db_url: str, base: Config | None = None
) -> Config:
    """*base* (or nothing) as a course at *root*, with the exchange at *exchange* and the gradebook at *db_url*."""
    config = course_config(root, base)
    config.CourseDirectory.course_id = course_id
    config.CourseDirectory.db_url = db_url
    config.Exchange.root = str(exchange)
    return config


def course_id_of(repo_root: Path) -> str:
    """The course id the repository's ``nbgrader_config.py`` names."""
    course_id = load_repo_config(repo_root).get("CourseDirectory", {}).get("course_id")
    if not course_id:
        raise GradingSetupError(
            f"{repo_root / 'nbgrader_config.py'} sets no CourseDirectory.course_id"
        )
    return str(course_id)


def release(assignment: str, repo_root: Path, exchange: Path, *, force: bool = False) -> str:
    """Put ``release/<assignment>`` of the repository in the exchange for students to fetch.

    nbgrader's release needs a gradebook only to exist; a throwaway one is used, so
    nothing is written into the repository.
    """
    if not (repo_root / "release" / assignment).is_dir():
        raise GradingSetupError(
            f"no {repo_root / 'release' / assignment}; run `make release` first"
        )
    with tempfile.TemporaryDirectory(prefix="release-gradebook-") as tmp:
        config = exchange_config(
            repo_root,
            exchange,
            course_id_of(repo_root),
            f"sqlite:///{Path(tmp) / 'gradebook.db'}",
            load_repo_config(repo_root),
        )
        config.ExchangeReleaseAssignment.force = force
        return _check(_api(config).release_assignment(assignment), "release_assignment")


def collect(assignment: str, exchange: Path, into: Path, course_id: str) -> Path:
    """Collect every student's latest submission from the exchange into ``into/submitted``.

    Returns the folder to give ``grade --submissions``. A second call takes newer
    submissions (a late one) and keeps the rest.
    """
    into.mkdir(parents=True, exist_ok=True)
    config = exchange_config(
        into, exchange, course_id, f"sqlite:///{into.resolve() / 'collect.db'}"
    )
    _check(_api(config).collect(assignment, update=True), "collect")
    return into / "submitted"


def release_zip(assignment: str, repo_root: Path, archive: Path) -> Path:
    """``release/<assignment>`` as one zip (``<assignment>/...`` inside) for an LMS upload."""
    folder = repo_root / "release" / assignment
    if not folder.is_dir():
        raise GradingSetupError(f"no {folder}; run `make release` first")
    archive.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not set(path.relative_to(folder).parts) & set(NOT_RELEASED):
                zipped.write(path, f"{assignment}/{path.relative_to(folder)}")
    return archive


def return_feedback(assignment: str, course_root: Path, config: Config, exchange: Path) -> str:
    """Release the feedback in ``course_root/feedback`` through the exchange (nbgrader release_feedback)."""
    config = exchange_config(
        course_root,
        exchange,
        str(config.CourseDirectory.course_id),
        str(config.CourseDirectory.db_url),
        config,
    )
    return _check(_api(config).release_feedback(assignment), "release_feedback")
