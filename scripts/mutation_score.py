"""How many small mistakes in the model solutions the hidden tests catch (mutation score).

Usage::

    python scripts/mutation_score.py                         # every assignment under source/
    python scripts/mutation_score.py lesson03                # the assignments whose name starts so
    python scripts/mutation_score.py lesson01 --json         # the figures as JSON on stdout
    python scripts/mutation_score.py --json out.json         # the table, and the JSON in out.json
    python scripts/mutation_score.py lesson04 --list         # the mutants only, nothing run

For each answer cell of an assignment's source notebook, the code between
``### BEGIN SOLUTION`` and ``### END SOLUTION`` is parsed and changed in one place at a
time by the operators below (:data:`OPERATORS`). Each such *mutant* is the notebook with
that one region replaced and every other answer the model solution. The notebook is then
graded the way the judge grades it (``autograder/judge/hidden_tests.py``): every cell runs
in order in one namespace (test cells with their visible part only), then every test cell
runs whole, hidden section included, with :func:`~autograder.judge.hidden_tests.run_test`
on the judge's setup namespace, the notebook's names read as each test cell found them and
its functions called with plain data going in and out. A mutant is **killed** when its
autograded total is below the model solution's, **invalid** when its answer cell does not
compile or raises when it runs (the student would see that), and **survives** otherwise.
A survivor is either an equivalent mutant or a mistake no test catches: only a reader can
tell which, so every survivor is listed with its cell, line and change. What a reader found
equivalent (no input the question allows tells it from the model solution) is recorded in
``scripts/mutation_equivalent.toml`` (:data:`EQUIVALENT_FILE`), with why: such a survivor counts as **equivalent**, in neither figure of
the score, and is listed apart with its reason. A record that matches a killed mutant, or no
mutant of the notebook at all (its cell changed), is reported as *stale*: read it again.

Operators, each one change (:data:`OPERATORS`), never inside string formatting (an f-string,
``str.format`` or ``%``: a message's text):

``compare``       ``<``/``<=``, ``>``/``>=``, ``==``/``!=``, ``in``/``not in``, ``is``/``is not`` swapped
``int``           an integer constant plus one, then minus one
``arith``         ``+``/``-`` swapped (not when one side is a literal string, list or tuple)
``boolop``        ``and``/``or`` swapped
``slice``         ``[a:b]`` to ``[a + 1:b]`` and to ``[a:b - 1]`` (for the bounds written)
``min_max``       ``min``/``max`` swapped
``any_all``       ``any``/``all`` swapped
``negate_if``     the condition of an ``if`` statement or an ``x if c else y`` negated
``delete``        one statement of a block replaced by ``pass`` (not a def, class or import)
``early_return``  the block's first ``return`` whose value uses none of the block's own names,
                  copied to the block's start (the function answers that for every input)

The table gives per assignment the mutants run (*generated*), *invalid*, *killed* (of them,
*timeout*: ran too long; *hidden-only*: no visible check failed, only the hidden sections
noticed), *survived*, *equivalent* (survived, and recorded there, or proved by the harness: see :data:`SAME_VALUES`), *errors*
(the harness itself failed on a mutant: look at it, it is in neither figure) and *score* =
killed / (killed + survived); then every survivor, and every equivalent one with its reason.

At most :data:`CAP_PER_CELL` mutants per answer cell are run: when a cell has more, an even
sample of them in source order, offset by :data:`SEED`. A mutant whose run takes longer than
``max(--timeout, TIMEOUT_FACTOR x the model solution's time for the same cells)`` is counted
as killed and reported as a timeout.

Speed: the harness runs in one worker process per assignment, which imports the libraries
once and runs the model solution cell by cell; at each answer cell it forks one child per
mutant of that cell, so a child runs only the cells from there on (the test cells before
it cannot see the change) and stops grading at the first test cell that loses points. The
judge's sandboxed kernel and socket are replaced by the same process: the scoring, the
namespaces and the plain-data crossing are the judge's own functions. Two shortcuts: the
model solution is first checked to earn full points here (else the assignment is reported
as a harness error and not scored), and the test cells before a mutated cell are taken to
score what they score for the model solution.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import json
import os
import random
import resource
import select
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
SOURCE = REPO_ROOT / "source"

#: The one random source: where the even sample of a cell's mutants starts.
SEED = 20261206
#: Mutants run per answer cell at most (an even sample when a cell has more).
CAP_PER_CELL = 40
#: Seconds a mutant may run at least; a slower one is killed and counted as a timeout.
MUTANT_SECONDS = 20.0
#: A mutant may also take this many times what the model solution takes for the same cells.
TIMEOUT_FACTOR = 4.0
#: Seconds the model solution's own run may take.
BASELINE_SECONDS = 900.0
#: Extra address space a mutant's process may take (bytes), so a runaway loop fails fast.
MEMORY_HEADROOM = 3 * 1024**3

SOLUTION_BEGIN, SOLUTION_END = "### BEGIN SOLUTION", "### END SOLUTION"

# --------------------------------------------------------------------------- operators

#: A change to one node of a copied tree: applied to (node, its parent), gives (before, after).
Apply = Callable[[ast.AST, ast.AST | None], tuple[str, str]]


@dataclass(frozen=True)
class Change:
    """One change an operator offers: how to make it, and where when not at the node itself."""

    apply: Apply
    at: ast.AST | None = None


#: An operator: for a node (and its parent) of the original tree, the changes it offers.
Operator = Callable[[ast.AST, ast.AST | None, "Context"], list[Change]]

_COMPARE_SWAPS: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_NAME_SWAPS = {"min_max": {"min": "max", "max": "min"}, "any_all": {"any": "all", "all": "any"}}
_NOT_DELETED = (
    ast.Pass,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Import,
    ast.ImportFrom,
    ast.Global,
    ast.Nonlocal,
)
_BLOCK_FIELDS = ("body", "orelse", "finalbody")
_SCOPES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Context:
    """What an operator needs to know about the tree beyond one node."""

    in_formatting: frozenset[int]  # ids of nodes inside string formatting


def _shown(node: ast.AST) -> str:
    """*node* as one short line of source."""
    text = ast.unparse(node).strip()
    first = text.splitlines()[0] if text else ""
    short = first if first == text else first + " …"
    return short if len(short) <= 100 else short[:97] + "…"


def _compare(node: ast.AST, parent: ast.AST | None, context: Context) -> list[Change]:
    if not isinstance(node, ast.Compare):
        return []

    def swap(position: int) -> Apply:
        def apply(copy_: ast.AST, _parent: ast.AST | None) -> tuple[str, str]:
            assert isinstance(copy_, ast.Compare)
            before = _shown(copy_)
            copy_.ops[position] = _COMPARE_SWAPS[type(copy_.ops[position])]()
            return before, _shown(copy_)

        return apply

    return [Change(swap(k)) for k, op in enumerate(node.ops) if type(op) in _COMPARE_SWAPS]


def _integer(node: ast.AST, parent: ast.AST | None, context: Context) -> list[Change]:
    if not (isinstance(node, ast.Constant) and type(node.value) is int):
        return []
    if id(node) in context.in_formatting:
        return []

    def shift(step: int) -> Apply:
        def apply(copy_: ast.AST, parent_: ast.AST | None) -> tuple[str, str]:
            assert isinstance(copy_, ast.Constant)
            shown = parent_ if isinstance(parent_, (ast.expr, ast.keyword)) else copy_
            before = _shown(shown)
            assert isinstance(copy_.value, int)
            copy_.value += step
            return before, _shown(shown)

        return apply

    return [Change(shift(1)), Change(shift(-1))]


def _is_literal_sequence(node: ast.expr) -> bool:
    """A literal string, list or tuple: ``+``/``-`` on it can only raise."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    return isinstance(node, (ast.JoinedStr, ast.List, ast.Tuple, ast.ListComp))


def _arith(node: ast.AST, parent: ast.AST | None, context: Context) -> list[Change]:
    sides: tuple[ast.expr, ...]
    if isinstance(node, ast.BinOp):
        sides = (node.left, node.right)
    elif isinstance(node, ast.AugAssign):
        sides = (node.value,)
    else:
        return []
    if not isinstance(node.op, (ast.Add, ast.Sub)) or any(map(_is_literal_sequence, sides)):
        return []

    def apply(copy_: ast.AST, _parent: ast.AST | None) -> tuple[str, str]:
        assert isinstance(copy_, (ast.BinOp, ast.AugAssign))
        before = _shown(copy_)
        copy_.op = ast.Sub() if isinstance(copy_.op, ast.Add) else ast.Add()
        return before, _shown(copy_)

    return [Change(apply)]


def _boolop(node: ast.AST, parent: ast.AST | None, context: Context) -> list[Change]:
    if not isinstance(node, ast.BoolOp):
        return []

    def apply(copy_: ast.AST, _parent: ast.AST | None) -> tuple[str, str]:
        assert isinstance(copy_, ast.BoolOp)
        before = _shown(copy_)
        copy_.op = ast.Or() if isinstance(copy_.op, ast.And) else ast.And()
        return before, _shown(copy_)

    return [Change(apply)]


def _slice(node: ast.AST, parent: ast.AST | None, context: Context) -> list[Change]:
    if not isinstance(node, ast.Slice):
        return []

    def bound(name: str, op: ast.operator) -> Apply:
        def apply(copy_: ast.AST, parent_: ast.AST | None) -> tuple[str, str]:
            assert isinstance(copy_, ast.Slice)
            shown = parent_ if isinstance(parent_, ast.Subscript) else copy_
            before = _shown(shown)
            setattr(copy_, name, ast.BinOp(getattr(copy_, name), op, ast.Constant(1)))
            return before, _shown(shown)

        return apply

    # a bound written as a number is the ``int`` operator's already
    changes = []
    if node.lower is not None and not _is_number(node.lower):
        changes.append(Change(bound("lower", ast.Add())))
    if node.upper is not None and not _is_number(node.upper):
        changes.append(Change(bound("upper", ast.Sub())))
    return changes


def _is_number(node: ast.expr) -> bool:
    """An integer literal, negative or not."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _name_swap(kind: str) -> Operator:
    swaps = _NAME_SWAPS[kind]

    def operator(node: ast.AST, parent: ast.AST | None, context: Context) -> list[Change]:
        if not (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in swaps
        ):
            return []

        def apply(copy_: ast.AST, _parent: ast.AST | None) -> tuple[str, str]:
            assert isinstance(copy_, ast.Call) and isinstance(copy_.func, ast.Name)
            before = _shown(copy_)
            copy_.func.id = swaps[copy_.func.id]
            return before, _shown(copy_)

        return [Change(apply)]

    return operator


def _negated(test: ast.expr) -> ast.expr:
    """``not test``, or the operand when *test* is already a ``not``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    return ast.UnaryOp(ast.Not(), test)


def _negate_if(node: ast.AST, parent: ast.AST | None, context: Context) -> list[Change]:
    if not isinstance(node, (ast.If, ast.IfExp)):
        return []

    def apply(copy_: ast.AST, _parent: ast.AST | None) -> tuple[str, str]:
        assert isinstance(copy_, (ast.If, ast.IfExp))
        if isinstance(copy_, ast.If):
            before = "if " + _shown(copy_.test)
            copy_.test = _negated(copy_.test)
            return before, "if " + _shown(copy_.test)
        before = _shown(copy_)
        copy_.test = _negated(copy_.test)
        return before, _shown(copy_)

    return [Change(apply)]


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _delete(node: ast.AST, parent: ast.AST | None, context: Context) -> list[Change]:
    def remove(name: str, position: int) -> Change:
        def apply(copy_: ast.AST, _parent: ast.AST | None) -> tuple[str, str]:
            block = getattr(copy_, name)
            before = _shown(block[position])
            block[position] = ast.Pass()
            return before, "pass"

        return Change(apply, getattr(node, name)[position])

    changes = []
    for name in _BLOCK_FIELDS:
        block = getattr(node, name, None)
        if not isinstance(block, list):
            continue
        for position, statement in enumerate(block):
            if isinstance(statement, ast.stmt) and not (
                isinstance(statement, _NOT_DELETED) or _is_docstring(statement)
            ):
                changes.append(remove(name, position))
    return changes


def _scope_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of *scope*'s own body, not those of functions or classes defined in it."""
    for statement in getattr(scope, "body", []):
        stack: list[ast.AST] = [statement]
        while stack:
            node = stack.pop()
            yield node
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stack.extend(ast.iter_child_nodes(node))


def _own_names(scope: ast.AST) -> set[str]:
    """The names *scope* binds itself (its local variables, in a function)."""
    names: set[str] = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.arg) and node is not scope:
            names.add(node.arg)
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        names -= {a.arg for a in ast.walk(scope.args) if isinstance(a, ast.arg)}
    return names


def _first_return(scope: ast.AST) -> ast.Return | None:
    """The first ``return`` in *scope*'s own body whose value reads none of its own names."""
    own = _own_names(scope)
    returns = [n for n in _scope_nodes(scope) if isinstance(n, ast.Return) and n.value]
    returns.sort(key=lambda n: (n.lineno, n.col_offset))
    for candidate in returns:
        assert candidate.value is not None
        read = {n.id for n in ast.walk(candidate.value) if isinstance(n, ast.Name)}
        if not read & own:
            return candidate
    return None


def _early_return(node: ast.AST, parent: ast.AST | None, context: Context) -> list[Change]:
    if not isinstance(node, _SCOPES):
        return []
    first = _first_return(node)
    body = node.body
    start = 1 if body and _is_docstring(body[0]) else 0
    if first is None or start >= len(body) or body[start] is first:
        return []
    value = first.value

    def apply(copy_: ast.AST, _parent: ast.AST | None) -> tuple[str, str]:
        assert isinstance(copy_, _SCOPES)
        block = copy_.body
        before = _shown(block[start])
        block.insert(start, ast.Return(copy.deepcopy(value)))
        return before, _shown(block[start]) + " (first)"

    return [Change(apply)]


#: The operators in the order they are tried on each node; see the module's docstring.
OPERATORS: dict[str, Operator] = {
    "compare": _compare,
    "int": _integer,
    "arith": _arith,
    "boolop": _boolop,
    "slice": _slice,
    "min_max": _name_swap("min_max"),
    "any_all": _name_swap("any_all"),
    "negate_if": _negate_if,
    "delete": _delete,
    "early_return": _early_return,
}


def _walk(tree: ast.AST) -> list[tuple[ast.AST, ast.AST | None]]:
    """Every (node, parent) of *tree*, depth first in source order (the same for a copy)."""
    out: list[tuple[ast.AST, ast.AST | None]] = []
    stack: list[tuple[ast.AST, ast.AST | None]] = [(tree, None)]
    while stack:
        node, parent = stack.pop()
        out.append((node, parent))
        stack.extend((child, node) for child in reversed(list(ast.iter_child_nodes(node))))
    return out


def _formatting_ids(tree: ast.AST) -> frozenset[int]:
    """Ids of the nodes inside string formatting: f-strings, ``str.format`` and ``%``."""
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            roots.append(node)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"
        ):
            roots.extend([*node.args, *node.keywords])
        elif (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Mod)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.left.value, str)
        ):
            roots.append(node.right)
    return frozenset(id(n) for root in roots for n in ast.walk(root))


@dataclass(frozen=True)
class CodeMutant:
    """One change to a piece of code: where, which operator, and the changed code."""

    operator: str
    line: int  # in the code given, from 1
    before: str
    after: str
    code: str
    column: int = 1  # from 1


def code_mutants(code: str) -> list[CodeMutant]:
    """Every single-change mutant of *code* the operators make, by line and column.

    >>> [(m.operator, m.after) for m in code_mutants("x = a < b")]
    [('delete', 'pass'), ('compare', 'a <= b')]
    """
    tree = ast.parse(code)
    context = Context(_formatting_ids(tree))
    out = []
    for index, (node, parent) in enumerate(_walk(tree)):
        if id(node) in context.in_formatting:
            continue  # a message's text: a change there changes nothing a test should check
        for name, operator in OPERATORS.items():
            for change in operator(node, parent, context):
                changed = copy.deepcopy(tree)
                copied, copied_parent = _walk(changed)[index]
                before, after = change.apply(copied, copied_parent)
                at = change.at or node
                line = getattr(at, "lineno", None) or _first_line(at)
                column = getattr(at, "col_offset", 0) + 1
                out.append(CodeMutant(name, line, before, after, ast.unparse(changed), column))
    return sorted(out, key=lambda m: (m.line, m.column))  # stable: else in the order tried


def _first_line(node: ast.AST) -> int:
    """The line a node without a position of its own starts on (a module: its first statement)."""
    lines = [n.lineno for n in ast.walk(node) if isinstance(n, ast.stmt | ast.expr)]
    return min(lines, default=1)


# --------------------------------------------------------------------------- notebooks


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


def _nbgrader(cell: dict[str, Any]) -> dict[str, Any]:
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
        meta = _nbgrader(cell)
        if cell.get("cell_type") != "code" or not meta.get("solution"):
            continue
        grade_id = str(meta.get("grade_id", index))
        every = cell_mutants(_cell_text(cell), index, grade_id)
        total += len(every)
        chosen += even_sample(every, cap, grade_id)
    return chosen, total


# --------------------------------------------------------------------------- equivalent mutants


@dataclass(frozen=True)
class Equivalent:
    """A mutant that no input the question allows can tell from the model solution, and why.

    It is named as the report lists it: the assignment's folder, the answer cell's grade id,
    the line of the cell, the operator and the change.
    """

    assignment: str
    grade_id: str
    line: int
    operator: str
    before: str
    after: str
    why: str

    def matches(self, assignment: str, mutant: Mutant) -> bool:
        """Is *mutant*, of *assignment*, the one this record names?"""
        return (assignment, mutant.grade_id, mutant.line, mutant.operator) == (
            self.assignment,
            self.grade_id,
            self.line,
            self.operator,
        ) and (mutant.before, mutant.after) == (self.before, self.after)


#: The record of equivalent mutants: what a reader found, and why (see the module's docstring).
EQUIVALENT_FILE = Path(__file__).resolve().with_name("mutation_equivalent.toml")


def load_equivalents(path: Path = EQUIVALENT_FILE) -> tuple[Equivalent, ...]:
    """The records of *path*: each ``[[mutant]]``, its ``why`` a text or a name in ``[reasons]``."""
    import tomllib

    data = tomllib.loads(path.read_text(encoding="utf-8"))
    reasons = data.get("reasons", {})
    return tuple(
        Equivalent(
            assignment=record["assignment"],
            grade_id=record["cell"],
            line=int(record["line"]),
            operator=record["operator"],
            before=record["before"],
            after=record["after"],
            why=reasons.get(record["why"], record["why"]),
        )
        for record in data.get("mutant", [])
    )


# --------------------------------------------------------------------------- the harness


class _Nowhere:
    """A stream that keeps nothing (what a student's call prints goes here, as in the judge)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


class _Log:
    def __init__(self) -> None:
        self.library: list[str] = []


class InProcessKernel:
    """The notebook's namespace, and the judge's channel to it, in this process.

    It answers :func:`~autograder.judge.hidden_tests.student_lookup` as the kernel's end of
    the channel does (``autograder/judge/in_kernel.py``): names as each test cell found
    them, values and arguments crossing as the wire's plain data, a student's exception
    turned into the built-in one of its classes.
    """

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {"__name__": "__main__"}
        self.names_at: dict[int, dict[str, Any]] = {}
        self.log = _Log()

    def run_cell(self, index: int, source: str, is_test: bool) -> BaseException | None:
        """Run one cell as the kernel would; the exception it raised, if any."""
        from autograder.judge.hidden_tests import _plain_python

        if is_test:
            self.names_at[index] = dict(self.namespace)
        try:
            code = compile(_plain_python(source), f"<cell {index + 1}>", "exec")
            with contextlib.redirect_stdout(_Nowhere()), contextlib.redirect_stderr(_Nowhere()):
                exec(code, self.namespace)
        except (Exception, SystemExit) as error:  # noqa: BLE001 - the kernel goes on
            return error
        return None

    def _names(self, at: int | None) -> dict[str, Any]:
        return self.names_at.get(at, self.namespace) if at is not None else self.namespace

    def describe(self, name: str, at: int | None = None) -> tuple[str, Any]:
        """``("missing" | "function" | "value", value)`` for a notebook name, as of cell *at*."""
        from autograder.judge import wire

        names = self._names(at)
        if name not in names:
            return "missing", None
        value = names[name]
        if callable(value):
            return "function", None
        try:
            return "value", wire.decode(wire.encode(value))
        except (wire.WireError, RecursionError):
            return "value", wire.Opaque("value")

    def call(
        self,
        name: str,
        args: tuple,
        kwargs: dict,
        allow: tuple[str, ...] | None = None,
        notebook_globals: dict[str, Any] | None = None,
        at: int | None = None,
    ) -> Any:
        """What notebook function *name* returns, as the judge would receive it."""
        from autograder.judge import wire
        from autograder.judge.in_kernel import _read_extra
        from autograder.judge.raised import LibraryUsed, exception_for
        from autograder.judge.values import write_extra

        sent = {"args": list(args), "kwargs": dict(kwargs), "globals": dict(notebook_globals or {})}
        arguments = wire.decode(wire.encode(sent, write_extra), _read_extra)
        with self._as_of(at, arguments["globals"]):
            saved = sys.stdout, sys.stderr
            sys.stdout = sys.stderr = _Nowhere()
            try:
                function = self.namespace.get(name)
                if allow is not None:
                    from windowmem.behaviour_check import sealed

                    function = sealed(function, tuple(allow))
                assert function is not None
                answer = wire.encode(function(*arguments["args"], **arguments["kwargs"]))
            except BaseException as error:  # noqa: BLE001 - turned into what the judge raises
                if _judge_owned(error):
                    raise
                classes = [getattr(k, "__name__", "?") for k in type(error).__mro__][:40]
                if classes[0] == "LibraryBlocked":
                    self.log.library.append(str(error)[:300])
                    raise LibraryUsed(str(error)[:300]) from None
                raise exception_for(classes) from None
            finally:
                sys.stdout, sys.stderr = saved
        return wire.decode(answer)

    class _AsOf:
        def __init__(self, kernel: InProcessKernel, at: int | None, extra: dict[str, Any]):
            self.kernel, self.at, self.extra = kernel, at, extra
            self.kept: dict[str, Any] = {}

        def __enter__(self) -> None:
            space = self.kernel.namespace
            self.kept = dict(space)
            space.clear()
            space.update(
                self.kernel._names(self.at) if self.at in self.kernel.names_at else self.kept
            )
            space.update(self.extra)

        def __exit__(self, *exc: object) -> None:
            space = self.kernel.namespace
            space.clear()
            space.update(self.kept)

    def _as_of(self, at: int | None, extra: dict[str, Any]) -> InProcessKernel._AsOf:
        return InProcessKernel._AsOf(self, at, extra)


def _judge_owned(error: BaseException) -> bool:
    """An exception of the judge's own (its time limit), never the student's."""
    from autograder.judge.hidden_tests import JudgeTimeout

    return isinstance(error, (JudgeTimeout, KeyboardInterrupt))


@dataclass
class Run:
    """What one run of a notebook (from some cell on) gave."""

    status: str  # "ok", "invalid", "timeout", "crashed" or "error"
    scores: dict[str, float] = field(default_factory=dict)  # by grade_id, of the tests judged
    lost: str = ""  # the first test cell that lost points
    visible_failed: list[str] = field(default_factory=list)  # test cells whose visible part raised
    error: str = ""
    seconds: float = 0.0
    cell_seconds: dict[int, float] = field(default_factory=dict)  # kernel, then judge, by cell
    values: str = ""  # the changed cell's names and values, when it defines no function


class Notebook:
    """An assignment's source notebook, ready to be run from any cell on."""

    def __init__(self, path: Path) -> None:
        import nbformat

        from autograder.judge.hidden_tests import is_test, setup_namespace, split_hidden

        self.nb = nbformat.read(str(path), as_version=4)
        self.whole = split_hidden(self.nb)  # cell sources are now what the kernel runs
        self.code = [i for i, c in enumerate(self.nb.cells) if c.get("cell_type") == "code"]
        self.tests = [i for i in self.code if is_test(self.nb.cells[i])]
        self.base, self.setup_problems = setup_namespace(self.nb, None)  # cwd: its folder
        self.kernel = InProcessKernel()

    def grade_id(self, index: int) -> str:
        return str(_nbgrader(self.nb.cells[index]).get("grade_id", index))

    def points(self, index: int) -> float:
        return float(_nbgrader(self.nb.cells[index]).get("points", 0) or 0)

    def run_kernel_cell(self, index: int, source: str | None = None) -> BaseException | None:
        """Run cell *index* (or *source* in its place) in the notebook's namespace."""
        text = self.nb.cells[index].source if source is None else source
        return self.kernel.run_cell(index, text, index in self.whole)

    def run_from(
        self,
        start: int,
        source: str | None,
        seconds: float,
        judge_from: int,
        stop_at_loss: bool,
    ) -> Run:
        """Run the cells from *start* (cell *start* as *source*), then judge the tests after *judge_from*."""
        from autograder.judge.hidden_tests import run_test, student_lookup

        run = Run("ok")
        for index in (i for i in self.code if i >= start):
            began = time.monotonic()
            error = self.run_kernel_cell(index, source if index == start else None)
            run.cell_seconds[index] = time.monotonic() - began
            if error is not None and index == start and source is not None:
                return Run("invalid", error=f"{type(error).__name__}: {error}"[:300])
            if index == start and source is not None and not _defines_code(source):
                run.values = values_of(self.kernel.namespace)
            if error is not None and index in self.whole:
                run.visible_failed.append(self.grade_id(index))
        for index in (i for i in self.tests if i >= judge_from):
            began = time.monotonic()
            lookup = student_lookup(self.kernel, index)  # type: ignore[arg-type]
            verdict = run_test(
                self.grade_id(index),
                self.points(index),
                self.whole[index],
                self.base,
                lookup,
                seconds,
            )
            run.cell_seconds[index] = run.cell_seconds.get(index, 0.0) + time.monotonic() - began
            run.scores[verdict.grade_id] = verdict.points
            if verdict.points < verdict.max_points and not run.lost:
                run.lost = verdict.grade_id
                if stop_at_loss:
                    break
        return run


def _quiet_child() -> None:
    """In a mutant's process: output goes nowhere, and memory is bounded."""
    nowhere = os.open(os.devnull, os.O_WRONLY)
    os.dup2(nowhere, 1)
    os.dup2(nowhere, 2)
    try:
        with open("/proc/self/status") as status:
            size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
        limit = size + MEMORY_HEADROOM
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (OSError, StopIteration, ValueError):
        pass


def forked(task: Callable[[], Run], seconds: float) -> Run:
    """*task*'s run in a child process, killed after *seconds* (then a "timeout")."""
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    began = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        try:
            _quiet_child()
            result = task()
        except BaseException:  # noqa: BLE001 - reported as the harness's own error
            result = Run("error", error=traceback.format_exc(limit=8)[-2000:])
        data = json.dumps(asdict(result)).encode()
        with os.fdopen(write_end, "wb") as out:
            out.write(data)
        os._exit(0)
    os.close(write_end)
    chunks, timed_out = [], False
    while True:
        left = began + seconds - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([read_end], [], [], left)
        if ready:
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(read_end)
    elapsed = time.monotonic() - began
    if timed_out:
        return Run("timeout", seconds=elapsed, error=f"ran past {seconds:.0f} s")
    try:
        data = json.loads(b"".join(chunks))
        data["cell_seconds"] = {int(k): v for k, v in data["cell_seconds"].items()}
        run = Run(**data)
    except (ValueError, TypeError, KeyError):
        return Run("crashed", seconds=elapsed, error="the process died without an answer")
    run.seconds = elapsed
    return run


def work(job: dict[str, Any], progress: Callable[[str], None]) -> dict[str, Any]:
    """Run the model solution, then every mutant of *job*; the runs as plain data.

    Runs in the assignment's folder, in a process of its own (see :func:`main`).
    """
    notebook = Notebook(Path(job["notebook"]))
    first = notebook.code[0] if notebook.code else 0
    baseline = forked(
        lambda: notebook.run_from(first, None, BASELINE_SECONDS, 0, False), BASELINE_SECONDS
    )
    maxima = {notebook.grade_id(i): notebook.points(i) for i in notebook.tests}
    out: dict[str, Any] = {"baseline": asdict(baseline), "maxima": maxima, "mutants": {}}
    if baseline.status != "ok" or any(baseline.scores.get(g) != p for g, p in maxima.items()):
        out["harness_error"] = "the model solution does not score full points in the harness"
        return out
    progress(f"model solution: {sum(baseline.scores.values())} points in {baseline.seconds:.1f}s")
    if baseline.visible_failed:
        out["harness_error"] = f"the model solution fails visible checks: {baseline.visible_failed}"
        return out
    by_cell: dict[int, list[dict[str, Any]]] = {}
    for mutant in job["mutants"]:
        by_cell.setdefault(mutant["cell"], []).append(mutant)
    done, total = 0, len(job["mutants"])
    for index in notebook.code:
        tail = sum(s for i, s in baseline.cell_seconds.items() if i >= index)
        seconds = max(job["timeout"], TIMEOUT_FACTOR * tail)
        for mutant in by_cell.get(index, []):
            run = forked(_mutant_task(notebook, index, mutant["source"], seconds), seconds)
            out["mutants"][mutant["ident"]] = asdict(run)
            done += 1
            progress(
                f"{done}/{total} {mutant['ident']}: {run.status} {run.lost} {run.seconds:.1f}s"
            )
        notebook.run_kernel_cell(index)
        model = values_of(notebook.kernel.namespace)
        for mutant in by_cell.get(index, []):
            run_data = out["mutants"][mutant["ident"]]
            run_data["same_values"] = bool(run_data.get("values")) and run_data["values"] == model
    return out


def _defines_code(source: str) -> bool:
    """Does the cell define a function, a class or a lambda (whose behaviour a value cannot show)?"""
    from autograder.judge.hidden_tests import _plain_python

    try:
        tree = ast.parse(_plain_python(source))
    except SyntaxError:
        return True
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    return any(isinstance(node, kinds) for node in ast.walk(tree))


def values_of(namespace: dict[str, Any]) -> str:
    """The notebook's names and their values as one text: equal texts, equal notebooks.

    A value that crosses the judge's wire is written as it crosses; any other object (a
    function, a module, a class) by its kind, name and identity, which a forked process shares
    with its parent for every object made before the fork.
    """
    from autograder.judge import wire

    shown = {}
    for name, value in namespace.items():
        if name.startswith("_"):
            continue
        try:
            shown[name] = json.dumps(wire.encode(value), sort_keys=True, default=repr)
        except (wire.WireError, RecursionError, TypeError, ValueError):
            label = getattr(value, "__qualname__", type(value).__qualname__)
            shown[name] = f"{type(value).__name__} {label} {id(value)}"
    return json.dumps(shown, sort_keys=True)


def _mutant_task(notebook: Notebook, index: int, source: str, seconds: float) -> Callable[[], Run]:
    """The run of one mutant of cell *index*: its cells from there on, its tests after it."""
    return lambda: notebook.run_from(index, source, seconds, index + 1, True)


def _worker_main(job_path: str, result_path: str) -> int:
    """The worker process: read a job, write its runs."""
    sys.path.insert(0, str(REPO_ROOT))
    job = json.loads(Path(job_path).read_text())
    name = Path(job["notebook"]).parent.name

    def progress(text: str) -> None:
        print(f"  [{name}] {text}", file=sys.stderr, flush=True)

    os.chdir(Path(job["notebook"]).parent)
    result = work(job, progress)
    Path(result_path).write_text(json.dumps(result))
    return 0


# --------------------------------------------------------------------------- scoring


@dataclass
class Outcome:
    """One mutant and what became of it."""

    mutant: Mutant
    verdict: str  # "killed", "survived", "equivalent", "invalid" or "error"
    detail: str = ""  # the test that lost points, the timeout, the error, why it is equivalent
    caught_by_visible: bool = False


@dataclass
class AssignmentScore:
    """The figures of one assignment."""

    assignment: str
    sites: int  # mutants the operators make, before the cap
    outcomes: list[Outcome] = field(default_factory=list)
    harness_error: str = ""
    baseline_seconds: float = 0.0
    stale: list[Equivalent] = field(default_factory=list)  # records to read again

    def count(self, verdict: str) -> int:
        return sum(o.verdict == verdict for o in self.outcomes)

    @property
    def timeouts(self) -> int:
        return sum(o.verdict == "killed" and o.detail.startswith("timeout") for o in self.outcomes)

    @property
    def hidden_only(self) -> int:
        return sum(o.verdict == "killed" and not o.caught_by_visible for o in self.outcomes)

    @property
    def score(self) -> float | None:
        killed, survived = self.count("killed"), self.count("survived")
        return killed / (killed + survived) if killed + survived else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "assignment": self.assignment,
            "harness_error": self.harness_error,
            "baseline_seconds": round(self.baseline_seconds, 2),
            "mutants_possible": self.sites,
            "generated": len(self.outcomes),
            "invalid": self.count("invalid"),
            "killed": self.count("killed"),
            "killed_by_timeout": self.timeouts,
            "killed_hidden_only": self.hidden_only,
            "survived": self.count("survived"),
            "equivalent": self.count("equivalent"),
            "errors": self.count("error"),
            "score": None if self.score is None else round(self.score, 3),
            "mutants": [
                {
                    **{k: v for k, v in asdict(o.mutant).items() if k != "source"},
                    "verdict": o.verdict,
                    "detail": o.detail,
                    "caught_by_visible": o.caught_by_visible,
                }
                for o in self.outcomes
            ],
            "stale_equivalents": [asdict(e) for e in self.stale],
        }


def judge_outcome(mutant: Mutant, run: dict[str, Any], maxima: dict[str, float]) -> Outcome:
    """Killed, survived, invalid or error, from one mutant's run."""
    status = run["status"]
    if status == "invalid":
        return Outcome(mutant, "invalid", run["error"])
    if status == "error":
        last = run["error"].strip().splitlines()[-1:]
        return Outcome(mutant, "error", last[0] if last else "")
    if status in ("timeout", "crashed"):
        return Outcome(mutant, "killed", f"{status}: {run['error']}")
    lost = sum(maxima[g] - p for g, p in run["scores"].items())
    visible = bool(run["visible_failed"])
    if run["lost"] or lost > 1e-9:
        return Outcome(mutant, "killed", f"{run['lost']} {run['scores'].get(run['lost'])}", visible)
    if run.get("same_values"):
        return Outcome(mutant, "equivalent", SAME_VALUES, visible)
    return Outcome(mutant, "survived", "", visible)


#: Why a survivor whose cell holds only values, all of them the model solution's, is equivalent.
SAME_VALUES = (
    "the changed cell defines no function and leaves every name with the model solution's "
    "value: nothing after it can tell it apart (checked by the harness)"
)


def apply_equivalents(
    score: AssignmentScore, every: list[Mutant], records: tuple[Equivalent, ...]
) -> None:
    """Mark the survivors *records* name as equivalent; keep the records that need reading again.

    A record is stale when it names a mutant that was killed, or none of *every* (all the
    notebook's mutants, sampled or not): its cell changed since it was written.
    """
    mine = [r for r in records if r.assignment == score.assignment]
    for number, outcome in enumerate(score.outcomes):
        found = [r for r in mine if r.matches(score.assignment, outcome.mutant)]
        if found and outcome.verdict == "survived":
            score.outcomes[number] = Outcome(
                outcome.mutant, "equivalent", found[0].why, outcome.caught_by_visible
            )
        elif found and outcome.verdict == "killed":
            score.stale += found
    score.stale += [r for r in mine if not any(r.matches(score.assignment, m) for m in every)]


def score_assignment(
    notebook_path: Path,
    cap: int = CAP_PER_CELL,
    timeout: float = MUTANT_SECONDS,
    python: str = sys.executable,
    records: tuple[Equivalent, ...] | None = None,
) -> AssignmentScore:
    """Generate the mutants of one source notebook, run them in a worker, and score them."""
    notebook = json.loads(notebook_path.read_text(encoding="utf-8"))
    mutants, sites = notebook_mutants(notebook, cap)
    score = AssignmentScore(notebook_path.parent.name, sites)
    with tempfile.TemporaryDirectory(prefix="mutation-") as folder:
        job_path, result_path = Path(folder, "job.json"), Path(folder, "result.json")
        job = {
            "notebook": str(notebook_path.resolve()),
            "timeout": timeout,
            "mutants": [asdict(m) for m in mutants],
        }
        job_path.write_text(json.dumps(job))
        env = {
            **os.environ,
            "MPLBACKEND": "Agg",
            "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1",
        }
        command = [
            python,
            str(Path(__file__).resolve()),
            "--worker",
            str(job_path),
            str(result_path),
        ]
        finished = subprocess.run(command, cwd=notebook_path.parent, env=env)
        if finished.returncode != 0 or not result_path.exists():
            score.harness_error = f"the worker failed (exit {finished.returncode})"
            return score
        result = json.loads(result_path.read_text())
    score.baseline_seconds = result["baseline"]["seconds"]
    if result.get("harness_error"):
        baseline = result["baseline"]
        score.harness_error = (
            f"{result['harness_error']}: {baseline['status']} {baseline['scores']} "
            f"{baseline['error']}".strip()
        )
        return score
    for mutant in mutants:
        score.outcomes.append(
            judge_outcome(mutant, result["mutants"][mutant.ident], result["maxima"])
        )
    every = notebook_mutants(notebook, sys.maxsize)[0]
    apply_equivalents(score, every, load_equivalents() if records is None else records)
    return score


# --------------------------------------------------------------------------- report


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


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module's docstring)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--worker"]:
        return _worker_main(args[1], args[2])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", help="assignment folder names (or their starts)")
    parser.add_argument("--cap", type=int, default=CAP_PER_CELL, help="mutants per answer cell")
    parser.add_argument(
        "--timeout", type=float, default=MUTANT_SECONDS, help="seconds per mutant, at least"
    )
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="the figures as JSON: on stdout instead of the table, or into FILE beside it",
    )
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    options = parser.parse_args(args)
    notebooks = find_notebooks(options.assignments)
    if options.list:
        print("\n".join(listing(nb, options.cap) for nb in notebooks))
        return 0
    scores = []
    for path in notebooks:
        print(f"{path.parent.name}: running", file=sys.stderr, flush=True)
        scores.append(score_assignment(path, options.cap, options.timeout))
    if options.json:
        text = json.dumps([s.as_dict() for s in scores], indent=1)
        if options.json == "-":
            print(text)
        else:
            Path(options.json).write_text(text + "\n")
    if options.json != "-":
        print(table(scores))
        for s in scores:
            if not s.harness_error:
                print(survivors(s))
    return 1 if any(s.harness_error for s in scores) else 0


if __name__ == "__main__":
    sys.exit(main())
