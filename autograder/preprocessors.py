"""nbgrader preprocessors the pipeline adds: guarded execution, output caps, safe feedback."""

from __future__ import annotations

import ast
import json
import os
import signal
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat.notebooknode import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import ClearHiddenTests, Execute, NbGraderPreprocessor
from traitlets import Integer, List, Unicode

from autograder import kernel_guard

#: Name of the guard module inside the student's kernel.
GUARD_MODULE = "_autograder_guard"
#: Kernels started ahead of time by :func:`prestart_kernel`, taken by the next execution.
_PRESTARTED: list[AsyncKernelManager] = []
#: What nbgrader's Execute passes to a Python kernel.
KERNEL_ARGUMENTS = ["--HistoryManager.hist_file=:memory:"]


def prestart_kernel(kernel_name: str = "python3", cwd: str | None = None) -> int | None:
    """Start a kernel now, so it boots while nbgrader sanitizes the notebook; the next run uses it.

    The kernel moves to the notebook's folder before the first cell (nbgrader recreates
    that folder, so it cannot be the kernel's starting directory). Returns its process group.
    """
    manager = AsyncKernelManager(kernel_name=kernel_name)
    run_sync(manager.start_kernel)(extra_arguments=KERNEL_ARGUMENTS, cwd=cwd)
    _PRESTARTED.append(manager)
    return _process_group(manager)


def shut_down_prestarted() -> None:
    """Stop kernels started ahead of time that no execution took (grading failed before running)."""
    while _PRESTARTED:
        run_sync(_PRESTARTED.pop().shutdown_kernel)(now=True)


def _process_group(manager: AsyncKernelManager) -> int | None:
    provisioner = manager.provisioner
    return getattr(provisioner, "pgid", None) or getattr(provisioner, "pid", None)


def _take_prestarted(kernel_name: str) -> AsyncKernelManager | None:
    for manager in _PRESTARTED:
        if manager.kernel_name == kernel_name:
            _PRESTARTED.remove(manager)
            return manager
    return None


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


class GuardedExecute(Execute):
    """nbgrader's Execute, hardened against loops, dead kernels and monkeypatching.

    Before the first cell it snapshots ``builtins`` and the guarded packages in the
    kernel (see :mod:`autograder.kernel_guard`); before each graded code cell it restores
    them and re-runs the imports of the locked setup cells, so the tests see the names
    the instructor imported, not a student's replacements. A cell that outlives
    ``timeout`` is interrupted as usual; if the kernel ignores the interrupt, it is killed
    and every later cell gets an error output (so it scores 0 instead of passing with no
    output). What happened is written to ``report_dir``.
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
    report_dir = Unicode(
        "", help="Folder for one JSON report per notebook of what happened while it ran"
    ).tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        self._guard_started = False
        self._stopped_by: str | None = None
        self._running = "a cell"
        self.report: dict = {
            "timeouts": [],
            "kernel_killed": None,
            "kernel_died": None,
            "restored": [],
        }
        self._workdir = (resources or {}).get("metadata", {}).get("path")
        prestarted = (
            _take_prestarted(nb.metadata.get("kernelspec", {}).get("name", "python3"))
            if km is None
            else None
        )
        try:
            return super().preprocess(nb, resources, prestarted or km)
        finally:
            if prestarted is not None:  # nbclient leaves a kernel it did not start running
                self._shut_down(prestarted)
            if self.report_dir:
                notebook = (resources or {}).get("nbgrader", {}).get("notebook", "notebook")
                Path(self.report_dir, f"{notebook}.json").write_text(
                    json.dumps(self.report, indent=1)
                )

    def preprocess_cell(self, cell, resources, index):
        if self._stopped_by is not None:
            if cell.cell_type == "code":
                cell.outputs = [error_output("NotRun", self._stopped_by)]
            return cell, resources
        if not self._guard_started:
            self._start_guard()
        self._running = cell_label(cell, index)
        if cell.cell_type == "code" and utils.is_grade(cell):
            self._restore_guarded_state(index)
        try:
            return super().preprocess_cell(cell, resources, index)
        except CellTimeoutError:
            self._stop_kernel(cell, index, kill=True)
        except DeadKernelError:
            self._stop_kernel(cell, index, kill=False)
        return cell, resources

    async def _async_handle_timeout(self, timeout, cell=None):
        label = self._running
        self.report["timeouts"].append({"cell": label, "seconds": timeout})
        return await super()._async_handle_timeout(timeout, cell)

    def _stop_kernel(self, cell: NotebookNode, index: int, *, kill: bool) -> None:
        label = cell_label(cell, index)
        if kill:
            self.report["kernel_killed"] = label
            self._stopped_by = f"not run: the kernel was killed after {label} ignored the interrupt at the time limit"
            self._kill_kernel()
            cell.outputs.append(
                error_output(
                    "CellTimeoutError", f"{label} did not stop when interrupted; kernel killed"
                )
            )
        else:
            self.report["kernel_died"] = label
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
            pgid = getattr(self.km.provisioner, "pgid", None)
            if pgid:
                os.killpg(pgid, signal.SIGKILL)

    def _start_guard(self) -> None:
        self._guard_started = True
        if self.kernel_pid_file:
            Path(self.kernel_pid_file).write_text(str(_process_group(self.km)))
        source = Path(kernel_guard.__file__).read_text()
        move = f"    os.chdir({self._workdir!r})\n" if self._workdir else ""
        code = (
            "def _autograder_setup():\n"
            "    import os, sys, types\n"
            f"{move}"
            f"    module = types.ModuleType({GUARD_MODULE!r})\n"
            f"    exec(compile({source!r}, {GUARD_MODULE!r}, 'exec'), module.__dict__)\n"
            f"    sys.modules[{GUARD_MODULE!r}] = module\n"
            f"    module.SNAPSHOT = module.Snapshot({list(self.guarded_roots)!r}, {list(self.guarded_imports)!r})\n"
            "_autograder_setup()\n"
            "del _autograder_setup\n"
        )
        self._run_silently(code)

    def _restore_guarded_state(self, index: int) -> None:
        """Restore the snapshot, then re-run the locked cells' imports: one round trip to the kernel."""
        guard = f"__import__('sys').modules[{GUARD_MODULE!r}]"
        imports = [
            line
            for cell in self.nb.cells[:index]
            if _is_locked_setup(cell)
            for line in import_lines(cell.source)
        ]
        code = "\n".join([f"{guard}.SNAPSHOT.restore()", *imports])
        reply = self._run_silently(
            code, user_expressions={"restored": f"{guard}.SNAPSHOT.last_restored"}
        )
        result = (reply or {}).get("content", {}).get("user_expressions", {}).get("restored", {})
        if result.get("status") != "ok":
            return
        try:
            restored = ast.literal_eval(result["data"]["text/plain"])
        except (KeyError, ValueError, SyntaxError):
            return
        for name in restored:
            if name not in self.report["restored"]:
                self.report["restored"].append(name)

    def _run_silently(self, code: str, **kwargs) -> dict | None:
        """Run *code* in the kernel without touching the notebook or its history."""
        msg_id = self.kc.execute(
            code, silent=True, store_history=False, allow_stdin=False, **kwargs
        )
        return self.wait_for_reply(msg_id)


def _is_locked_setup(cell: NotebookNode) -> bool:
    return (
        cell.cell_type == "code"
        and utils.is_locked(cell)
        and not utils.is_grade(cell)
        and not utils.is_solution(cell)
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


class CapOutput(NbGraderPreprocessor):
    """Cap every output at ``max_chars`` characters, so flooding cannot swamp feedback.

    nbgrader's LimitOutput counts lines; one enormous line (or HTML) passes it.
    """

    max_chars = Integer(20_000, help="Largest output kept whole, in characters").tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                output.text = self._cap(output.text)
            elif output.output_type == "error":
                output.evalue = self._cap(output.evalue)
                output.traceback = [self._cap(line) for line in output.traceback]
            elif "data" in output:
                for mime in list(output.data):
                    value = output.data[mime]
                    if isinstance(value, str) and len(value) > self.max_chars:
                        if mime == "text/plain":
                            output.data[mime] = self._cap(value)
                        else:
                            del output.data[mime]
                            output.data.setdefault(
                                "text/plain",
                                f"[{mime} output of {len(value):,} characters removed by the autograder]",
                            )
        return cell, resources

    def _cap(self, text: str) -> str:
        if len(text) <= self.max_chars:
            return text
        return (
            text[: self.max_chars]
            + f"\n... output truncated by the autograder ({len(text):,} characters in all) ...\n"
        )


class HideHiddenTests(ClearHiddenTests):
    """Remove hidden tests from feedback, including what their tracebacks would quote."""

    def preprocess_cell(self, cell, resources, index):
        if not self._remove_hidden_test_region(cell) or cell.cell_type != "code":
            return cell, resources
        cell.source = (
            cell.source.rstrip("\n") + "\n# (hidden tests ran here; their code is not shown)"
        )
        for output in cell.get("outputs", []):
            if (
                output.output_type == "error" and len(output.traceback) > 1
            ):  # one line: ours, no code in it
                summary = f"{output.ename}: {output.evalue}".rstrip(": ")
                output.traceback = [
                    f"{summary} (raised in this cell; hidden test code is not shown)"
                ]
        return cell, resources
