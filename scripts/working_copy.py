"""The learner's working copy of the course: lessons and assignments copied once, the clone left clean.

Usage: ``python scripts/working_copy.py [--work DIR]`` (``make course`` runs it before
JupyterLab; default ``my_course``, git-ignored).

JupyterLab autosaves a notebook as soon as it runs, so a learner working in ``course/``
changes tracked files, and the next ``git pull`` conflicts. The learner works here instead:

- each lesson notebook of ``course/`` and each assignment notebook of ``release/`` (under
  ``assignments/``) is copied the first time, and never overwritten once the learner has
  changed it; a copy the learner has not changed follows the clone's newer version, and a
  changed one is kept, with a line saying how to take the new version;
- so are the glossary and the lessons' reference pages of ``course/reference/`` (copied to
  ``reference/``, where the lessons' links expect them);
- every other file beside them (the diagrams, an assignment's data) follows the clone;
- ``course/checks`` is not copied: the server puts ``course/`` on the kernels' path, so
  the self-checks are always the clone's.

What was copied is recorded in ``DIR/.copied.json`` (file -> checksum of the clone's
version), which is how "the learner has changed it" is told from "the clone has".
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_WORK = REPO / "my_course"
#: Where the record of copied files lives, inside the working folder.
RECORD = ".copied.json"
#: What stays in the clone: the self-check package (found through the kernels' path),
#: the catalogue the pages are generated from, the maintainers' notes, and caches.
NOT_COPIED = {"checks", "lessons.json", "README.md", "__pycache__", ".ipynb_checkpoints"}


@dataclass
class Changes:
    """What one update did: files *copied* (new), *updated* (followed the clone), *kept*."""

    copied: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def checksum(path: Path) -> str:
    """The SHA-256 of *path*'s bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sources(course: Path, release: Path) -> Iterator[tuple[Path, str]]:
    """Each file to copy, with its place in the working folder (``assignments/...`` for release)."""
    for root, prefix in ((course, ""), (release, "assignments/")):
        for path in sorted(root.rglob("*")):
            parts = path.relative_to(root).parts
            if path.is_file() and not NOT_COPIED.intersection(parts):
                yield path, prefix + "/".join(parts)


def update(
    work: Path,
    course: Path = REPO / "course",
    release: Path = REPO / "release",
    trust: Callable[[Path], None] | None = None,
) -> Changes:
    """Bring *work* up to date with *course* and *release* without losing a learner's change.

    *trust*, if given, is called on each notebook copied from the course (course_lab.py
    signs it, so JupyterLab opens the course's own outputs as trusted).
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


def report(changes: Changes, work: Path) -> list[str]:
    """What to tell the learner about *changes* in *work*, one line each."""
    lines = []
    if changes.copied:
        lines.append(f"setup: copied {len(changes.copied)} new files into {work.name}/.")
    if changes.updated:
        lines.append(f"setup: brought {len(changes.updated)} files you had not changed up to date.")
    for name in changes.kept:
        lines.append(
            f"setup: {name} has a newer version in the course, and you have worked in your copy, "
            f"so yours is kept. To take the new one: rename {work.name}/{name} and run make course again."
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=DEFAULT_WORK, help="the working folder")
    args = parser.parse_args(argv)
    work = args.work.resolve()
    for line in report(update(work), work):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
