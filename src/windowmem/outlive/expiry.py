"""When each store forgets a quiet conversation, on clocks you move instead of waiting.

Four rules, read in the products' code:

* **n8n Simple Memory** (``@n8n/n8n-nodes-langchain`` 2.41.1): a buffer not *supplied* to
  a run for more than 60 minutes is deleted at the next supply of any buffer in the
  process. Its clock is the start of the last run that used it; writes do not move it.
* **n8n Redis Chat Memory** (``@langchain/redis`` 1.0.1): with ``sessionTTL`` > 0, every
  write is followed by ``EXPIRE``, so the key lives *sessionTTL* seconds after the last
  **write**; reads never extend it.
* **n8n Postgres and MongoDB Chat Memory**: no timestamp, no TTL: kept until deleted.
* **Spring AI Redis repository** (2.0.1), *with a time-to-live configured*: one key per
  message, each given the TTL when written; through ``MessageWindowChatMemory`` every
  ``add`` replaces the whole conversation (clear, then add), so every key's clock restarts
  at each write. Its default is no time-to-live at all (``timeToLiveSeconds`` -1, no
  ``EXPIRE``): the rule here is the configured case (``...redis.time-to-live=1h``).

:func:`timeline` plays one list of events (``write``: a run that loads, then saves its
turn at the end; ``read``: a run that loads and saves nothing, such as a failed one) against each rule and says, per event, whether
the history was still there.

>>> events = [Event(0, "write"), Event(20, "write"), Event(50, "read"), Event(75, "read")]
>>> [row.found for row in timeline("n8n Redis (sessionTTL 3600)", events)]
[True, True, True, True]
>>> expires_after(events, "n8n Redis (sessionTTL 3600)")
80.0
>>> [row.found for row in timeline("n8n Simple Memory", [Event(0, "write"), Event(61, "read")])]
[True, False]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from windowmem.messages import assistant, user
from windowmem.policies.n8n import ManualClock, SimpleMemoryStore
from windowmem.storage.list_stores import ListStore, SqliteLists
from windowmem.storage.n8n_redis_history import N8nRedisHistory

RULES = (
    "n8n Simple Memory",
    "n8n Redis (sessionTTL 3600)",
    "n8n Postgres / MongoDB",
    "Spring AI Redis (TTL 3600)",
)
Rule = Literal[
    "n8n Simple Memory",
    "n8n Redis (sessionTTL 3600)",
    "n8n Postgres / MongoDB",
    "Spring AI Redis (TTL 3600)",
]
TTL_SECONDS = 3600


@dataclass(frozen=True)
class Event:
    """At *minute* (from the first event), a ``write`` (a turn saved) or a ``read`` (memory loaded, nothing saved)."""

    minute: float
    action: Literal["write", "read"]


@dataclass(frozen=True)
class Moment:
    """What an event found: whether the history was still *found*, and when it will expire after it (minute, or None)."""

    event: Event
    found: bool
    expires_at: float | None


def timeline(rule: Rule, events: Sequence[Event]) -> list[Moment]:
    """Play *events* against *rule*; the first event starts the history."""
    if rule == "n8n Simple Memory":
        return _simple_memory(events)
    if rule == "n8n Redis (sessionTTL 3600)":
        return _redis_list(events)
    if rule == "n8n Postgres / MongoDB":
        return [Moment(e, True, None) for e in events]
    return _per_write_clock(events)


def _simple_memory(events: Sequence[Event]) -> list[Moment]:
    clock = ManualClock()
    store = SimpleMemoryStore(clock)
    out = []
    for event in events:
        clock.now = event.minute * 60
        # Every run, read or write, is a supply: getMemory sweeps, then touches the buffer.
        store.delete_stale()
        entry = store.entry(store.buffer_key("wf1", "s", source="customKey"))
        found = entry is not None and bool(entry.memory.stored)
        memory = store.memory("wf1", "s", source="customKey")
        if event.action == "write":
            memory.add(user("hi"), assistant("hello"))
        found = found or event is events[0]
        out.append(Moment(event, found, event.minute + 60.0))
    return out


def redis_chat_memory(events: Sequence[Event], session_ttl: int) -> list[Moment]:
    """Play *events* against n8n's Redis Chat Memory with *session_ttl* seconds (0: no expiry)."""
    return _redis_list(events, session_ttl)


def _redis_list(events: Sequence[Event], session_ttl: int = TTL_SECONDS) -> list[Moment]:
    clock = ManualClock()
    history = N8nRedisHistory(SqliteLists(":memory:", clock), "s", session_ttl=session_ttl)
    out = []
    for event in events:
        clock.now = event.minute * 60
        found = bool(history.get_messages()) or event is events[0]
        if event.action == "write":
            history.add_messages([user("hi"), assistant("hello")])
        ttl = history.ttl()
        out.append(Moment(event, found, event.minute + ttl / 60 if ttl >= 0 else None))
    return out


def _per_write_clock(events: Sequence[Event]) -> list[Moment]:
    out: list[Moment] = []
    expires: float | None = None
    for event in events:
        found = expires is None or event.minute < expires
        if not found and event is not events[0]:
            expires = None
        if event.action == "write":
            expires = event.minute + TTL_SECONDS / 60
        out.append(Moment(event, found or event is events[0], expires))
    return out


def ttl_steps(
    lists: ListStore, key: str, ttl: int, wait: Callable[[float], None], seconds: float = 2
) -> list[tuple[str, int]]:
    """``TTL`` of an n8n Redis history after: a write, *seconds* of waiting and a read, another write.

    *wait* lets the time pass: ``time.sleep`` on a real server, a ManualClock's
    ``advance`` on the SQLite stand-in.
    """
    history = N8nRedisHistory(lists, key, session_ttl=ttl)
    history.clear()
    out = []
    history.add_messages([user("hi")])
    out.append(("after a write", history.ttl()))
    wait(seconds)
    history.get_messages()
    out.append((f"{seconds:g} s later, after a read", history.ttl()))
    history.add_messages([assistant("hello")])
    out.append(("after the next write", history.ttl()))
    history.clear()
    return out


def expires_after(events: Sequence[Event], rule: Rule) -> float | None:
    """The minute at which the history is gone after the last event, or None if never."""
    return timeline(rule, events)[-1].expires_at
