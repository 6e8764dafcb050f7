"""The published figures of the chapter the budget task reproduces, and where its corpus is.

The chapter "The window is the working memory" (a seed of this course, specified in
``../shared/reference/agent-context/ALGORITHM.md``) ran its twelve-question task on six
Wikipedia articles and published what each policy costs and keeps. Lesson 6 quotes them
beside the help-centre figures; where the reference corpus is present, the engine
reproduces every one of them (``tests/budget/test_budget_reference.py``).

>>> PUBLISHED[("compact", "perfect")].input_tokens
16768
>>> import os
>>> reference_corpus(Path("/nowhere")) is None or "WINDOWMEM_SHARED" in os.environ
True
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: Where the reference corpus sits, relative to the folder that holds the repository.
REFERENCE_CORPUS = Path("shared") / "reference" / "agent-context" / "corpus.json"
#: The budget of every published figure below.
PUBLISHED_BUDGET = 1500


@dataclass(frozen=True)
class Published:
    """One policy's published result at 1,500 tokens; None where the chapter gives no figure."""

    answered: int
    input_tokens: int | None = None
    calls: int | None = None
    reads: int | None = None
    compactions: int | None = None


#: (policy, summariser) -> the chapter's figures (ALGORITHM.md, "Published figures").
PUBLISHED = {
    ("unbounded", "perfect"): Published(12, 26_616, 16, 15, 0),
    ("truncate", "perfect"): Published(5, 18_094, 16, 15, 0),
    ("compact", "perfect"): Published(12, 16_768, 18, 15, 2),
    ("retrieve", "perfect"): Published(12, 39_175, None, 30, 0),
    ("compact", "lossy"): Published(7),
}


def reference_corpus(start: str | Path) -> Path | None:
    """The reference corpus: under ``$WINDOWMEM_SHARED`` if set, else in a ``shared/`` folder
    beside *start* or one of its parents; None where there is none."""
    shared = os.environ.get("WINDOWMEM_SHARED")
    if shared:
        candidate = Path(shared) / REFERENCE_CORPUS.relative_to("shared")
        return candidate if candidate.is_file() else None
    here = Path(start).resolve()
    for folder in (here, *here.parents):
        candidate = folder.parent / REFERENCE_CORPUS
        if candidate.is_file():
            return candidate
    return None
