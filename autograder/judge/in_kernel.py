"""The judge's end of the channel inside the student's kernel (its source is run there).

The judge starts :func:`serve` as one request once the student's notebook has run; it
connects to the judge's socket and answers one JSON line per request:

* ``describe``: is a name of the notebook's namespace a function, a value (sent as plain
  data) or missing?
* ``call``: call a function of the notebook with arguments sent as plain data, with
  stdout and stderr going nowhere, and answer with its value as plain data, or with the
  names of its exception's classes (never the exception's text). With ``"apart"``, the
  call runs in a forked copy of the kernel (:func:`call_apart`), so nothing a call changes
  in memory outlives it: a function cannot remember one hidden case's inputs and spell
  them out in how it answers the next.

Nothing here is trusted by the judge: a student can replace every function of this
module, and then only lies about their own answers. The standard library, the wire
module (installed beside this one as ``_autograder_wire``) and, for the course's own
values, windowmem's small types are all it uses.
"""

from __future__ import annotations

import json
import sys

#: Kinds of the course's values the judge may send (see autograder.judge.values).
EXTRA_KINDS = ("conversation", "interaction", "message")


class _Nowhere:
    """A stream that takes whatever is written and keeps none of it."""

    def write(self, text):
        return len(text) if isinstance(text, str) else 0

    def flush(self):
        return None

    def isatty(self):
        return False


def _wire():
    return sys.modules["_autograder_wire"]


def _namespace():
    from IPython import get_ipython

    return get_ipython().user_ns


#: The conversations the judge has sent whole, by the number it gave each: later calls
#: name them by that number (see autograder.judge.values.SentValues).
SENT: dict = {}


def _read_extra(value):
    """Build a course value the judge sent (see autograder.judge.values.write_extra)."""
    kind = value.get("kind") if type(value) is dict else None
    if kind == "sent":
        return SENT[value["sent_as"]]
    if kind not in EXTRA_KINDS:
        raise ValueError("an unknown kind of value")
    built = _build_extra(kind, value)
    if kind == "conversation" and type(value.get("sent_as")) is int:
        SENT[value["sent_as"]] = built
    return built


def _build_extra(kind, value):
    from windowmem.conversation import Conversation, parse_conversation
    from windowmem.messages import Interaction

    if kind == "conversation":
        return parse_conversation(value["data"])
    messages = Conversation.of(value["messages"]).messages
    if kind == "message":
        return messages[0]
    return Interaction(value["number"], messages)


#: The notebook's names as they were bound when each test cell was reached, by cell index.
NAMES_AT: dict = {}


def note_names(at):
    """Keep the notebook's bindings as test cell *at* finds them (before its checks run).

    The judge calls a test's functions once the whole notebook has run; with these, each
    call sees the names as that test would have: a later cell that rebinds a name a
    student's function uses (the assignment's own setup cells do) changes nothing.
    """
    NAMES_AT[at] = dict(_namespace())


class _AsOf:
    """The notebook's namespace holding the bindings noted at *at* for the block, then its own."""

    def __init__(self, at):
        self.names = NAMES_AT.get(at) if at is not None else None
        self.kept = None

    def __enter__(self):
        if self.names is not None:
            namespace = _namespace()
            self.kept = dict(namespace)
            namespace.clear()
            namespace.update(self.names)

    def __exit__(self, *exc):
        if self.kept is not None:
            namespace = _namespace()
            namespace.clear()
            namespace.update(self.kept)


def describe(name, at=None):
    """``{"kind": "missing" | "function" | "value", "value": ...}`` for a notebook name."""
    with _AsOf(at):
        return _describe(name)


def _describe(name):
    namespace = _namespace()
    if name not in namespace:
        return {"kind": "missing"}
    value = namespace[name]
    if callable(value):
        return {"kind": "function"}
    try:
        return {"kind": "value", "value": _wire().encode(value)}
    except BaseException:  # noqa: BLE001 - too deep, too big: the judge reads it as unsendable
        return {"kind": "value", "value": {"~": "unsupported", "type": "value"}}


def call(name, decoded, allow=None, at=None):
    """``{"value": ...}`` or ``{"raised": [class names, most derived first]}``.

    *decoded* holds the call's ``args``, ``kwargs`` and ``globals``, read from the wire here,
    before any call is forked (:func:`handle`), so a conversation sent whole is kept for
    the calls that name it by number.
    """
    with _AsOf(at):
        return _call(name, decoded, allow)


def _call(name, decoded, allow, kept_open_at=None):
    """The call, sealed when *allow* is given; with *kept_open_at* (``(at,)``, the test cell
    whose names it sees), in the :class:`_Sealed` kept open for this function and cell
    (made here if need be) rather than in a seal of its own."""
    namespace = _namespace()
    args, kwargs = decoded["args"], decoded["kwargs"]
    overrides = decoded.get("globals") or {}
    missing = object()
    kept = {key: namespace.get(key, missing) for key in overrides}
    namespace.update(overrides)
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = _Nowhere()
    try:
        if kept_open_at is not None:
            result = _Sealed.open(name, allow, kept_open_at[0]).call(args, kwargs)
        else:
            function = namespace.get(name)
            if allow is not None:
                from windowmem.behaviour_check import sealed

                function = sealed(function, tuple(allow))
            result = function(*args, **kwargs)
        return {"value": _wire().encode(result)}
    except BaseException as error:  # noqa: BLE001 - the judge decides what an exception means
        classes = [getattr(k, "__name__", "?") for k in type(error).__mro__][:40]
        answer: dict = {"raised": [c if type(c) is str else "?" for c in classes]}
        if classes[0] == "LibraryBlocked":  # the behaviour check: which helper, for the log
            answer["blocked"] = str(error)[:300]
        if kept_open_at is not None and not isinstance(error, Exception):
            _Sealed.close()  # interrupted (out of time): the next call seals afresh
        return answer
    finally:
        sys.stdout, sys.stderr = saved
        for key, value in kept.items():
            if value is missing:
                namespace.pop(key, None)
            else:
                namespace[key] = value


class _Sealed:
    """One function of the notebook inside the behaviour check, kept open across calls.

    A hidden test calls the same function with the same *allow* case after case, and
    sealing the kernel (every windowmem module filtered, the builtins and the notebook's
    namespace walked) costs far more CPU than a case. The judge's calls are the only code
    the kernel runs while it serves, so the seal made for the first call stays for the
    next calls of that function, *allow* and test cell, and is undone at any other request
    (:func:`handle`) and when the judge closes the channel. Each call of a test cell's
    still starts from the names as that cell found them, sealed (what a call rebinds is put
    back, as :class:`_AsOf` puts it back after a call of its own), and its value is kept
    only if plain. ``tests/autograder/judge/test_sealed_calls.py`` holds the two ways equal.
    """

    current = None

    def __init__(self, name, allow, at):
        self.key = (name, tuple(allow), at)
        self.as_of = _AsOf(at)
        self.as_of.__enter__()
        try:
            from windowmem.behaviour_check import without_library

            self.function = _namespace().get(name)
            self.block = without_library(self.function, allow=self.key[1])
            self.block.__enter__()
        except BaseException:
            self.as_of.__exit__(None, None, None)
            raise
        self.names = dict(_namespace())

    @classmethod
    def open(cls, name, allow, at):
        """The session for this function, *allow* and cell: the open one, or a new one."""
        if cls.current is None or cls.current.key != (name, tuple(allow), at):
            cls.close()
            cls.current = cls(name, allow, at)
        return cls.current

    def call(self, args, kwargs):
        try:
            return self.block.call(self.function, *args, **kwargs)
        finally:
            if self.as_of.names is not None:  # a call of its own would start from them again
                namespace = _namespace()
                namespace.clear()
                namespace.update(self.names)

    @classmethod
    def close(cls):
        """Undo the open seal, if any: the notebook's names and modules as they were."""
        session, cls.current = cls.current, None
        if session is not None:
            try:
                session.block.__exit__(None, None, None)
            finally:
                session.as_of.__exit__(None, None, None)


#: The exception classes a call that ended its process without an answer is reported as
#: (killed for its memory, ``os._exit``): the student's function failed, like any exception.
DIED = ["ProcessDied", "BaseException", "object"]


def call_apart(name, decoded, allow=None, at=None):
    """:func:`call`, run in a forked copy of this kernel that exits once it has answered.

    What the student's function changes (its globals, a list it appends the judge's inputs
    to, a file's contents are the sandbox's business) is the child's and goes with it, so
    every call starts from the notebook as it ended. The child writes its answer to a pipe
    and leaves with ``os._exit``: none of the kernel's own machinery (its sockets, threads,
    finalizers) runs there. An interrupt from the judge reaches the child too (the kernel's
    process group, or the sandbox's cgroup): the child answers that it was interrupted.
    """
    import gc
    import os

    readable, writable = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.close(readable)
            gc.freeze()  # the kernel's objects are the parent's: never finalized here
            try:
                text = json.dumps(call(name, decoded, allow, at), separators=(",", ":"))
            except BaseException as error:  # noqa: BLE001 - an unsendable answer, an interrupt
                text = json.dumps({"error": type(error).__name__})
            data = memoryview(text.encode())
            while data:
                data = data[os.write(writable, data) :]
        finally:
            os._exit(0)
    os.close(writable)
    chunks = []
    try:
        while True:
            try:
                chunk = os.read(readable, 1 << 16)
            except KeyboardInterrupt:
                # the judge's interrupt reached the child too: it answers that it was
                # interrupted, and that answer is this call's; a child that ignores the
                # interrupt keeps this kernel waiting until the judge kills them both, as a
                # kernel that ignores the interrupt always was
                continue
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(readable)
        _reap(child)
    if not chunks:
        return {"raised": list(DIED)}
    return json.loads(b"".join(chunks))


def _reap(child):
    """Wait for *child*, through interrupts (it has been told to stop, or has answered)."""
    import os

    while True:
        try:
            os.waitpid(child, 0)
            return
        except KeyboardInterrupt:
            continue
        except ChildProcessError:
            return


def handle(request):
    """The answer to one request of the judge's, as a dict.

    A call of the function the open :class:`_Sealed` holds, with the same *allow* and cell
    and no globals set, runs in it; any other request undoes it first, and so does an
    argument the kernel must build (a conversation sent whole: windowmem's own code
    builds it, which the seal would refuse).
    """
    if type(request) is not dict:
        _Sealed.close()
        return {"error": "not a request"}
    at = request.get("at")
    allow = request.get("allow")
    allowed = tuple(allow) if isinstance(allow, list) else None
    keep = request.get("op") == "call" and request.get("apart") is not True and allowed is not None
    current = _Sealed.current
    if not keep or current is None or current.key != (request.get("name"), allowed, at):
        _Sealed.close()
    if request.get("op") == "describe":
        return describe(request.get("name"), at)
    if request.get("op") == "call":
        decoded = _wire().decode(request.get("arguments"), _read_extra_unsealed)
        if decoded.get("globals"):
            keep = False
            _Sealed.close()
        if keep:
            return _call(request.get("name"), decoded, allow, kept_open_at=(at,))
        run = call_apart if request.get("apart") is True else call
        return run(request.get("name"), decoded, allow, at)
    return {"error": "an unknown request"}


def _read_extra_unsealed(value):
    """:func:`_read_extra`, with the open seal undone first when a value must be built."""
    if type(value) is not dict or value.get("kind") != "sent":
        _Sealed.close()
    return _read_extra(value)


def serve(path):
    """Answer the judge's requests, one JSON line each way, until it closes the socket.

    The judge starts this once, as the kernel's last request, so each call costs a socket
    round trip instead of a whole execute request. It runs on the kernel's main thread:
    an interrupt stops a call that runs out of time, and one between calls is ignored.
    """
    import socket

    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(path)
    stream = connection.makefile("rwb")
    wire = _wire()
    try:
        while True:
            try:
                line = stream.readline(wire.MAX_CHARS + 2)
            except KeyboardInterrupt:
                continue
            if not line:
                return "closed"
            try:
                answer = handle(json.loads(line))
                text = json.dumps(answer, separators=(",", ":"))
            except BaseException as error:  # noqa: BLE001 - a bad request, or an interrupt
                text = json.dumps({"error": type(error).__name__})
            try:
                stream.write(text.encode() + b"\n")
                stream.flush()
            except KeyboardInterrupt:
                stream.write(text.encode() + b"\n")
                stream.flush()
    finally:
        try:
            _Sealed.close()  # the notebook's names and modules as they were, before it returns
        finally:
            connection.close()
