"""Run a notebook's graded test cells in the judge, outside the student's kernel.

:func:`split_hidden` takes the hidden sections out of the test cells before the kernel
runs the notebook, so the kernel is never sent a hidden line. Once the student's notebook
has run, :func:`judge_notebook` runs every test cell whole (its visible checks and its
hidden ones) in this process, each in a namespace of its own (see
:mod:`autograder.judge.namespace`) built on the locked setup cells run here too and on the
names :func:`~autograder.judge.support.hidden_test_names` gives every test (its case counter
and its assignment's ``hidden_support.py``, loaded here and never sent to the kernel), and
returns one :class:`~autograder.judge.verdict.Verdict` per test cell. A test's points
are the value of its last expression when that is a number (nbgrader's partial credit,
clamped to the cell's points), else all or nothing.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import io
import math
import os
import signal
import threading
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from nbformat.notebooknode import NotebookNode

from autograder.judge.channel import KernelChannel
from autograder.judge.namespace import JudgeNamespace, StudentFunction
from autograder.judge.raised import CallTimedOut, KernelGone, LibraryUsed
from autograder.judge.support import hidden_test_names, optional_hidden_support
from autograder.judge.verdict import Verdict

BEGIN = "### BEGIN HIDDEN TESTS"
END = "### END HIDDEN TESTS"
#: Seconds of the judge's own time a test cell may take (the student's calls included).
TEST_SECONDS = 120.0


class JudgeTimeout(Exception):
    """A hidden test ran past :data:`TEST_SECONDS` in the judge."""


def _nbgrader(cell: NotebookNode) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def is_test(cell: NotebookNode) -> bool:
    """A graded test cell (code, graded, not an answer)."""
    meta = _nbgrader(cell)
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def is_setup(cell: NotebookNode) -> bool:
    """A locked code cell of the instructor's that is neither a test nor an answer."""
    meta = _nbgrader(cell)
    return (
        cell.get("cell_type") == "code"
        and bool(meta.get("locked"))
        and not meta.get("grade")
        and not meta.get("solution")
    )


def visible_part(source: str) -> str:
    """*source* without its hidden sections (as nbgrader's release removes them).

    >>> visible_part("assert f(1) == 1\\n### BEGIN HIDDEN TESTS\\nassert f(2) == 4\\n### END HIDDEN TESTS\\n")
    'assert f(1) == 1\\n'
    """
    kept, hidden = [], False
    for line in source.splitlines(keepends=True):
        if BEGIN in line:
            hidden = True
        elif END in line:
            hidden = False
        elif not hidden:
            kept.append(line)
    return "".join(kept)


def split_hidden(nb: NotebookNode) -> dict[int, str]:
    """Leave only the visible part in each test cell; return the whole sources by cell index."""
    whole: dict[int, str] = {}
    for index, cell in enumerate(nb.cells):
        if is_test(cell):
            whole[index] = cell.source
            cell.source = visible_part(cell.source)
    return whole


def restore_hidden(nb: NotebookNode, whole: dict[int, str]) -> None:
    """Put the whole sources back, so the graded notebook is the instructor's test as written."""
    for index, source in whole.items():
        nb.cells[index].source = source


@contextlib.contextmanager
def in_folder(folder: str | os.PathLike | None) -> Iterator[None]:
    """Run the block in *folder* (the assignment's own, where its data files are)."""
    if folder is None:
        yield
        return
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`JudgeTimeout` in the block after *seconds* (main thread only)."""
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return

    def expire(_signum: int, _frame: Any) -> None:
        raise JudgeTimeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def setup_namespace(nb: NotebookNode, folder: str | os.PathLike | None) -> tuple[dict, str]:
    """The names the locked setup cells define, run here in *folder*; and what went wrong."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    problems = []
    sink = io.StringIO()
    with in_folder(folder), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        for index, cell in enumerate(nb.cells):
            if not is_setup(cell):
                continue
            try:
                exec(
                    compile(_plain_python(cell.source), f"<setup cell {index + 1}>", "exec"),
                    namespace,
                )
            except Exception:  # noqa: BLE001 - reported in the log; the tests then fail
                problems.append(traceback.format_exc(limit=3))
    return namespace, "\n".join(problems)


def _plain_python(source: str) -> str:
    """A cell's source with IPython's line magics and shell escapes left out."""
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()
    )


def run_test(
    grade_id: str,
    max_points: float,
    source: str,
    base: dict[str, Any],
    lookup: Callable[[str], Any],
    seconds: float = TEST_SECONDS,
    support: ModuleType | None = None,
) -> Verdict:
    """Run one whole test cell in a namespace of its own and judge it.

    The namespace holds the setup's names (*base*), then what every test finds ready (a
    fresh case counter, the behaviour check and *support*'s helpers); any other name is
    the student's, through *lookup*.
    """
    namespace = JudgeNamespace({**base, **hidden_test_names(support)}, lookup)
    log = io.StringIO()
    log.write(f"--- {grade_id}\n")
    value: Any = None
    failed: BaseException | None = None
    try:
        tree = ast.parse(_plain_python(source), f"<test {grade_id}>")
        last = tree.body[-1] if tree.body else None
        if isinstance(last, ast.Expr):
            tree.body.pop()
        else:
            last = None
        body = compile(tree, f"<test {grade_id}>", "exec")
        final = compile(ast.Expression(last.value), f"<test {grade_id}>", "eval") if last else None
        with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log), time_limit(seconds):
            exec(body, namespace)
            value = eval(final, namespace) if final is not None else None
    except (Exception, JudgeTimeout) as error:  # noqa: BLE001 - any failure fails the test
        failed = error
        log.write(traceback.format_exc(limit=6))
    cases_run, cases_passed = _cases(namespace)
    if failed is not None:
        points = 0.0
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        points = float(value) if math.isfinite(value) else 0.0
        points = min(max(points, 0.0), max_points)
    else:
        points = max_points
    hint = namespace.get("_hint")
    gone = isinstance(failed, KernelGone)
    return Verdict(
        grade_id=grade_id,
        max_points=max_points,
        points=round(points, 2),
        cases_run=cases_run,
        cases_failed=None if cases_run is None else cases_run - cases_passed,
        missing=tuple(namespace.missing) if failed is not None else (),
        timed_out=isinstance(failed, (CallTimedOut, JudgeTimeout))
        or "CallTimedOut" in log.getvalue(),
        kernel_gone=gone,
        library_used=isinstance(failed, LibraryUsed),
        hint=hint if type(hint) is str else "",
        log=log.getvalue()[-20_000:],
    )


def _cases(namespace: dict[str, Any]) -> tuple[int | None, int]:
    """(cases run, cases passed) from a test's ``_parts`` counter, when it counted a case
    (every test is given one: a test of no cases leaves it at ``[0, 0]``)."""
    parts = dict.get(namespace, "_parts")
    if type(parts) is list and len(parts) == 2 and all(type(p) is int for p in parts):
        run, passed = parts[1], parts[0]
        if 0 <= passed <= run and run > 0:
            return run, passed
    return None, 0


def student_lookup(channel: KernelChannel, at: int | None = None) -> Callable[[str], Any]:
    """Look a student's name up in the kernel: a function by proxy, a value as plain data.

    With *at*, names are as test cell *at* found them, and so are the names its calls see.
    """

    def call(name: str, args: tuple, kwargs: dict, allow: Any, globals_: Any) -> Any:
        return channel.call(name, args, kwargs, allow, globals_, at)

    def lookup(name: str) -> Any:
        kind, value = channel.describe(name, at)
        if kind == "missing":
            raise KeyError(name)
        if kind == "function":
            return StudentFunction(name, call)
        return value

    return lookup


def judge_notebook(
    nb: NotebookNode,
    whole: dict[int, str],
    channel: KernelChannel,
    folder: str | os.PathLike | None,
    seconds: float = TEST_SECONDS,
) -> tuple[dict[int, Verdict], str]:
    """A verdict for every test cell of *nb* (by index), and the setup's problems for the log."""
    base, problems = setup_namespace(nb, folder)
    try:
        support = optional_hidden_support(folder)
    except Exception:  # noqa: BLE001 - reported in the log; the tests that need it then fail
        support = None
        problems = "\n".join(filter(None, [problems, traceback.format_exc(limit=3)]))
    verdicts = {}
    with in_folder(folder):
        for index, source in whole.items():
            meta = _nbgrader(nb.cells[index])
            refused = len(channel.log.library)
            verdict = run_test(
                str(meta.get("grade_id", index)),
                float(meta.get("points", 0) or 0),
                source,
                base,
                student_lookup(channel, index),
                seconds,
                support,
            )
            helpers = channel.log.library[refused:]
            if helpers:  # a case that reached a forbidden helper, even one the test forgave
                verdict = dataclasses.replace(
                    verdict,
                    library_used=True,
                    log=verdict.log + "".join(f"windowmem refused: {h}\n" for h in helpers[:5]),
                )
            verdicts[index] = verdict
    return verdicts, problems


def assignment_folder(source_root: str | os.PathLike, assignment: str) -> Path | None:
    """The instructor's folder of *assignment*, where its setup cells find their data."""
    folder = Path(source_root) / assignment
    return folder if folder.is_dir() else None
