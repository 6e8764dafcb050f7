"""What the scope-and-storage explorer shows, computed by pure functions: a frozen view and its HTML.

The explorer plays the lesson's support desk (:func:`windowmem.scope.support_desk.support_desk`)
through one agent. Its controls pick the key choice, the store, what happens between
the two sessions, and which request to look at; :func:`scope_view` gathers what that
request's call received (the rendered key, the buffer, every window message with the
customer who said it, the customer's own turns that did not arrive and why) and the
buffers the store holds at that moment. :func:`render_scope_html` draws it; the same
HTML is the live widget's content and the notebook's static snapshot.

All the memory logic is :mod:`windowmem.scope.shared_agent`'s; this module only arranges it.

>>> view = scope_view(ScopeRuns(), "per user", "in-process", "nothing", request=5)
>>> view.key, view.foreign_customers
('user:u-1', ('Carlos',))
"""

from __future__ import annotations

from dataclasses import dataclass

from windowmem.errors import WindowMemError
from windowmem.explorer.scope_cache import ScopeRuns
from windowmem.messages import Message
from windowmem.scope.agent_stores import (
    STORE_KINDS,
    StoreKind,
)
from windowmem.scope.script import (
    Pause,
    Request,
    Restart,
)
from windowmem.scope.shared_agent import (
    Call,
    TurnRef,
)
from windowmem.scope.support_desk import (
    BETWEEN,
    support_desk,
)

#: The store menu's labels, and what each store is.
STORE_LABELS: dict[StoreKind, str] = {
    "in-process": "in-process (n8n Simple Memory)",
    "sqlite": "SQLite file",
}


@dataclass(frozen=True)
class EventMark:
    """One event of the script on the timeline: its *position*, a short *label*, and whether it is *current*."""

    position: int
    label: str
    kind: str
    current: bool


@dataclass(frozen=True)
class PromptLine:
    """One message the model receives, and whose request it came from (None: the new message)."""

    message: Message
    origin: TurnRef | None
    own: bool


@dataclass(frozen=True)
class ScopeView:
    """Everything the explorer shows for one key choice, store, interval and request."""

    choice: str
    template: str
    store: StoreKind
    between: str
    window: int
    number: int
    """The request's number in the script, from 1."""
    position: int
    """Its position among all events (restarts and pauses included)."""
    timeline: tuple[EventMark, ...]
    request: Request
    key: str | None
    buffer: str | None
    error: str | None
    prompt: tuple[PromptLine, ...]
    missing: tuple[tuple[TurnRef, str, str], ...]
    """Each of the customer's earlier requests not in the prompt: (request, cause, detail)."""
    held: tuple[tuple[str, tuple[str, ...]], ...]
    """Each buffer the store holds just before this call, with the customers stored in it."""
    swept: tuple[str, ...]

    @property
    def foreign_customers(self) -> tuple[str, ...]:
        """Other customers whose turns are in this customer's prompt, in order of appearance."""
        return tuple(
            dict.fromkeys(
                line.origin.customer for line in self.prompt if line.origin and not line.own
            )
        )

    @property
    def causes(self) -> tuple[str, ...]:
        """The distinct causes of the missing turns (scope, storage, window)."""
        return tuple(dict.fromkeys(cause for _, cause, _ in self.missing))


def request_positions(between: str) -> tuple[int, ...]:
    """The positions of the script's requests when *between* happens in the middle."""
    return tuple(i for i, e in enumerate(support_desk(between)) if isinstance(e, Request))


def _label(event: object) -> tuple[str, str]:
    if isinstance(event, Request):
        return f"{event.customer.name} · {event.thread}", "request"
    if isinstance(event, Restart):
        return "restart", "restart"
    assert isinstance(event, Pause)
    return f"{event.minutes:g} min pause", "pause"


def scope_view(
    runs: ScopeRuns, choice: str, store: StoreKind, between: str, request: int
) -> ScopeView:
    """The explorer's view of the script's *request* (counted from 1; restarts and pauses are not counted)."""
    if store not in STORE_KINDS:
        raise WindowMemError(f"unknown store {store!r}: use one of {', '.join(STORE_KINDS)}")
    if between not in BETWEEN:
        raise WindowMemError(f"unknown interval {between!r}: use one of {', '.join(BETWEEN)}")
    events = support_desk(between)
    positions = request_positions(between)
    if (
        isinstance(request, bool)
        or not isinstance(request, int)
        or not 1 <= request <= len(positions)
    ):
        raise WindowMemError(f"the script has requests 1 to {len(positions)}, got {request!r}")
    position = positions[request - 1]
    run = runs.run(choice, store, between)
    call: Call = run.call_at(position)
    before = runs.run(choice, store, between, upto=position)
    timeline = tuple(
        EventMark(i, *_label(event), current=i == position) for i, event in enumerate(events)
    )
    me = call.request.customer.name
    prompt = tuple(
        PromptLine(message, origin, origin.customer == me)
        for message, origin in zip(call.window, call.origins)
    ) + (PromptLine(call.prompt[-1], None, True),)
    return ScopeView(
        choice=choice,
        template=run.template,
        store=store,
        between=between,
        window=run.window,
        number=request,
        position=position,
        timeline=timeline,
        request=call.request,
        key=call.key,
        buffer=call.buffer,
        error=call.error,
        prompt=prompt,
        missing=tuple((m.turn, m.cause, m.detail) for m in call.missing),
        held=tuple(
            (name, tuple(dict.fromkeys(ref.customer for ref in refs)))
            for name, refs in before.held_at_end
        ),
        swept=call.swept,
    )
