"""The key templates lesson 1 compares, and which requests each puts in one bucket.

A key choice is a named n8n session key template read from the Webhook's body:
per user, per thread, tenant and user, all three, or one constant. :func:`buckets`
and :func:`owners` say which requests (and whose) share each key a template gives.

>>> key_choice("composite").template
'{{ $json.body.tenantId }}:{{ $json.body.userId }}:{{ $json.body.threadId }}'
"""

from __future__ import annotations

from collections.abc import Sequence

from windowmem.errors import WindowMemError
from windowmem.key_templates import render_key
from windowmem.scope.script import Request
from windowmem.scope.session_keys import KeyPattern

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


def key_choice(name: str) -> KeyPattern:
    """The key choice called *name* (``per user``, ``per thread``, ``composite``, ``tenant + user``, ``constant``)."""
    for choice in KEY_CHOICES:
        if choice.name == name:
            return choice
    raise WindowMemError(
        f"unknown key choice {name!r}: use one of {', '.join(c.name for c in KEY_CHOICES)}"
    )


def key_for(template: str, request: Request) -> str:
    """The session key *template* gives for *request* (fields read from the webhook item).

    >>> from windowmem.scope.script import Customer
    >>> key_for(COMPOSITE.template, Request(Customer("Marta", "tutienda", "u-1"), "m-1", "Hi", "Hello"))
    'tutienda:u-1:m-1'
    """
    return render_key(template, {"$json": request.item()})


def buckets(template: str, requests: Sequence[Request]) -> dict[str, tuple[int, ...]]:
    """Which requests (by position) share each key *template* gives, in order of first use.

    >>> from windowmem.scope.script import Customer
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

    >>> from windowmem.scope.script import Customer
    >>> marta, carlos = Customer("Marta", "tutienda", "u-1"), Customer("Carlos", "empanadas", "u-1")
    >>> owners(PER_USER.template, [Request(marta, "m-1", "a", "b"), Request(carlos, "c-1", "c", "d")])
    {'user:u-1': ('Marta', 'Carlos')}
    """
    return {
        key: tuple(dict.fromkeys(requests[i].customer.name for i in positions))
        for key, positions in buckets(template, requests).items()
    }
