"""The mutants of an assignment's source notebook: its answer cells' solution regions, changed one place at a time."""

from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass
from typing import Any

from mutation.operators import code_mutants

#: The one random source: where the even sample of a cell's mutants starts.
SEED = 20261206
#: Mutants run per answer cell at most (an even sample when a cell has more).
CAP_PER_CELL = 40

SOLUTION_BEGIN, SOLUTION_END = "### BEGIN SOLUTION", "### END SOLUTION"


@dataclass(frozen=True)
class Mutant:
    """A notebook with one answer cell changed in one place."""

    ident: str  # "<grade_id>#<n>"
    cell: int  # index of the answer cell in the notebook
    grade_id: str
    line: int  # line of the cell, from 1
    column: int  # of that line, from 1
    operator: str
    before: str
    after: str
    source: str  # the whole cell, changed


def _cell_text(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def nbgrader_meta(cell: dict[str, Any]) -> dict[str, Any]:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta if isinstance(meta, dict) else {}


def solution_regions(source: str) -> list[tuple[int, int]]:
    """(first line, end line) of each solution region of a cell, as 0-based line indexes.

    >>> solution_regions("def f():\\n    ### BEGIN SOLUTION\\n    return 1\\n    ### END SOLUTION\\n")
    [(2, 3)]
    """
    regions, start = [], None
    for number, line in enumerate(source.splitlines()):
        if SOLUTION_BEGIN in line:
            start = number + 1
        elif SOLUTION_END in line and start is not None:
            regions.append((start, number))
            start = None
    return regions


def _indent_of(lines: list[str]) -> str:
    written = [line for line in lines if line.strip()]
    if not written:
        return ""
    return min((line[: len(line) - len(line.lstrip())] for line in written), key=len)


def _blocks(lines: list[str], start: int, end: int) -> list[tuple[int, int]]:
    """*lines[start:end]* cut where the indentation drops below where the piece began.

    A region that ends one function's body and then defines another at the top level
    (lesson 6's ``choose_policy`` and ``run_policy``) is two pieces of code, each parsed
    on its own.

    >>> _blocks(["    x = 1", "", "def g():", "    return 2"], 0, 4)
    [(0, 2), (2, 4)]
    """
    out: list[tuple[int, int]] = []
    begin, level = start, None
    for number in range(start, end):
        text = lines[number]
        if not text.strip():
            continue
        depth = len(text) - len(text.lstrip())
        if level is None:
            level = depth
        elif depth < level:
            out.append((begin, number))
            begin, level = number, depth
    out.append((begin, end))
    return out


def cell_mutants(source: str, cell: int, grade_id: str) -> list[Mutant]:
    """Every mutant of one answer cell: each solution region changed in one place."""
    lines = source.splitlines()
    out: list[Mutant] = []
    pieces = [b for r in solution_regions(source) for b in _blocks(lines, *r)]
    for start, end in pieces:
        region = lines[start:end]
        indent = _indent_of(region)
        try:
            changes = code_mutants(textwrap.dedent("\n".join(region)))
        except SyntaxError:
            continue  # not Python on its own: nothing to change
        for change in changes:
            code = textwrap.indent(change.code, indent).splitlines()
            whole = "\n".join([*lines[:start], *code, *lines[end:]]) + "\n"
            out.append(
                Mutant(
                    ident=f"{grade_id}#{len(out) + 1}",
                    cell=cell,
                    grade_id=grade_id,
                    line=start + change.line,
                    column=len(indent) + change.column,
                    operator=change.operator,
                    before=change.before,
                    after=change.after,
                    source=whole,
                )
            )
    return out


def even_sample(items: list[Mutant], cap: int, key: str) -> list[Mutant]:
    """At most *cap* of *items*, evenly spread in their order, the start drawn from SEED.

    >>> len(even_sample(list(range(100)), 40, "x")), even_sample(list(range(3)), 40, "x")
    (40, [0, 1, 2])
    """
    if cap <= 0:
        return []  # --cap 0: only the model solution is scored (a quick check of the tests)
    if len(items) <= cap:
        return list(items)
    stride = len(items) / cap
    offset = random.Random(f"{SEED}:{key}").random() * stride
    return [items[int(offset + k * stride)] for k in range(cap)]


def notebook_mutants(notebook: dict[str, Any], cap: int = CAP_PER_CELL) -> tuple[list[Mutant], int]:
    """The mutants run for *notebook* (at most *cap* per answer cell) and how many there were."""
    chosen: list[Mutant] = []
    total = 0
    for index, cell in enumerate(notebook["cells"]):
        meta = nbgrader_meta(cell)
        if cell.get("cell_type") != "code" or not meta.get("solution"):
            continue
        grade_id = str(meta.get("grade_id", index))
        every = cell_mutants(_cell_text(cell), index, grade_id)
        total += len(every)
        chosen += even_sample(every, cap, grade_id)
    return chosen, total
