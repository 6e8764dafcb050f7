"""``validate-assignment NOTEBOOK...``: check an assignment before submitting it, honestly.

nbgrader 0.9.6's ``nbgrader validate`` prints the failing cells but exits 0 whatever it
finds, so a script or a learner reading only the status is told all is well. This runs
the same validator (nbgrader's ``Validator``: every cell in a fresh kernel, then the
visible test cells' results and the checksums of locked cells) and says in its exit
status what it found: 0 when every visible test passes and every answer is given, 1 when
something would lose marks, 2 when a notebook cannot be checked at all.

Only the tests a learner can see run here; hidden tests are added when the work is graded,
so a clean result is necessary for full marks, not a promise of them.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# Before anything imports nbformat: see autograder.startup for why.
from autograder import startup as _startup  # noqa: F401

#: Terminal colour codes, which nbgrader's raw error text keeps from the traceback.
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
#: nbgrader's message for a written-answer cell left as its placeholder.
NO_RESPONSE = "You did not provide a response."


@dataclass(frozen=True)
class Finding:
    """One problem in a notebook: its *kind*, the cell's first line and what went wrong."""

    kind: str
    cell: str
    detail: str


def findings(results: dict[str, list[dict[str, str]]]) -> list[Finding]:
    """Every problem in nbgrader's ``Validator.validate`` *results*, in the notebook's order.

    >>> findings({"failed": [{"source": "def f():\\n    pass", "raw_error": "NameError: x"}]})
    [Finding(kind='failed', cell='def f():', detail='NameError: x')]
    >>> findings({})
    []
    """
    found = []
    for cell in results.get("type_changed", []):
        detail = f"was a {cell['old_type']} cell, now a {cell['new_type']} cell"
        found.append(Finding("type changed", _first_line(cell["source"]), detail))
    for cell in results.get("changed", []):
        detail = "a locked cell was edited: undo the change (Edit > Undo, or fetch it again)"
        found.append(Finding("changed", _first_line(cell["source"]), detail))
    for cell in results.get("failed", []):
        error = ANSI_ESCAPE.sub("", cell.get("raw_error", "")).strip()
        kind = "unanswered" if error == NO_RESPONSE else "failed"
        found.append(Finding(kind, _first_line(cell["source"]), _last_line(error)))
    return found


def _first_line(source: str) -> str:
    lines = [line for line in source.strip().splitlines() if line.strip()]
    return lines[0].strip() if lines else "(empty cell)"


def _last_line(error: str) -> str:
    lines = [line for line in error.splitlines() if line.strip()]
    return lines[-1].strip() if lines else "(no message)"


def report(notebook: Path, found: list[Finding]) -> str:
    """The lines printed for one notebook."""
    if not found:
        return f"{notebook}: every visible test passes"
    counts: dict[str, int] = {}
    for finding in found:
        counts[finding.kind] = counts.get(finding.kind, 0) + 1
    summary = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    lines = [f"{notebook}: NOT READY to submit ({summary})"]
    lines += [f"  - {f.kind}: {f.cell}\n      {f.detail}" for f in found]
    return "\n".join(lines)


def validate(notebook: Path) -> list[Finding]:
    """Run nbgrader's validator on *notebook*; the problems it finds."""
    from nbgrader.validator import Validator
    from traitlets.config import Config

    config = Config()
    # A warning a library prints to stderr must not fail a test cell (see nbgrader_config.py).
    config.IgnorePattern.pattern = r"Warning|WARNING"
    config.IgnorePattern.enabled = True
    return findings(Validator(config=config).validate(str(notebook)))


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; the exit status: 0 ready, 1 something would lose marks, 2 unusable."""
    parser = argparse.ArgumentParser(
        prog="validate-assignment",
        description="Run an assignment's visible tests before you submit it; "
        "exits 1 when any fails (unlike `nbgrader validate`, which exits 0).",
    )
    parser.add_argument("notebooks", nargs="+", type=Path, help="the .ipynb files to check")
    args = parser.parse_args(argv)
    status = 0
    for notebook in args.notebooks:
        if notebook.suffix != ".ipynb" or not notebook.is_file():
            print(f"{notebook}: not a notebook file (give the path of a .ipynb)", file=sys.stderr)
            status = 2
            continue
        try:
            found = validate(notebook)
        except Exception as error:  # an unreadable notebook, a kernel that will not start
            print(f"{notebook}: could not be checked: {error}", file=sys.stderr)
            status = 2
            continue
        print(report(notebook, found))
        if found and status == 0:
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
