"""The mutation-score tool's parts, one idea each (``scripts/mutation_score.py`` is its command).

``operators``: the changes made to a model solution's code; ``notebooks``: the mutants of an
assignment's answer cells; ``equivalents``: the record of mutants a reader found equivalent;
``harness``: a notebook graded the judge's way, one forked process per mutant; ``scoring``:
each mutant's verdict and an assignment's figures; ``report``: the table and the listings.
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SOURCE = REPO_ROOT / "source"
