"""A script for a shared agent: customers' requests, restarts and pauses, in order.

A :class:`Request` is one message from a :class:`Customer` in a thread with the reply the
agent gives; :class:`Restart` and :class:`Pause` are what happens to the agent between
requests. :func:`windowmem.scope.shared_agent.run_script` plays such a script.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from windowmem.errors import WindowMemError


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


def requests_of(events: Sequence[Event]) -> tuple[Request, ...]:
    """The requests of a script, without its restarts and pauses."""
    return tuple(e for e in events if isinstance(e, Request))
