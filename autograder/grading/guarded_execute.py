"""nbgrader preprocessors the pipeline adds: guarded execution, output caps, safe feedback."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator

from jupyter_client.manager import AsyncKernelManager
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat.notebooknode import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer, List, Unicode

from autograder.grading import slot
from autograder.grading.cpu_limit import CpuTimeLimit
from autograder.grading.guard_requests import GuardRequests
from autograder.grading.judged_execution import JudgedExecution
from autograder.grading.outcome import CellTimeout, ExecutionReport
from autograder.judge.hidden_tests import restore_hidden, split_hidden
from autograder.judge.verdict import coalesce_streams
from autograder.sandbox.kernels import process_group, take_prestarted

#: What each notebook's execution reported, by notebook name (read by the worker).
EXECUTIONS: dict[str, ExecutionReport] = {}
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


class GuardedExecute(GuardRequests, JudgedExecution, CpuTimeLimit, Execute):
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

    #: True on the copy that re-runs a notebook up to the cell that stopped its kernel
    #: (:meth:`JudgedExecution._judge_before_stop`): it runs inside the first's turn.
    _rerun = False

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
        self._setup_imports: list[tuple[int, list[str]]] | None = None
        self._workdir = (resources or {}).get("metadata", {}).get("path")
        # the grader's kernel, whatever the student's notebook names
        nb.metadata.setdefault("kernelspec", {})["name"] = "python3"
        self.kernel_name = "python3"
        prestarted = take_prestarted("python3") if km is None else None
        # the kernel is sent only the visible part of each test cell; the judge runs them whole
        whole = split_hidden(nb) if self.judge else {}
        # the worker's turn: everything above was the grader's own work, done ahead of it
        turn = slot.CURRENT if not self._rerun else None
        if turn is not None:
            with timed_stage("slot: waiting for the turn"):
                deadline = turn.take()
            if deadline is not None:
                self.judge_deadline = deadline
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
            if turn is not None:  # the student's code has stopped: the next student may run
                with timed_stage("sandbox: end"):
                    turn.notebook_done()
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
