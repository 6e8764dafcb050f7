"""Highlighted code and rendered Markdown, made once per class instead of once per student.

A feedback page highlights every code cell with pygments and renders every Markdown cell
with mistune; for a graded notebook that is about half the page's cost. Most of those
cells are the instructor's, the same text on every student's page, so a class of forty
made the same HTML forty times. :class:`RenderCache` keeps each piece of HTML in a file
named by a digest of everything that decides it (the kind of piece, its text, and the
options the caller names), so a worker reads what an earlier worker made. Workers are
separate processes, forked per student; a file is written whole and renamed into place
(:func:`autograder.sandbox.safe_files.write_bytes`), so a reader sees either nothing or a
finished piece.

The folder lives for one grading run (it is inside the run's ``work/`` folder, which the
grader removes) and holds the grader's own output only: workers write it after the
student's processes are stopped, and a sandboxed kernel never sees it. A cache that cannot
be read or written only costs speed: the piece is made as it would have been.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from autograder.sandbox.safe_files import write_bytes


@dataclass(frozen=True)
class RenderCache:
    """Pieces of HTML shared by the workers of one grading run, in *folder*."""

    folder: Path

    def path(self, kind: str, *parts: str) -> Path:
        """Where the piece decided by *kind* and *parts* is kept.

        Each part is length-prefixed, so no two different lists of parts share a digest.

        >>> cache = RenderCache(Path("/run"))
        >>> cache.path("code", "ab", "c") == cache.path("code", "a", "bc")
        False
        """
        digest = hashlib.sha256()
        for part in (kind, *parts):
            data = part.encode("utf-8", "surrogatepass")
            digest.update(len(data).to_bytes(8, "big") + data)
        return self.folder / kind / f"{digest.hexdigest()}.html"

    def get(self, kind: str, parts: tuple[str, ...], make: Callable[[], str]) -> str:
        """The piece decided by *kind* and *parts*: read if a worker made it, else made and kept."""
        path = self.path(kind, *parts)
        try:
            kept = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            kept = ""
        if kept:  # empty: never written whole (a crash before the rename), or nothing to keep
            return kept
        made = make()
        try:
            # no wait for the disk: the cache lives one run, and an empty piece is a miss
            write_bytes(path, made.encode("utf-8"), durable=False)
        except (OSError, UnicodeEncodeError):  # a full disk, a lone surrogate: still right
            pass
        return made
