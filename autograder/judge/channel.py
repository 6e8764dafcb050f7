"""The judge's only way into the student's kernel: plain data out, plain data back.

Each request is one ``execute_request`` with no code, not stored in the kernel's history,
carrying one user expression that calls :mod:`autograder.judge.in_kernel`. What the
kernel publishes meanwhile (prints, displays, errors) is read and dropped. Each call has
its own limit in the kernel's CPU seconds, with a wall-clock ceiling for a kernel that
sleeps: past it the kernel is interrupted, and a kernel that ignores the interrupt is
killed, after which every call fails at once with :class:`KernelGone`.

What comes back is decoded by :mod:`autograder.judge.wire` (plain types only). An
exception in the student's function comes back as the names of its classes only and is
raised here as the built-in exception of that name (so ``except ValueError`` in a test
still works) with no message, or as :class:`StudentRaised`.
"""

from __future__ import annotations

import ast
import json
import builtins
import contextlib
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from queue import Empty
from typing import Any

from nbclient.util import run_sync

from autograder.grading.cpu_limit import cpu_seconds, kernel_pids
from autograder.judge import wire
from autograder.judge.values import write_extra

#: The kernel-side modules' names (installed by the guard's setup cell).
WIRE_MODULE = "_autograder_wire"
KERNEL_MODULE = "_autograder_judge"
#: Seconds between two readings of the kernel's CPU time while a call runs.
POLL_SECONDS = 0.1


class JudgeError(Exception):
    """Base of what the channel raises into a hidden test."""


class KernelGone(JudgeError):
    """The student's kernel was killed or died: no call can be answered."""


class CallTimedOut(JudgeError):
    """A call used up its CPU time (or its wall-clock ceiling) and was interrupted."""


class StudentRaised(JudgeError):
    """The student's function raised something that is not a built-in exception."""


class Unreadable(JudgeError):
    """The kernel's answer was not plain data the judge could read."""


def exception_for(classes: list[Any]) -> BaseException:
    """The exception the judge raises for a student's exception, from its classes' names.

    The first built-in ``Exception`` class in the student's exception's order stands for it,
    without a message; a ``BaseException`` that is not an ``Exception`` (``SystemExit``,
    ``KeyboardInterrupt``, a class of the student's) becomes :class:`StudentRaised`.

    >>> type(exception_for(["NotMine", "ValueError", "Exception", "BaseException", "object"]))
    <class 'ValueError'>
    >>> type(exception_for(["SystemExit", "BaseException", "object"])).__name__
    'StudentRaised'
    """
    for name in classes:
        if type(name) is not str or name in ("Exception", "BaseException", "object"):
            continue
        known = getattr(builtins, name, None)
        if isinstance(known, type) and issubclass(known, Exception):
            return known()
    return StudentRaised()


@dataclass
class ChannelLog:
    """What the channel did, for the instructor's log (never for the student)."""

    requests: int = 0
    timeouts: list[str] = field(default_factory=list)
    killed: str | None = None
    seconds: float = 0.0


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
        kill: Callable[[], None] | None = None,
    ) -> None:
        self.client = client
        self.manager = manager
        self.cpu_seconds_per_call = cpu_seconds_per_call
        self.wall_clock_factor = wall_clock_factor
        self.interrupt_grace = interrupt_grace
        self._kill = kill
        self.gone = False
        self.log = ChannelLog()

    # ------------------------------------------------------------------ the two requests

    def describe(self, name: str) -> tuple[str, Any]:
        """``("missing" | "function" | "value", value)`` for a name of the notebook."""
        answer = self._request(f"describe({name!r})", f"looking up {name}")
        kind = answer.get("kind") if type(answer) is dict else None
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
    ) -> Any:
        """What the notebook's function *name* returns for these arguments, as plain data.

        *notebook_globals* are set in the notebook's namespace for the call, then put back.
        """
        payload = wire.dumps(
            {"args": list(args), "kwargs": dict(kwargs), "globals": dict(notebook_globals or {})},
            write_extra,
        )
        allowed = None if allow is None else list(allow)
        answer = self._request(f"call({name!r}, {payload!r}, {allowed!r})", f"calling {name}")
        if type(answer) is not dict:
            raise Unreadable()
        if "raised" in answer:
            raised = answer["raised"]
            raise exception_for(raised if type(raised) is list else [])
        if "value" not in answer:
            raise Unreadable()
        return self._decode(answer["value"])

    # ------------------------------------------------------------------ the round trip

    def _decode(self, data: Any) -> Any:
        try:
            return wire.decode(data)
        except (wire.WireError, RecursionError, MemoryError):
            raise Unreadable() from None

    def _request(self, expression: str, what: str) -> Any:
        if self.gone:
            raise KernelGone()
        started = time.perf_counter()
        self.log.requests += 1
        module = f"__import__('sys').modules[{KERNEL_MODULE!r}]"
        msg_id = self.client.execute(
            "",
            silent=True,
            store_history=False,
            allow_stdin=False,
            user_expressions={"answer": f"{module}.{expression}"},
        )
        try:
            reply = self._wait(msg_id, what)
        finally:
            self._drain_output()
            self.log.seconds += time.perf_counter() - started
        result = reply.get("content", {}).get("user_expressions", {}).get("answer", {})
        if type(result) is not dict or result.get("status") != "ok":
            status = result.get("status") if type(result) is dict else None
            raise Unreadable(f"the kernel answered {status!r} while {what}: {str(result.get('ename', ''))[:80] if type(result) is dict else ''}")
        text = result.get("data", {}).get("text/plain")
        if type(text) is not str or len(text) > wire.MAX_CHARS + 2:
            raise Unreadable()
        try:
            json_text = ast.literal_eval(text)
            return json.loads(json_text) if type(json_text) is str else None
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            raise Unreadable() from None

    def _wait(self, msg_id: str, what: str) -> dict:
        """The reply to *msg_id*, within the call's CPU limit and its wall-clock ceiling."""
        pids = kernel_pids(self.manager)
        cpu_start = cpu_seconds(pids) if pids else 0.0
        wall_end = time.monotonic() + self.cpu_seconds_per_call * self.wall_clock_factor
        get = run_sync(self.client.shell_channel.get_msg)
        while True:
            try:
                reply = get(timeout=POLL_SECONDS)
            except Empty:
                reply = None
            if reply is not None:
                if reply.get("parent_header", {}).get("msg_id") == msg_id:
                    return reply
                continue
            used = cpu_seconds(pids) - cpu_start if pids else 0.0
            if used >= self.cpu_seconds_per_call or time.monotonic() >= wall_end:
                self.log.timeouts.append(what)
                return self._interrupt(msg_id, what)
            if not self._alive():
                self._gone(f"the kernel died while {what}")

    def _interrupt(self, msg_id: str, what: str) -> dict:
        with contextlib.suppress(Exception):
            run_sync(self.manager.interrupt_kernel)()
        end = time.monotonic() + self.interrupt_grace
        get = run_sync(self.client.shell_channel.get_msg)
        while time.monotonic() < end:
            try:
                reply = get(timeout=POLL_SECONDS)
            except Empty:
                continue
            if reply.get("parent_header", {}).get("msg_id") == msg_id:
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

    def _alive(self) -> bool:
        try:
            return bool(run_sync(self.manager.is_alive)())
        except Exception:  # noqa: BLE001 - a manager that cannot tell is not alive
            return False

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


def kill_process_group(manager: Any) -> None:
    """Kill the kernel behind *manager* for good (its process group when it has one)."""
    from autograder.sandbox.kernels import process_group

    try:
        run_sync(manager.shutdown_kernel)(now=True)
    except Exception:  # noqa: BLE001 - fall back to the process group
        pgid = process_group(manager)
        if pgid:
            with contextlib.suppress(OSError):
                os.killpg(pgid, signal.SIGKILL)
