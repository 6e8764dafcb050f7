"""What the "memory that outlives the session" explorer shows, computed by a pure function.

The controls pick a store (:data:`~windowmem.outlive.store_scenarios.STORES`), one worker or two,
an event before turn 4, and a call. :func:`outlive_view` gathers that call's worker,
every message it sent (marked when it came from memory), what the store holds after
it, and a one-line summary of every call, all from
:func:`windowmem.outlive.store_scenarios.play_scenario`; this module only arranges it.

>>> view = outlive_view("Simple Memory (in-process)", 2, "nothing", call=3)
>>> view.worker, [m.content[:2] for m in view.sent]
(1, ['u1', 'a1', 'u3'])
"""

from __future__ import annotations

from dataclasses import dataclass

from windowmem.messages import Message
from windowmem.outlive.store_scenarios import (
    EVENTS,
    MARTA_TURNS,
    STORES,
    EventName,
    StoreName,
    play_scenario,
    trims_on_write,
)


@dataclass(frozen=True)
class CallLine:
    """One call in the summary: its *number*, *worker*, messages sent from memory, messages stored after."""

    number: int
    worker: int
    from_memory: int
    stored: int
    current: bool


@dataclass(frozen=True)
class OutliveView:
    """Everything the explorer shows for one store, worker count, event and call."""

    store: StoreName
    workers: int
    event: EventName
    call: int
    worker: int
    sent: tuple[Message, ...]
    stored_after: tuple[Message, ...]
    note: str
    calls: tuple[CallLine, ...]
    keeps_everything: bool

    @property
    def missing_turns(self) -> tuple[int, ...]:
        """Earlier turns none of whose messages reached this call's model."""
        seen = _turns(self.sent[:-1])
        return tuple(t for t in range(1, self.call) if t not in seen)

    @property
    def outside_window_turns(self) -> tuple[int, ...]:
        """Missing turns the store still holds: the window left them out."""
        stored = _turns(self.stored_after)
        return tuple(t for t in self.missing_turns if t in stored)

    @property
    def unstored_turns(self) -> tuple[int, ...]:
        """Missing turns this store does not hold: another worker's map, an expiry, a trim or a lost save."""
        stored = _turns(self.stored_after)
        return tuple(t for t in self.missing_turns if t not in stored)


def _turns(messages: tuple[Message, ...]) -> set[int]:
    """The turn numbers of Marta's scripted messages (``u4 ...``, ``a4 ...``)."""
    return {int(m.content.split(" ", 1)[0][1:]) for m in messages}


def outlive_view(store: StoreName, workers: int, event: EventName, call: int) -> OutliveView:
    """The explorer's view of *call* (turn number, from 1)."""
    if not isinstance(call, int) or isinstance(call, bool) or not 1 <= call <= len(MARTA_TURNS):
        raise ValueError(f"call is a turn from 1 to {len(MARTA_TURNS)}, got {call!r}")
    if store not in STORES or event not in EVENTS:
        raise ValueError(f"store is one of {STORES} and event one of {EVENTS}")
    played = play_scenario(store, workers, event)
    this = played[call - 1]
    return OutliveView(
        store,
        workers,
        event,
        call,
        this.worker,
        this.sent,
        this.stored_after,
        this.note,
        tuple(
            CallLine(c.number, c.worker, len(c.sent) - 1, len(c.stored_after), c.number == call)
            for c in played
        ),
        not trims_on_write(store),
    )
