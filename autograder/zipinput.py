"""Turn an LMS zip download into nbgrader's submitted layout, with nbgrader's zip_collect plugins."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from autograder.errors import GradingSetupError


def layout_regexp(assignment: str) -> str:
    """Files already laid out as ``<student_id>/<assignment>/<notebook>.ipynb`` inside the zip."""
    return rf".*/(?P<student_id>[^/]+)/{re.escape(assignment)}/(?P<file_id>[^/]+\.ipynb)$"


def collect_zip(
    archive: Path, assignment: str, into: Path, named_regexp: str | None = None
) -> Path:
    """Extract *archive* and collect its notebooks as ``into/submitted/<student>/<assignment>/``.

    *named_regexp* is nbgrader's ``FileNameCollector.named_regexp`` (groups ``student_id``,
    ``file_id``, optional ``timestamp``), matched against each extracted file's path; the
    default accepts the submitted layout zipped as is.
    """
    from nbgrader.plugins import ExtractorPlugin, FileNameCollectorPlugin

    if into.exists():
        shutil.rmtree(into)
    downloaded, extracted, submitted = into / "archive", into / "extracted", into / "submitted"
    downloaded.mkdir(parents=True)
    shutil.copy2(archive, downloaded / archive.name)
    ExtractorPlugin().extract(str(downloaded), str(extracted))
    collector = FileNameCollectorPlugin(named_regexp=named_regexp or layout_regexp(assignment))
    collected = 0
    for path in sorted(
        p for p in extracted.rglob("*") if p.is_file() and "__MACOSX" not in p.parts
    ):
        info = collector.collect(str(path))
        if not info:
            continue
        target = submitted / info["student_id"] / assignment / Path(info["file_id"]).name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
        if info.get("timestamp"):
            (target.parent / "timestamp.txt").write_text(info["timestamp"])
        collected += 1
    if not collected:
        raise GradingSetupError(
            f"no notebooks in {archive} matched {collector.named_regexp!r}; give --zip-regexp with "
            "(?P<student_id>...) and (?P<file_id>...) groups for this LMS's file names"
        )
    return submitted
