"""What the command prints: the table of figures, the survivors and equivalents, the listing of mutants."""

from __future__ import annotations

import json
from pathlib import Path

from mutation import SOURCE
from mutation.equivalents import EQUIVALENT_FILE
from mutation.notebooks import Mutant, notebook_mutants
from mutation.scoring import AssignmentScore


def table(scores: list[AssignmentScore]) -> str:
    """The figures of every assignment as a plain-text table."""
    head = f"{'assignment':34} {'generated':>9} {'invalid':>7} {'killed':>6} {'timeout':>7} {'hidden-only':>11} {'survived':>8} {'equivalent':>10} {'errors':>6} {'score':>6}"
    rows = [head, "-" * len(head)]
    for s in scores:
        if s.harness_error:
            rows.append(f"{s.assignment:34} harness error: {s.harness_error}")
            continue
        value = "-" if s.score is None else f"{s.score:.2f}"
        rows.append(
            f"{s.assignment:34} {len(s.outcomes):>9} {s.count('invalid'):>7} {s.count('killed'):>6} "
            f"{s.timeouts:>7} {s.hidden_only:>11} {s.count('survived'):>8} "
            f"{s.count('equivalent'):>10} {s.count('error'):>6} {value:>6}"
        )
    return "\n".join(rows)


def survivors(score: AssignmentScore) -> str:
    """The survivors (and harness errors), the equivalent mutants and the stale records of one assignment."""
    lines = [f"\n{score.assignment}: {score.count('survived')} survivor(s)"]
    for o in score.outcomes:
        if o.verdict in ("survived", "error"):
            mark = "" if o.verdict == "survived" else f"  [harness error: {o.detail}]"
            lines.append(f"  {_where(o.mutant)}{mark}")
    if score.count("equivalent"):
        lines.append(f"{score.assignment}: {score.count('equivalent')} equivalent")
        lines += [
            f"  {_where(o.mutant)}\n      {o.detail}"
            for o in score.outcomes
            if o.verdict == "equivalent"
        ]
    if score.stale:
        lines.append(
            f"{score.assignment}: {len(score.stale)} stale record(s) in {EQUIVALENT_FILE.name}, read again"
        )
        lines += [
            f"  {r.grade_id} line {r.line} [{r.operator}] {r.before}  ->  {r.after}"
            for r in score.stale
        ]
    return "\n".join(lines)


def _where(m: Mutant) -> str:
    return f"{m.grade_id} line {m.line}:{m.column} [{m.operator}] {m.before}  ->  {m.after}"


def listing(notebook_path: Path, cap: int) -> str:
    """The mutants of one notebook, without running them."""
    notebook = json.loads(notebook_path.read_text(encoding="utf-8"))
    mutants, sites = notebook_mutants(notebook, cap)
    lines = [f"{notebook_path.parent.name}: {len(mutants)} of {sites} mutants"]
    lines += [
        f"  {m.ident} line {m.line}:{m.column} [{m.operator}] {m.before}  ->  {m.after}"
        for m in mutants
    ]
    return "\n".join(lines)


def find_notebooks(names: list[str], source: Path = SOURCE) -> list[Path]:
    """The source notebooks of the assignments whose folder name starts with one of *names*."""
    folders = sorted(p for p in source.iterdir() if p.is_dir() and any(p.glob("*.ipynb")))
    chosen = [f for f in folders if not names or any(f.name.startswith(n) for n in names)]
    if names and not chosen:
        raise SystemExit(f"no assignment under {source} starts with {', '.join(names)}")
    return [nb for f in chosen for nb in sorted(f.glob("*.ipynb"))]
