"""The harness: a notebook graded the judge's way in this process, each mutant in a forked child."""

from __future__ import annotations

import ast
import contextlib
import json
import os
import resource
import select
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mutation import REPO_ROOT
from mutation.notebooks import nbgrader_meta

#: A mutant may also take this many times what the model solution takes for the same cells.
TIMEOUT_FACTOR = 4.0
#: Seconds the model solution's own run may take.
BASELINE_SECONDS = 900.0
#: Extra address space a mutant's process may take (bytes), so a runaway loop fails fast.
MEMORY_HEADROOM = 3 * 1024**3


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
        from autograder.judge.support import optional_hidden_support

        self.nb = nbformat.read(str(path), as_version=4)
        self.whole = split_hidden(self.nb)  # cell sources are now what the kernel runs
        self.code = [i for i, c in enumerate(self.nb.cells) if c.get("cell_type") == "code"]
        self.tests = [i for i in self.code if is_test(self.nb.cells[i])]
        self.base, self.setup_problems = setup_namespace(self.nb, None)  # cwd: its folder
        self.support = optional_hidden_support(Path.cwd())  # the judge's hidden_support.py
        self.kernel = InProcessKernel()

    def grade_id(self, index: int) -> str:
        return str(nbgrader_meta(self.nb.cells[index]).get("grade_id", index))

    def points(self, index: int) -> float:
        return float(nbgrader_meta(self.nb.cells[index]).get("points", 0) or 0)

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
                self.support,
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


def worker_main(job_path: str, result_path: str) -> int:
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
