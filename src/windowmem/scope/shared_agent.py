"""Several customers talking through one agent: whose turns land in whose prompt.

An agent with memory answers each request with one model call. Before the call its
memory node renders the **session key** from the request, fetches the buffer stored
under that key, and windows it; after the answer it stores the request and the reply
under the same key. Two decisions made before any window decide what a customer sees:

* **scope**: the key template. Requests whose keys are equal share one buffer, so
  a constant key puts every customer in one bucket and a key without the tenant merges
  two shops' "user 1";
* **storage**: where the buffers live (:mod:`windowmem.scope.agent_stores`): n8n's
  Simple Memory in the agent's process, emptied by a restart and swept of buffers idle
  for an hour, or a SQLite file that outlives both.

The key choices are in :mod:`windowmem.scope.key_choices`, the events of a script in
:mod:`windowmem.scope.script`, the lesson's script in :mod:`windowmem.scope.support_desk`.
:func:`run_script` plays a script of requests, restarts and pauses and returns, for every request, the exact window the model
received, whose turn each message came from, and why each of the same customer's
earlier turns did not arrive: filed under another key (scope), its buffer gone after a
restart or an idle hour (storage), or still stored but outside the window (window).

>>> from windowmem.scope.key_choices import PER_USER
>>> from windowmem.scope.script import Customer, Request
>>> marta = Customer("Marta", tenant="tutienda", user_id="u-1")
>>> carlos = Customer("Carlos", tenant="empanadas", user_id="u-1")
>>> script = [Request(marta, "m-1", "Hi, order #6023", "Hi Marta!"),
...           Request(carlos, "c-1", "Carlos here", "Hello Carlos!")]
>>> run = run_script(script, PER_USER.template, "in-process")
>>> run.calls[1].key, [ref.customer for ref in run.calls[1].origins]
('user:u-1', ['Marta', 'Marta'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from windowmem.errors import SessionKeyError, WindowMemError
from windowmem.messages import Message, assistant, user
from windowmem.scope.agent_stores import (
    InProcessStore,
    SqliteStore,
    StoreKind,
    open_store,
)
from windowmem.scope.key_choices import key_for
from windowmem.scope.script import Event, Pause, Request, Restart

#: Why one of a customer's earlier turns is not in the prompt.
SCOPE, STORAGE, WINDOW = "scope", "storage", "window"


@dataclass(frozen=True)
class TurnRef:
    """Where a stored message came from: the request's *position* in the script, its customer and thread."""

    position: int
    customer: str
    thread: str


@dataclass(frozen=True)
class Missing:
    """One of the customer's earlier requests that did not reach the prompt, and *cause* (scope, storage, window)."""

    turn: TurnRef
    cause: str
    detail: str


@dataclass(frozen=True)
class Call:
    """What one request's model call received.

    *window* is what the memory loaded (the system message and the new message go
    around it); *origins* gives each window message's request. *error* is set, and
    nothing else filled in, when the key could not be rendered.
    """

    position: int
    request: Request
    key: str | None
    buffer: str | None
    window: tuple[Message, ...]
    origins: tuple[TurnRef, ...]
    missing: tuple[Missing, ...]
    swept: tuple[str, ...]
    error: str | None = None

    @property
    def foreign(self) -> tuple[TurnRef, ...]:
        """The requests of *other* customers whose messages are in this prompt, each once."""
        me = self.request.customer.name
        return tuple(dict.fromkeys(ref for ref in self.origins if ref.customer != me))

    @property
    def prompt(self) -> tuple[Message, ...]:
        """The window followed by the new user message (the system message is sent before both)."""
        return (*self.window, user(self.request.text))


@dataclass(frozen=True)
class Happening:
    """A restart or a pause in the script, and the buffers that were held just after it."""

    position: int
    event: Restart | Pause
    held_after: tuple[str, ...]


@dataclass(frozen=True)
class ScriptRun:
    """The result of :func:`run_script`: one :class:`Call` per request, one :class:`Happening` per other event."""

    template: str
    store: StoreKind
    window: int
    calls: tuple[Call, ...]
    happenings: tuple[Happening, ...]
    held_at_end: tuple[tuple[str, tuple[TurnRef, ...]], ...] = field(default=())
    """Each buffer the store holds after the last event, with the requests stored in it."""

    def call_at(self, position: int) -> Call:
        """The call made for the script's event at *position*."""
        for call in self.calls:
            if call.position == position:
                return call
        raise WindowMemError(f"event {position} of the script is not a request")


def _origin_index(events: Sequence[Event]) -> dict[tuple[str, str], TurnRef]:
    index: dict[tuple[str, str], TurnRef] = {}
    for position, event in enumerate(events):
        if not isinstance(event, Request):
            continue
        ref = TurnRef(position, event.customer.name, event.thread)
        for role, text in (("user", event.text), ("assistant", event.reply)):
            if (role, text) in index:
                raise WindowMemError(
                    f"event {position} repeats the {role} text {text!r} of event "
                    f"{index[(role, text)].position}: give every message its own words, so each "
                    "message in a prompt can be traced to the request that said it"
                )
            index[(role, text)] = ref
    return index


def _check_events(events: Sequence[Event]) -> list[Event]:
    checked = list(events)
    for position, event in enumerate(checked):
        if not isinstance(event, (Request, Restart, Pause)):
            raise WindowMemError(
                f"event {position} is a {type(event).__name__}: a script holds Request, Restart "
                "and Pause events"
            )
    return checked


def run_script(
    events: Sequence[Event], template: str, store: StoreKind, *, window: int = 5
) -> ScriptRun:
    """Play *events* through one agent whose memory key is *template* and whose buffers live in *store*.

    *window* is the memory's Context Window Length (n8n counts interactions; 0 loads
    everything). Each call's missing turns are the same customer's (same tenant and
    user id) earlier requests that are not in its window, each with its cause.
    """
    script = _check_events(events)
    origin = _origin_index(script)
    memory = open_store(store, window)
    calls: list[Call] = []
    happenings: list[Happening] = []
    keys_of: dict[int, str] = {}  # request position -> the key it was stored under
    dropped_by: dict[str, str] = {}  # buffer name -> what emptied it last
    try:
        for position, event in enumerate(script):
            if isinstance(event, Restart):
                for name in memory.held():
                    dropped_by[name] = f"the restart at event {position}"
                memory.restart()
                happenings.append(Happening(position, event, memory.held()))
                continue
            if isinstance(event, Pause):
                memory.pause(event.minutes)
                happenings.append(Happening(position, event, memory.held()))
                continue
            try:
                key = key_for(template, event)
            except SessionKeyError as exc:
                calls.append(Call(position, event, None, None, (), (), (), (), error=str(exc)))
                continue
            loaded, swept = memory.supply(key)
            for name in swept:
                dropped_by[name] = f"deleted at event {position} after more than an hour unused"
            origins = tuple(origin[(m.role.value, m.content)] for m in loaded)
            missing = _missing(event, key, origins, keys_of, memory, script, dropped_by)
            calls.append(
                Call(position, event, key, memory.buffer_name(key), loaded, origins, missing, swept)
            )
            memory.save(key, [user(event.text), assistant(event.reply)])
            keys_of[position] = key
        held = tuple(
            (
                name,
                tuple(dict.fromkeys(origin[(m.role.value, m.content)] for m in memory.stored(key))),
            )
            for name, key in sorted({memory.buffer_name(k): k for k in keys_of.values()}.items())
            if name in memory.held()
        )
    finally:
        memory.close()
    return ScriptRun(template, store, window, tuple(calls), tuple(happenings), held)


def _missing(
    request: Request,
    key: str,
    origins: tuple[TurnRef, ...],
    keys_of: dict[int, str],
    memory: InProcessStore | SqliteStore,
    script: Sequence[Event],
    dropped_by: dict[str, str],
) -> tuple[Missing, ...]:
    arrived = {ref.position for ref in origins}
    stored_texts = {m.content for m in memory.stored(key)}
    missing: list[Missing] = []
    for earlier, stored_under in keys_of.items():
        before = script[earlier]
        assert isinstance(before, Request)
        if before.customer != request.customer or earlier in arrived:
            continue
        ref = TurnRef(earlier, before.customer.name, before.thread)
        if stored_under != key:
            missing.append(
                Missing(ref, SCOPE, f"stored under the key {stored_under!r}, not {key!r}")
            )
        elif before.text in stored_texts:
            missing.append(
                Missing(
                    ref,
                    WINDOW,
                    f"still stored under {key!r}, but older than the window of {memory.window}",
                )
            )
        else:
            name = memory.buffer_name(key)
            how = dropped_by.get(name, "emptied")
            missing.append(Missing(ref, STORAGE, f"its buffer {name!r} is gone: {how}"))
    return tuple(missing)
