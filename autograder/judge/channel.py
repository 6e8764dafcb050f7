"""The judge's only way into the student's kernel: plain data out, plain data back.

Once the student's notebook has run, the judge listens on a Unix socket in the kernel's
own socket folder and sends the kernel one request, not stored in its history, whose user
expression starts :func:`autograder.judge.in_kernel.serve`: the kernel connects and from
then on answers one JSON line per request, so a call costs a socket round trip rather
than an execute request. What the kernel publishes meanwhile (prints, displays, errors)
is read and dropped. Each call has its own limit in the kernel's CPU seconds, with a
wall-clock ceiling for a kernel that sleeps: past it the kernel is interrupted, and a
kernel that ignores the interrupt is killed, after which every call fails at once with
:class:`KernelGone`. The processes a call starts do not outlive it (see
:mod:`autograder.judge.kernel_processes`, which also marks each call's CPU), and past the
judge's *deadline* (the student's time, less what the grader needs after the tests)
no call is made: each fails at once with :class:`CallTimedOut`, so the tests still end
with a score.

What comes back is decoded by :mod:`autograder.judge.wire` (plain types only). An
exception in the student's function comes back as the names of its classes only and is
raised here as the built-in exception of that name (so ``except ValueError`` in a test
still works) with no message, or as :class:`StudentRaised`.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from queue import Empty
from typing import Any

from nbclient.util import run_sync

from autograder.judge import wire
from autograder.judge.kernel_processes import KernelProcesses
from autograder.judge.raised import (
    CallTimedOut,
    KernelGone,
    LibraryUsed,
    Unreadable,
    exception_for,
)
from autograder.judge.values import SentValues

#: The kernel-side modules' names (installed by the guard's setup cell).
WIRE_MODULE = "_autograder_wire"
KERNEL_MODULE = "_autograder_judge"
GUARD_MODULE = "_autograder_guard"
#: Modules the judge's end relies on in the kernel (its own, and what it forks and talks
#: with): the guard puts back what a notebook changed of them before the judge serves.
JUDGE_ROOTS = (WIRE_MODULE, KERNEL_MODULE, "os", "gc", "signal", "json", "socket")
#: Seconds between two readings of the kernel's CPU time while a call runs.
POLL_SECONDS = 0.1


@dataclass
class ChannelLog:
    """What the channel did, for the instructor's log (never for the student)."""

    requests: int = 0
    timeouts: list[str] = field(default_factory=list)
    library: list[str] = field(default_factory=list)  # what the behaviour check refused
    killed: str | None = None
    seconds: float = 0.0
    strays: int = 0  # processes a call left running, killed after it
    out_of_time: bool = False  # the deadline came before every call was made


class KernelChannel:
    """Calls into the student's kernel through *client*, with per-call limits."""

    def __init__(
        self,
        client: Any,
        manager: Any,
        *,
        cpu_seconds_per_call: float,
        wall_clock_factor: float = 3.0,
        interrupt_grace: float = 5.0,
        connect_seconds: float = 30.0,
        kill: Callable[[], None] | None = None,
        calls_apart: bool = False,
        deadline: float | None = None,
    ) -> None:
        self.client = client
        self.manager = manager
        # each call in a forked copy of the kernel (in_kernel.call_apart): nothing a call
        # changes outlives it, at a few milliseconds of the kernel's CPU per call and more
        # where the behaviour check copies the pages it walks
        self.calls_apart = calls_apart
        self.cpu_seconds_per_call = cpu_seconds_per_call
        self.wall_clock_factor = wall_clock_factor
        self.interrupt_grace = interrupt_grace
        self.connect_seconds = connect_seconds
        self._kill = kill
        # time.monotonic() past which no call is made (None: the per-call limits only)
        self.deadline = deadline
        self.gone = False
        self.log = ChannelLog()
        self._socket: socket.socket | None = None
        self._buffer = bytearray()
        self._sent = SentValues()  # conversations sent whole once, then by number
        self._folder: str | None = None
        self._serve_id: str | None = None
        # its processes: a call's CPU mark, and what a call leaves behind is killed
        self.processes = KernelProcesses(manager)

    # ------------------------------------------------------------------ the two requests

    def describe(self, name: str, at: int | None = None) -> tuple[str, Any]:
        """``("missing" | "function" | "value", value)`` for a name of the notebook.

        With *at*, as the name was bound when test cell *at* was reached.
        """
        answer = self._request({"op": "describe", "name": name, "at": at}, f"looking up {name}")
        kind = answer.get("kind")
        if kind == "value":
            return "value", self._decode(answer.get("value"))
        if kind in ("missing", "function"):
            return kind, None
        raise Unreadable()

    def call(
        self,
        name: str,
        args: tuple,
        kwargs: dict,
        allow: tuple[str, ...] | None = None,
        notebook_globals: dict[str, Any] | None = None,
        at: int | None = None,
    ) -> Any:
        """What the notebook's function *name* returns for these arguments, as plain data.

        *notebook_globals* are set in the notebook's namespace for the call, then put back;
        with *at*, the call sees the names as test cell *at* found them.
        """
        arguments = wire.encode(
            {"args": list(args), "kwargs": dict(kwargs), "globals": dict(notebook_globals or {})},
            self._sent.write,
        )
        request = {
            "op": "call",
            "name": name,
            "arguments": arguments,
            "allow": None if allow is None else list(allow),
            "at": at,
            "apart": self.calls_apart,
        }
        answer = self._request(request, f"calling {name}")
        if "raised" in answer:
            raised = answer["raised"]
            blocked = answer.get("blocked")
            if type(blocked) is str:
                self.log.library.append(blocked[:300])
                raise LibraryUsed(blocked[:300])
            raise exception_for(raised if type(raised) is list else [])
        if "value" not in answer:
            raise Unreadable()
        return self._decode(answer["value"])

    def _decode(self, data: Any) -> Any:
        try:
            return wire.decode(data)
        except (wire.WireError, RecursionError, MemoryError):
            raise Unreadable() from None

    # ------------------------------------------------------------------ opening and closing

    def open(self) -> None:
        """Start the kernel's server and take its connection (once; KernelGone if it never comes)."""
        if self._socket is not None:
            return
        if self.gone:
            raise KernelGone()
        self._folder = tempfile.mkdtemp(prefix="aj-", dir=self._socket_parent())
        path = os.path.join(self._folder, "judge")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(path)
            self._let_kernel_connect(path)
            listener.listen(1)
            module = f"__import__('sys').modules[{KERNEL_MODULE!r}]"
            self._serve_id = silent_expressions(
                self.client,
                {
                    # what the notebook changed of the library and the interpreter is put
                    # back first (the behaviour check included), as before each test cell
                    "restored": f"__import__('sys').modules[{GUARD_MODULE!r}].SNAPSHOT.restore()",
                    "served": f"{module}.serve({path!r})",
                },
            )
            listener.settimeout(POLL_SECONDS)
            end = time.monotonic() + self.connect_seconds
            while True:
                try:
                    self._socket, _ = listener.accept()
                    break
                except TimeoutError:
                    if time.monotonic() >= end or not self.processes.alive():
                        self._gone("the kernel did not connect to the judge")
        finally:
            listener.close()  # one connection: nothing else can connect after the kernel
            with contextlib.suppress(OSError):
                os.unlink(path)
        self._socket.settimeout(POLL_SECONDS)
        self.processes.mark_serving()

    def close(self) -> None:
        """Close the socket (the kernel's server returns) and drop what the kernel published."""
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.close()
            self._socket = None
        if self._folder is not None:
            with contextlib.suppress(OSError):
                os.rmdir(self._folder)
            self._folder = None
        if not self.gone:
            self._wait_for_serve_end()
            self._drain_output()

    def _wait_for_serve_end(self, seconds: float = 2.0) -> None:
        """Take the reply of the request that served the judge, once the kernel has returned."""
        if self._serve_id is None:
            return
        get = run_sync(self.client.shell_channel.get_msg)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                reply = get(timeout=POLL_SECONDS)
            except Empty:
                continue
            except Exception:  # noqa: BLE001 - a closed channel: nothing to wait for
                break
            if reply.get("parent_header", {}).get("msg_id") == self._serve_id:
                break
        self._serve_id = None

    def _socket_parent(self) -> str | None:
        """The kernel's socket folder when it has one (inside its sandbox), else the temp folder."""
        folder = getattr(self.manager, "ipc_dir", None)
        return str(folder) if folder is not None else None

    def _let_kernel_connect(self, path: str) -> None:
        """Give the socket and its folder to the kernel's user (a sandboxed kernel is not root)."""
        owner = os.stat(self._folder if self._socket_parent() is None else self._socket_parent())  # type: ignore[arg-type]
        for item in (self._folder, path):
            with contextlib.suppress(OSError):
                os.chown(item, owner.st_uid, owner.st_gid)  # type: ignore[arg-type]
        os.chmod(self._folder, 0o700)  # type: ignore[arg-type]
        os.chmod(path, 0o600)

    # ------------------------------------------------------------------ the round trip

    def _request(self, request: dict, what: str) -> dict:
        if self._out_of_time():
            raise CallTimedOut()
        self.open()
        started = time.perf_counter()
        self.log.requests += 1
        try:
            line = json.dumps(request, separators=(",", ":")).encode() + b"\n"
            try:
                self._socket.sendall(line)  # type: ignore[union-attr]
            except OSError:
                self._gone(f"the kernel's end of the channel closed before {what}")
            text = self._reply(what)
        finally:
            if not self.gone:
                self.log.strays += self.processes.end_strays()
            self.log.seconds += time.perf_counter() - started
        try:
            answer = json.loads(text)
        except (ValueError, RecursionError):
            raise Unreadable() from None
        if type(answer) is not dict or "error" in answer:
            raise Unreadable()
        return answer

    def _reply(self, what: str) -> bytes:
        """The kernel's next line, within the call's CPU limit and its wall-clock ceiling."""
        cpu_start = self.processes.cpu_before_call()
        wall_end = time.monotonic() + self.cpu_seconds_per_call * self.wall_clock_factor
        if self.deadline is not None:
            wall_end = min(wall_end, self.deadline)
        while True:
            line = self._read_line()
            if line is not None:
                return line
            used = (self.processes.cpu_now() or 0.0) - (cpu_start or 0.0)
            if used >= self.cpu_seconds_per_call or time.monotonic() >= wall_end:
                self.log.timeouts.append(what)
                self._out_of_time()
                return self._interrupt(what)
            if not self.processes.alive():
                self._gone(f"the kernel died while {what}")

    def _out_of_time(self) -> bool:
        """True (and noted in the log) once the judge's deadline has come."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.log.out_of_time = True
        return self.log.out_of_time

    def _read_line(self) -> bytes | None:
        """A whole line from the kernel, None when none came within the poll, or KernelGone."""
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[: end + 1])
                del self._buffer[: end + 1]
                return line
            if len(self._buffer) > wire.MAX_CHARS:
                self._gone("the kernel sent an answer that is too long")
            try:
                piece = self._socket.recv(1 << 16)  # type: ignore[union-attr]
            except TimeoutError:
                return None
            except OSError:
                self._gone("the kernel's end of the channel failed")
            if not piece:
                self._gone("the kernel closed the channel")
            self._buffer += piece

    def _interrupt(self, what: str) -> bytes:
        with contextlib.suppress(Exception):
            run_sync(self.manager.interrupt_kernel)()
        end = time.monotonic() + self.interrupt_grace
        while time.monotonic() < end:
            if self._read_line() is not None:
                raise CallTimedOut()
        self._gone(f"the kernel ignored the interrupt after {what} ran out of time; killed")
        raise AssertionError("unreachable")

    def _gone(self, why: str) -> None:
        self.gone = True
        self.log.killed = why
        if self._kill is not None:
            with contextlib.suppress(Exception):
                self._kill()
        raise KernelGone()

    def _drain_output(self) -> None:
        """Drop everything the kernel published: what a judged call prints is discarded."""
        get = run_sync(self.client.iopub_channel.get_msg)
        for _ in range(100_000):
            try:
                get(timeout=0)
            except Empty:
                return
            except Exception:  # noqa: BLE001 - a closed channel has nothing more to drop
                return


def silent_expressions(client: Any, expressions: dict[str, str]) -> str:
    """Send the kernel *expressions* to evaluate, in order, kept out of its history: the msg id.

    IPython evaluates a user expression without its input transformers, so a transformer a
    student installed cannot rewrite the grader's calls.
    """
    return client.execute(
        "", silent=True, store_history=False, allow_stdin=False, user_expressions=expressions
    )
