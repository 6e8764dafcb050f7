"""nbgrader preprocessors the pipeline adds: guarded execution, output caps, safe feedback."""

from __future__ import annotations

import ast
import contextlib
import os
import secrets
import signal
import time
from collections.abc import Iterator
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat.notebooknode import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer, List, Unicode

from autograder.grading.cpu_limit import CpuTimeLimit
from autograder.grading.judged_execution import JudgedExecution
from autograder.grading.outcome import CellTimeout, ExecutionReport
from autograder.judge import in_kernel, wire
from autograder.judge.channel import (
    GUARD_MODULE,
    JUDGE_ROOTS,
    KERNEL_MODULE,
    WIRE_MODULE,
    silent_expressions,
)
from autograder.judge.hidden_tests import is_setup, restore_hidden, split_hidden
from autograder.judge.verdict import coalesce_streams
from autograder.sandbox import kernel_guard
from autograder.sandbox.kernels import process_group, take_prestarted

#: What each notebook's execution reported, by notebook name (read by the worker).
EXECUTIONS: dict[str, ExecutionReport] = {}
#: Seconds to wait for the probe's reply and output.
PROBE_TIMEOUT = 30
#: Seconds spent in each stage of execution, summed over the worker's notebooks (the profile).
STAGE_SECONDS: dict[str, float] = {}


@contextlib.contextmanager
def timed_stage(name: str) -> Iterator[None]:
    """Add the time the block takes to :data:`STAGE_SECONDS` under *name*."""
    started = time.perf_counter()
    try:
        yield
    finally:
        STAGE_SECONDS[name] = STAGE_SECONDS.get(name, 0.0) + time.perf_counter() - started


def cell_label(cell: NotebookNode, index: int | None = None) -> str:
    """How a detail names a cell: its nbgrader ``grade_id``, else its position."""
    grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
    if grade_id:
        return f"cell '{grade_id}'"
    return f"cell {index + 1} (no grade_id)" if index is not None else "an unnamed cell"


def error_output(ename: str, evalue: str) -> NotebookNode:
    """An ``error`` output, which nbgrader scores as a failed test."""
    return NotebookNode(
        output_type="error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"]
    )


class GuardedExecute(JudgedExecution, CpuTimeLimit, Execute):
    """nbgrader's Execute, hardened against loops, dead kernels and tampering.

    Before the first cell it snapshots ``builtins``, the guarded packages and the cell
    machinery in the kernel (see :mod:`autograder.sandbox.kernel_guard`); before each graded
    test cell it restores them and re-runs the imports of the locked setup cells, so the
    tests see the names the instructor imported, not a student's replacements. Then it
    sends a *probe*, a cell that must fail with a value only real execution gives; a
    kernel that does not report that failure (its input rewritten, its tracebacks
    swallowed, its replies forged) is recorded as unfaithful and the notebook is
    flagged. With the judge (the default), whose tests never run in the kernel, the
    restore before each test cell is not waited for and the probe is sent once, after
    the last cell (see :meth:`_restore_and_probe`). A cell that outlives ``timeout`` is interrupted as usual; if the kernel
    ignores the interrupt, it is killed and every later cell gets an error output (so it
    scores 0 instead of passing with no output). The limit counts the kernel's CPU time
    (see :mod:`autograder.grading.cpu_limit`). What happened goes to :data:`EXECUTIONS`.
    """

    guarded_roots = List(
        Unicode(), ["windowmem"], help="Packages whose attributes are restored before tests"
    ).tag(config=True)
    guarded_imports = List(Unicode(), [], help="Modules to import before the snapshot").tag(
        config=True
    )
    kernel_pid_file = Unicode("", help="Where to write the kernel's process group id").tag(
        config=True
    )
    kernel_output_chars = Integer(
        1_000_000,
        help="Characters of stdout/stderr a cell may send before the kernel drops the rest",
    ).tag(config=True)
    sandboxed = Bool(
        False, help="The kernel runs in a sandbox that already starts it in its folder"
    ).tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        self._guard_started = False
        self._stopped_by: str | None = None
        self._running = "a cell"
        self._timeouts: list[CellTimeout] = []
        self._killed: str | None = None
        self._died: str | None = None
        self._stop_index: int | None = None
        self._judge_out_of_time = False
        self._restored: list[str] = []
        self._unfaithful: list[str] = []
        self._workdir = (resources or {}).get("metadata", {}).get("path")
        # the grader's kernel, whatever the student's notebook names
        nb.metadata.setdefault("kernelspec", {})["name"] = "python3"
        self.kernel_name = "python3"
        prestarted = take_prestarted("python3") if km is None else None
        # the kernel is sent only the visible part of each test cell; the judge runs them whole
        whole = split_hidden(nb) if self.judge else {}
        try:
            result = super().preprocess(nb, resources, prestarted or km)
            for cell in nb.cells:  # the same bytes whatever chunks the kernel sent
                if cell.cell_type == "code":
                    cell.outputs = coalesce_streams(cell.outputs)
            if self.judge and self._guard_started and self._stopped_by is None:
                with timed_stage("guard: restore + probe"):
                    self._restore_and_probe(None, "the hidden tests")
            if self.judge:
                with timed_stage("judge"):
                    self._judge(nb, whole, resources or {})
            return result
        finally:
            restore_hidden(nb, whole)
            if prestarted is not None:  # nbclient leaves a kernel it did not start running
                self._shut_down(prestarted)
            notebook = (resources or {}).get("nbgrader", {}).get("notebook", "notebook")
            EXECUTIONS[notebook] = ExecutionReport(
                tuple(self._timeouts),
                self._killed,
                self._died,
                tuple(self._restored),
                tuple(self._unfaithful),
                self._judge_out_of_time,
            )

    def preprocess_cell(self, cell, resources, index):
        if self._stopped_by is not None:
            if cell.cell_type == "code":
                cell.outputs = [error_output("NotRun", self._stopped_by)]
            return cell, resources
        if not self._guard_started:
            with timed_stage("guard: install"):
                self._start_guard()
        self._running = cell_label(cell, index)
        if cell.cell_type == "code" and utils.is_grade(cell):
            if self.judge:
                with timed_stage("guard: restore"):
                    self._send_restore(index)
            else:
                with timed_stage("guard: restore + probe"):
                    self._restore_and_probe(index, cell_label(cell, index))
        try:
            with timed_stage("cells"):
                return super().preprocess_cell(cell, resources, index)
        except CellTimeoutError:
            self._stop_kernel(cell, index, kill=True)
        except DeadKernelError:
            self._stop_kernel(cell, index, kill=False)
        return cell, resources

    def start_new_kernel_client(self):
        with timed_stage("kernel: wait until ready"):
            return super().start_new_kernel_client()

    async def _async_handle_timeout(self, timeout, cell=None):
        self._timeouts.append(CellTimeout(self._running, float(timeout)))
        return await super()._async_handle_timeout(timeout, cell)

    def _stop_kernel(self, cell: NotebookNode, index: int, *, kill: bool) -> None:
        label = cell_label(cell, index)
        self._stop_index = index
        if kill:
            self._killed = label
            self._stopped_by = f"not run: the kernel was killed after {label} ignored the interrupt at the time limit"
            self._kill_kernel()
            cell.outputs.append(
                error_output(
                    "CellTimeoutError", f"{label} did not stop when interrupted; kernel killed"
                )
            )
        else:
            self._died = label
            self._stopped_by = f"not run: the kernel died while running {label}"
            cell.outputs.append(
                error_output("DeadKernelError", f"the kernel died while running {label}")
            )

    def _shut_down(self, manager: AsyncKernelManager) -> None:
        if self.kc is not None:
            self.kc.stop_channels()
        if run_sync(manager.is_alive)():
            # the notebook is done: no need to wait for a graceful exit (about 0.3 s per student)
            run_sync(manager.shutdown_kernel)(now=True)

    def _kill_kernel(self) -> None:
        try:
            run_sync(self.km.shutdown_kernel)(now=True)
        except Exception:  # noqa: BLE001 - fall back to the process group
            pgid = process_group(self.km)
            if pgid:
                os.killpg(pgid, signal.SIGKILL)

    def _start_guard(self) -> None:
        self._guard_started = True
        if self.kernel_pid_file:
            Path(self.kernel_pid_file).write_text(str(process_group(self.km)))
        workdir = self._workdir if not self.sandboxed else None
        self._run_silently(
            guard_setup_code(
                self.kernel_output_chars,
                list(self.guarded_roots),
                list(self.guarded_imports),
                workdir,
            )
        )

    def _restore_and_probe(self, index: int | None, label: str) -> None:
        """Restore the guarded state, then probe the kernel: both requests sent at once.

        The kernel runs them in the order sent (its shell channel is a queue), so the
        restore still comes first and nothing of the student's runs between them; sending
        the probe without waiting for the restore's reply saves one round trip.

        With the judge, this runs once, after the notebook's last cell (*index* None): the
        restore names everything restored since the snapshot, and the probe checks that
        the kernel still runs what it is sent. The test cells' visible parts score
        nothing there, so a kernel that lies before one of them gains nothing, and one
        that lies at the end is still flagged. Without the judge the hidden tests run in
        the kernel, so this runs before every test cell.
        """
        restore = self._send_restore(index)
        probe = self._send_probe()
        self._read_restored(self.wait_for_reply(restore))
        self._check_probe(probe, label)

    def _send_restore(self, index: int | None) -> str:
        """Ask the kernel to restore the snapshot and re-run the locked cells' imports.

        The call travels as a user expression, which IPython evaluates without input
        transformers (a cell's code would be rewritten by one a student installed). With
        the judge, before test cell *index* it is sent without waiting for its reply: the
        kernel runs it before the cell, and nbclient, waiting for the cell's reply, drops
        this one; what it restored is read once, at the end (*index* None).
        """
        guard = f"__import__('sys').modules[{GUARD_MODULE!r}]"
        if index is None:
            return silent_expressions(
                self.kc, {"restored": f"{guard}.SNAPSHOT.restore_and_report()"}
            )
        imports = "\n".join(
            line
            for cell in self.nb.cells[:index]
            if is_setup(cell)
            for line in import_lines(cell.source)
        )
        return silent_expressions(
            self.kc,
            {
                "restored": f"{guard}.SNAPSHOT.restore_and_import({imports!r})",
                # the names as this test would have seen them: the judge's calls for it use them
                "noted": f"__import__('sys').modules[{KERNEL_MODULE!r}].note_names({index})",
            },
        )

    def _read_restored(self, reply: dict | None) -> None:
        """Keep the names the restore undid, from its reply (bounded: the kernel is untrusted)."""
        result = (reply or {}).get("content", {}).get("user_expressions", {}).get("restored", {})
        if result.get("status") != "ok":
            return
        try:
            restored = ast.literal_eval(result["data"]["text/plain"])
        except (KeyError, ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return
        for name in restored if isinstance(restored, list) else ():
            if isinstance(name, str) and name not in self._restored and len(self._restored) < 50:
                self._restored.append(name[:200])

    def _send_probe(self) -> tuple[str, str]:
        """Send a cell that must fail with a number only running it gives: (msg_id, that number)."""
        a, b = secrets.randbelow(10**6) + 10**6, secrets.randbelow(10**6) + 10**6
        code = f'"""Check the kernel runs this cell."""\nassert {a} * {b} == {a * b + 1}, {a} * {b}'
        msg_id = self.kc.execute(code, silent=False, store_history=True, allow_stdin=False)
        return msg_id, str(a * b)

    def _check_probe(self, probe: tuple[str, str], label: str) -> None:
        """Record a kernel that did not fail the probe with its number, or did not show the error."""
        msg_id, expected = probe
        problem = None
        try:
            reply = self.wait_for_reply(msg_id)
            content = (reply or {}).get("content", {})
            shown = self._probe_errors(msg_id)
            if (content.get("status"), content.get("evalue")) != ("error", expected):
                problem = f"it replied {content.get('status')!r} to a failing check before {label}"
            elif expected not in shown:
                problem = f"it did not show the error of a failing check before {label}"
        except Exception as error:  # noqa: BLE001 - a kernel that cannot answer is not trusted
            problem = f"it did not answer a check before {label} ({type(error).__name__})"
        if problem and len(self._unfaithful) < 20:
            self._unfaithful.append(problem)

    def _probe_errors(self, msg_id: str) -> list[str]:
        """The ``evalue`` of every error the kernel published for *msg_id*, up to its idle status."""
        shown: list[str] = []
        deadline = time.monotonic() + PROBE_TIMEOUT
        while time.monotonic() < deadline:
            message = run_sync(self.kc.iopub_channel.get_msg)(timeout=PROBE_TIMEOUT)
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = message["msg_type"], message["content"]
            if kind == "error":
                shown.append(str(content.get("evalue")))
            elif kind == "status" and content.get("execution_state") == "idle":
                return shown
        raise TimeoutError("no idle status after the probe")

    def _run_silently(self, code: str, **kwargs) -> dict | None:
        """Run *code* in the kernel without touching the notebook or its history."""
        msg_id = self.kc.execute(
            code, silent=True, store_history=False, allow_stdin=False, **kwargs
        )
        return self.wait_for_reply(msg_id)


def guard_setup_code(
    output_chars: int, roots: list[str], imports: list[str], workdir: str | None = None
) -> str:
    """The cell that installs the guard in a kernel: stream caps, plain stored errors, the snapshot.

    It leaves no name in the notebook's namespace; with *workdir*, the kernel moves there first.
    """
    source = Path(kernel_guard.__file__).read_text()
    move = f"    os.chdir({workdir!r})\n" if workdir else ""
    # the judge's end of the channel (autograder.judge.in_kernel) and its wire format
    judge = "".join(
        f"    module = types.ModuleType({name!r})\n"
        f"    exec(compile({Path(path).read_text()!r}, {name!r}, 'exec'), module.__dict__)\n"
        f"    sys.modules[{name!r}] = module\n"
        for name, path in ((WIRE_MODULE, wire.__file__), (KERNEL_MODULE, in_kernel.__file__))
    )
    return (
        "def _autograder_setup():\n"
        "    import os, sys, types\n"
        f"{move}"
        f"{judge}"
        f"    module = types.ModuleType({GUARD_MODULE!r})\n"
        f"    exec(compile({source!r}, {GUARD_MODULE!r}, 'exec'), module.__dict__)\n"
        f"    sys.modules[{GUARD_MODULE!r}] = module\n"
        f"    module.cap_streams({output_chars})\n"
        "    module.store_errors_plainly()\n"
        f"    module.SNAPSHOT = module.Snapshot({[*roots, *JUDGE_ROOTS]!r}, {imports!r})\n"
        "_autograder_setup()\n"
        "del _autograder_setup\n"
    )


def import_lines(code: str) -> list[str]:
    """The top-level import statements of *code*, one per line.

    >>> import_lines("from pathlib import Path\\nx = 1\\nimport json as j")
    ['from pathlib import Path', 'import json as j']
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    return [
        ast.unparse(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
    ]
