"""Several customers talking through one agent: whose turns land in whose prompt.

An agent with memory answers each request with one model call. Before the call its
memory node renders the **session key** from the request, fetches the buffer stored
under that key, and windows it; after the answer it stores the request and the reply
under the same key. Two decisions made before any window decide what a customer sees:

* **scope**: the key template. Requests whose keys are equal share one buffer, so
  a constant key puts every customer in one bucket and a key without the tenant merges
  two shops' "user 1";
* **storage**: where the buffers live. :class:`InProcessStore` is n8n's Simple Memory
  (a map in one process, keyed ``workflowId__key``, emptied by a restart, each buffer
  deleted after an hour unused); :class:`SqliteStore` is a file that outlives both.

:func:`run_script` plays a script of :class:`Request`, :class:`Restart` and
:class:`Pause` events and returns, for every request, the exact window the model
received, whose turn each message came from, and why each of the same customer's
earlier turns did not arrive: filed under another key (scope), its buffer gone after a
restart or an idle hour (storage), or still stored but outside the window (window).

>>> marta = Customer("Marta", tenant="tutienda", user_id="u-1")
>>> carlos = Customer("Carlos", tenant="empanadas", user_id="u-1")
>>> script = [Request(marta, "m-1", "Hi, order #6023", "Hi Marta!"),
...           Request(carlos, "c-1", "Carlos here", "Hello Carlos!")]
>>> run = run_script(script, PER_USER.template, "in-process")
>>> run.calls[1].key, [ref.customer for ref in run.calls[1].origins]
('user:u-1', ['Marta', 'Marta'])
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from windowmem.errors import SessionKeyError, WindowMemError
from windowmem.messages import Message, assistant, user
from windowmem.policies.n8n import ManualClock, N8nSimpleMemory, SimpleMemoryStore
from windowmem.session_keys import KeyPattern, render_key
from windowmem.storage.sqlite import SqliteRepository

# --- the key choices --------------------------------------------------------------------

#: One bucket per customer id: ``user:<userId>``.
PER_USER = KeyPattern("per user", "user:{{ $json.body.userId }}", "each user id has one history")
#: One bucket per conversation thread: ``thread:<threadId>``.
PER_THREAD = KeyPattern(
    "per thread", "thread:{{ $json.body.threadId }}", "each thread has its own history"
)
#: Tenant, user and thread together: two shops' "user 1" never meet.
COMPOSITE = KeyPattern(
    "composite",
    "{{ $json.body.tenantId }}:{{ $json.body.userId }}:{{ $json.body.threadId }}",
    "each thread of each user of each tenant has its own history",
)
#: Tenant and user: one history per customer of each shop, across all their threads.
TENANT_USER = KeyPattern(
    "tenant + user",
    "{{ $json.body.tenantId }}:{{ $json.body.userId }}",
    "each user of each tenant has one history, whatever the thread",
)
#: The same text for every request: Simple Memory typeVersion 1's default key.
CONSTANT = KeyPattern("constant", "chat_history", "nothing: every request shares one history")
KEY_CHOICES = (PER_USER, PER_THREAD, COMPOSITE, TENANT_USER, CONSTANT)

StoreKind = Literal["in-process", "sqlite"]
STORE_KINDS: tuple[StoreKind, ...] = ("in-process", "sqlite")

#: Why one of a customer's earlier turns is not in the prompt.
SCOPE, STORAGE, WINDOW = "scope", "storage", "window"


def key_choice(name: str) -> KeyPattern:
    """The key choice called *name* (``per user``, ``per thread``, ``composite``, ``tenant + user``, ``constant``)."""
    for choice in KEY_CHOICES:
        if choice.name == name:
            return choice
    raise WindowMemError(
        f"unknown key choice {name!r}: use one of {', '.join(c.name for c in KEY_CHOICES)}"
    )


# --- the script ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Customer:
    """A customer: a display *name*, the *tenant* (shop) they write to, and that tenant's *user_id*."""

    name: str
    tenant: str
    user_id: str


@dataclass(frozen=True)
class Request:
    """One message *text* from *customer* in *thread*, and the *reply* the agent gives."""

    customer: Customer
    thread: str
    text: str
    reply: str

    def item(self) -> dict[str, Any]:
        """What a Webhook trigger hands the memory node: the client's JSON under ``body``."""
        return {
            "headers": {},
            "params": {},
            "query": {},
            "body": {
                "tenantId": self.customer.tenant,
                "userId": self.customer.user_id,
                "threadId": self.thread,
                "message": self.text,
            },
        }


@dataclass(frozen=True)
class Restart:
    """The agent's process restarts (a deploy, a crash, a server reboot)."""


@dataclass(frozen=True)
class Pause:
    """Nobody writes for *minutes*."""

    minutes: float

    def __post_init__(self) -> None:
        if isinstance(self.minutes, bool) or not isinstance(self.minutes, (int, float)):
            raise WindowMemError(f"a pause lasts a number of minutes, got {self.minutes!r}")
        if self.minutes < 0:
            raise WindowMemError(f"a pause cannot be negative, got {self.minutes} minutes")


Event = Request | Restart | Pause


def key_for(template: str, request: Request) -> str:
    """The session key *template* gives for *request* (fields read from the webhook item).

    >>> key_for(COMPOSITE.template, Request(Customer("Marta", "tutienda", "u-1"), "m-1", "Hi", "Hello"))
    'tutienda:u-1:m-1'
    """
    return render_key(template, {"$json": request.item()})


def buckets(template: str, requests: Sequence[Request]) -> dict[str, tuple[int, ...]]:
    """Which requests (by position) share each key *template* gives, in order of first use.

    >>> marta, carlos = Customer("Marta", "tutienda", "u-1"), Customer("Carlos", "empanadas", "u-1")
    >>> buckets(PER_USER.template, [Request(marta, "m-1", "a", "b"), Request(carlos, "c-1", "c", "d")])
    {'user:u-1': (0, 1)}
    """
    grouped: dict[str, list[int]] = {}
    for position, request in enumerate(requests):
        grouped.setdefault(key_for(template, request), []).append(position)
    return {key: tuple(positions) for key, positions in grouped.items()}


def owners(template: str, requests: Sequence[Request]) -> dict[str, tuple[str, ...]]:
    """The customers whose requests land in each key *template* gives, each named once.

    >>> marta, carlos = Customer("Marta", "tutienda", "u-1"), Customer("Carlos", "empanadas", "u-1")
    >>> owners(PER_USER.template, [Request(marta, "m-1", "a", "b"), Request(carlos, "c-1", "c", "d")])
    {'user:u-1': ('Marta', 'Carlos')}
    """
    return {
        key: tuple(dict.fromkeys(requests[i].customer.name for i in positions))
        for key, positions in buckets(template, requests).items()
    }


def requests_of(events: Sequence[Event]) -> tuple[Request, ...]:
    """The requests of a script, without its restarts and pauses."""
    return tuple(e for e in events if isinstance(e, Request))


# --- the stores ---------------------------------------------------------------------------


class InProcessStore:
    """n8n Simple Memory: one map in the agent's process, swept of buffers idle over an hour."""

    kind: StoreKind = "in-process"

    def __init__(self, window: int, workflow_id: str = "support-agent") -> None:
        self.window = window
        self.workflow_id = workflow_id
        self.clock = ManualClock()
        self._map = SimpleMemoryStore(self.clock)

    @property
    def idle_limit_minutes(self) -> float:
        """How long a buffer may go unused before the next run deletes it."""
        return self._map.idle_limit / 60

    def buffer_name(self, key: str) -> str:
        return self._map.buffer_key(self.workflow_id, key, source="customKey")

    def supply(self, key: str) -> tuple[tuple[Message, ...], tuple[str, ...]]:
        """The window for *key*, and the buffers the idle sweep deleted on the way."""
        # n8n sweeps stale buffers first, then fetches or creates the one asked for.
        swept = self._map.delete_stale()
        memory = self._map.memory(
            self.workflow_id, key, context_window_length=self.window, source="customKey"
        )
        return memory.load(), swept

    def save(self, key: str, messages: Sequence[Message]) -> None:
        entry = self._map.entry(self.buffer_name(key))
        assert entry is not None  # supply() ran for this key in the same request
        entry.memory.add(*messages)

    def stored(self, key: str) -> tuple[Message, ...]:
        entry = self._map.entry(self.buffer_name(key))
        return () if entry is None else entry.memory.stored

    def held(self) -> tuple[str, ...]:
        """The names of the buffers the map holds now."""
        return self._map.keys()

    def restart(self) -> None:
        self._map.restart()

    def pause(self, minutes: float) -> None:
        self.clock.advance(minutes=minutes)

    def close(self) -> None:
        """Nothing to release: the map goes with the object."""


class SqliteStore:
    """Buffers as rows of one SQLite file: a restart reopens the file, a pause changes nothing."""

    kind: StoreKind = "sqlite"

    def __init__(self, window: int, path: str | Path | None = None) -> None:
        self.window = window
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        if path is None:
            self._folder = tempfile.TemporaryDirectory(prefix="windowmem-scope-")
            path = Path(self._folder.name) / "memory.db"
        self.path = Path(path)
        self._repo = SqliteRepository(self.path, durable=False)

    def buffer_name(self, key: str) -> str:
        return key

    def supply(self, key: str) -> tuple[tuple[Message, ...], tuple[str, ...]]:
        return N8nSimpleMemory(self.window).load(self._repo.find_by_conversation_id(key)), ()

    def save(self, key: str, messages: Sequence[Message]) -> None:
        self._repo.append(key, list(messages))

    def stored(self, key: str) -> tuple[Message, ...]:
        return tuple(self._repo.find_by_conversation_id(key))

    def held(self) -> tuple[str, ...]:
        return tuple(self._repo.find_conversation_ids())

    def restart(self) -> None:
        # A new process opens the same file: what was committed is all there.
        self._repo.close()
        self._repo = SqliteRepository(self.path, durable=False)

    def pause(self, minutes: float) -> None:
        """SQLite rows carry no expiry."""

    def close(self) -> None:
        self._repo.close()
        if self._folder is not None:
            self._folder.cleanup()


def open_store(kind: StoreKind, window: int) -> InProcessStore | SqliteStore:
    """A fresh, empty store of *kind* with Context Window Length *window*."""
    N8nSimpleMemory(window)  # the same size rules as the node
    if kind == "in-process":
        return InProcessStore(window)
    if kind == "sqlite":
        return SqliteStore(window)
    raise WindowMemError(f"unknown store {kind!r}: use 'in-process' or 'sqlite'")


# --- the run ------------------------------------------------------------------------------


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


# --- the lesson's support desk ------------------------------------------------------------

MARTA = Customer("Marta", tenant="tutienda", user_id="u-1")
#: Same user id as Marta, in another shop: a per-user key without the tenant merges them.
CARLOS = Customer("Carlos", tenant="ferreteria-andina", user_id="u-1")
LUCIA = Customer("Lucía", tenant="tutienda", user_id="u-2")

#: What can happen between the first session and the next, and the event that models it.
BETWEEN: dict[str, tuple[Event, ...]] = {
    "nothing": (),
    "the agent restarts": (Restart(),),
    "59 minutes pass": (Pause(59),),
    "61 minutes pass": (Pause(61),),
    "a night passes (14 hours)": (Pause(14 * 60),),
}

_FIRST_SESSION = (
    Request(
        MARTA, "m-1", "Hi, I'm Marta, my order is #6023.", "Thanks, Marta: I have order #6023 open."
    ),
    Request(
        CARLOS,
        "c-1",
        "Carlos Ruiz for Empanadas del Sur: we need 40 metres of hose.",
        "Noted, Carlos: 40 metres of hose for Empanadas del Sur.",
    ),
    Request(MARTA, "m-1", "Do you ship to Medellín?", "Yes, we deliver to Medellín."),
    Request(
        LUCIA,
        "l-1",
        "Lucía here, order #8841: I want the armchairs in green.",
        "Done: the armchairs on #8841 are now green.",
    ),
)
_NEXT_SESSION = (
    Request(MARTA, "m-2", "It's Marta again. What was my order number?", "Let me look, Marta."),
    Request(LUCIA, "l-1", "Which colour did I choose for the armchairs?", "One moment, Lucía."),
    Request(CARLOS, "c-1", "How much hose did we order?", "Checking your order, Carlos."),
)


def support_desk(between: str = "nothing") -> tuple[Event, ...]:
    """The lesson's script: three customers of two shops, something *between* two sessions, and their return.

    Marta (TuTienda, user ``u-1``) and Lucía (TuTienda, ``u-2``) and Carlos
    (Ferretería Andina, also ``u-1``) write; then *between* happens (a key of
    :data:`BETWEEN`); then Marta comes back in a new thread and the others continue theirs.

    >>> [type(e).__name__ for e in support_desk("the agent restarts")][3:6]
    ['Request', 'Restart', 'Request']
    """
    if between not in BETWEEN:
        raise WindowMemError(f"unknown interval {between!r}: use one of {', '.join(BETWEEN)}")
    return (*_FIRST_SESSION, *BETWEEN[between], *_NEXT_SESSION)
