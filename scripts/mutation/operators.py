"""The operators: each changes a model solution's code in one place (see ``scripts/mutation_score.py``)."""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass

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
