"""The grader's requests to the guard inside the student's kernel: install, restore, probe.

:class:`GuardRequests` is mixed into :class:`~autograder.grading.guarded_execute.GuardedExecute`.
It installs the guard (:func:`guard_setup_code`: the stream cap, plain stored errors, the
judge's end of the channel and the snapshot of :mod:`autograder.sandbox.kernel_guard`),
asks it to restore the snapshot before a test cell, and sends the *probe*, a cell that
must fail with a number only running it gives: a kernel that does not report that failure
is recorded as unfaithful, and its notebook is flagged.
"""

from __future__ import annotations

import ast
import secrets
import time
from pathlib import Path
from typing import Any

from nbclient.util import run_sync
from traitlets.config import LoggingConfigurable

from autograder.judge import in_kernel, wire
from autograder.judge.channel import (
    GUARD_MODULE,
    JUDGE_ROOTS,
    KERNEL_MODULE,
    WIRE_MODULE,
    silent_expressions,
)
from autograder.judge.hidden_tests import is_setup
from autograder.sandbox import kernel_guard
from autograder.sandbox.kernels import process_group

#: Seconds to wait for the probe's reply and output.
PROBE_TIMEOUT = 30


class GuardRequests(LoggingConfigurable):
    """Mixin for the grader's execute preprocessor: what it asks of the guard in the kernel."""

    # set by the execute preprocessor this is mixed into
    kc: Any
    km: Any
    nb: Any
    judge: bool
    kernel_pid_file: str
    kernel_output_chars: int
    guarded_roots: list[str]
    guarded_imports: list[str]
    sandboxed: bool
    _guard_started: bool
    _workdir: str | None
    _restored: list[str]
    _unfaithful: list[str]
    _setup_imports: list[tuple[int, list[str]]] | None
    wait_for_reply: Any  # nbclient's

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
            line for at, lines in self._imports_of_setup_cells() if at < index for line in lines
        )
        return silent_expressions(
            self.kc,
            {
                "restored": f"{guard}.SNAPSHOT.restore_and_import({imports!r})",
                # the names as this test would have seen them: the judge's calls for it use them
                "noted": f"__import__('sys').modules[{KERNEL_MODULE!r}].note_names({index})",
            },
        )

    def _imports_of_setup_cells(self) -> list[tuple[int, list[str]]]:
        """Each locked setup cell's index and import lines, parsed once per notebook."""
        if self._setup_imports is None:
            self._setup_imports = [
                (at, import_lines(cell.source))
                for at, cell in enumerate(self.nb.cells)
                if is_setup(cell)
            ]
        return self._setup_imports

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
