"""The learner's working copy of the course: lessons and assignments copied once, the course left clean.

JupyterLab autosaves a notebook as soon as it runs, so a learner working in the course's own
folder (a clone's ``course/``, or the installed package) changes it, and the next ``git pull``
or upgrade conflicts or is lost. The learner works in a copy instead:

- each lesson notebook and each assignment notebook (under ``assignments/``) is copied the
  first time, and never overwritten once the learner has changed it; a copy the learner has
  not changed follows the course's newer version, and a changed one is kept, with a line
  saying how to take the new version;
- so are the glossary and the lessons' reference pages (copied to ``reference/``, where the
  lessons' links expect them);
- every other file beside them (the diagrams, an assignment's data) follows the course;
- the self-checks are not copied: the lessons import them from the installed package.

What was copied is recorded in ``DIR/.copied.json`` (file -> checksum of the course's
version), which is how "the learner has changed it" is told from "the course has".
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

#: The working folder's name, in the folder the command runs from (the site's run box names it).
DEFAULT_WORK_NAME = "my_course"
#: Where the record of copied files lives, inside the working folder.
RECORD = ".copied.json"
#: What stays in the course: the self-check package (imported from the installed package),
#: the catalogue the pages are generated from, the maintainers' notes, the package's own
#: module, and caches.
NOT_COPIED = {
    "checks",
    "lessons.json",
    "README.md",
    "__init__.py",
    "__pycache__",
    ".ipynb_checkpoints",
}
#: Folders at the top of an installed course that are not lessons: the assignments (copied
#: from their own folder) and the learner's Jupyter configuration.
PACKAGE_FOLDERS = {"assignments", "jupyter"}


@dataclass
class Changes:
    """What one update did: files *copied* (new), *updated* (followed the course), *kept*."""

    copied: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def checksum(path: Path) -> str:
    """The SHA-256 of *path*'s bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sources(course: Path, release: Path) -> Iterator[tuple[Path, str]]:
    """Each file to copy, with its place in the working folder (``assignments/...`` for *release*)."""
    for root, prefix in ((course, ""), (release, "assignments/")):
        for path in sorted(root.rglob("*")):
            parts = path.relative_to(root).parts
            if root is course and parts[0] in PACKAGE_FOLDERS:
                continue
            if path.is_file() and not NOT_COPIED.intersection(parts):
                yield path, prefix + "/".join(parts)


def update(
    work: Path,
    course: Path,
    release: Path,
    trust: Callable[[Path], None] | None = None,
) -> Changes:
    """Bring *work* up to date with *course* and *release* without losing a learner's change.

    *trust*, if given, is called on each notebook copied from the course (the lab signs it,
    so JupyterLab opens the course's own outputs as trusted).
    """
    record_path = work / RECORD
    record: dict[str, str] = (
        json.loads(record_path.read_text(encoding="utf-8")) if record_path.is_file() else {}
    )
    changes = Changes()
    for source, name in sources(course, release):
        target, theirs = work / name, checksum(source)
        if target.exists() and record.get(name) == theirs:
            continue
        learners = checksum(target) if target.is_file() else None
        if learners == theirs:  # the same bytes already: only the record was missing
            record[name] = theirs
            continue
        if target.suffix == ".ipynb" and learners and learners != record.get(name):
            changes.kept.append(name)
            continue
        (changes.updated if target.exists() else changes.copied).append(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        record[name] = theirs
        if trust and target.suffix == ".ipynb":
            trust(target)
    work.mkdir(parents=True, exist_ok=True)
    record_path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return changes


def report(changes: Changes, work: Path, rerun: str = "windowmem-course") -> list[str]:
    """What to tell the learner about *changes* in *work*, one line each; *rerun* is the command."""
    lines = []
    if changes.copied:
        lines.append(f"setup: copied {len(changes.copied)} new files into {work.name}/.")
    if changes.updated:
        lines.append(f"setup: brought {len(changes.updated)} files you had not changed up to date.")
    for name in changes.kept:
        lines.append(
            f"setup: {name} has a newer version in the course, and you have worked in your copy, "
            f"so yours is kept. To take the new one: rename {work.name}/{name} and run {rerun} again."
        )
    return lines
