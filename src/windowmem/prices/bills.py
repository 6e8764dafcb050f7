"""A conversation's bill: every call of a chat under a window policy, priced with the cache.

A sliding window drops the oldest turn from the front once it is full, so every call after
that starts differently right after the system message, and only the system message (if it
is long enough to be cached at all) is read from the cache; an unbounded history keeps every
earlier call as the start of the next one. The model counts in whole messages and assumes
each call comes within the cache's lifetime of the last one (minutes, not hours).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from windowmem.conversation import Conversation, as_conversation
from windowmem.errors import PolicyError
from windowmem.messages import Message, Role, system
from windowmem.policies.base import WindowPolicy
from windowmem.prices.cache import cache_tokens
from windowmem.prices.models import CallTokens, ModelPrice, call_cost, price_of
from windowmem.replay import iter_turn_views
from windowmem.tokens import TokenCounter, count_messages


@dataclass(frozen=True)
class Bill:
    """A conversation's calls and what they cost together."""

    model: ModelPrice
    calls: tuple[CallTokens, ...]

    @property
    def dollars(self) -> Decimal:
        return sum((call_cost(c, self.model) for c in self.calls), Decimal(0))

    def total(self, kind: str) -> int:
        """Total tokens of one *kind*: "input", "cached", "written", "uncached" or "output"."""
        if kind not in ("input", "cached", "written", "uncached", "output"):
            raise ValueError(
                f"unknown kind of token {kind!r}: use input, cached, written, uncached or output"
            )
        return sum(getattr(c, kind) for c in self.calls)


def conversation_bill(
    conversation: Conversation | Sequence[Message],
    policy: WindowPolicy,
    model: ModelPrice | str,
    counter: TokenCounter = count_messages,
    *,
    stamp: Callable[[int], str] | None = None,
) -> Bill:
    """What every call of *conversation* under *policy* costs on *model*, one call per turn.

    A call's output is its turn's assistant messages; the extra calls of a turn's tool rounds
    are not counted, so for a chat with tools the bill is a lower bound.

    *stamp*, when given, is the text put at the start of the system message of turn *t*'s
    call, ``stamp(t)``: what an expression such as n8n's ``{{ $now }}`` at the top of the
    System Message does, filled anew on every run. Calls whose stamps differ share no prefix.

    >>> from windowmem.messages import system, user, assistant
    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> from windowmem.tokens import count_words
    >>> chat = [system("rule " * 1100)] + [m for t in range(4) for m in (user("u"), assistant("a"))]
    >>> plain = conversation_bill(chat, N8nSimpleMemory(0), "gpt-5.4-mini", count_words)
    >>> stamped = conversation_bill(chat, N8nSimpleMemory(0), "gpt-5.4-mini", count_words,
    ...                             stamp=lambda turn: f"Now: 10:0{turn}")
    >>> plain.total("cached"), stamped.total("cached")
    (3072, 0)
    """
    price = price_of(model) if isinstance(model, str) else model
    chat = as_conversation(conversation)
    views = list(iter_turn_views(chat, policy, counter))
    sent = [_stamped(v.sent, stamp(v.turn)) if stamp else v.sent for v in views]
    cached = cache_tokens(sent, price.cache, counter)
    calls = []
    for view, call, interaction, (read, written) in zip(
        views, sent, chat.interactions, cached, strict=True
    ):
        reply = [m for m in interaction.messages if m.role is Role.ASSISTANT]
        tokens = sum(counter(m) for m in call) if stamp else view.input_tokens
        calls.append(CallTokens(view.turn, tokens, read, written, sum(counter(m) for m in reply)))
    return Bill(price, tuple(calls))


def _stamped(call: Sequence[Message], text: str) -> tuple[Message, ...]:
    # The stamp opens the system message; a call without one gets a system message of its own.
    if not isinstance(text, str) or not text.strip():
        raise PolicyError(f"a stamp must be a non-empty string, got {text!r}")
    if call and call[0].role is Role.SYSTEM:
        return (system(text + "\n" + call[0].content), *call[1:])
    return (system(text), *call)


def behind_system_message(
    conversation: Conversation | Sequence[Message], text: str
) -> Conversation:
    """*conversation* with *text* as its system message, in place of any it had.

    A builder who pastes the shop's policies into the agent's System Message makes every call
    longer by the same prefix: the part a prompt cache can serve to a sliding window too.

    >>> from windowmem.messages import system, user, assistant
    >>> chat = behind_system_message([system("Be brief."), user("hi"), assistant("hello")], "Rules")
    >>> [(m.role.value, m.content) for m in chat.messages]
    [('system', 'Rules'), ('user', 'hi'), ('assistant', 'hello')]
    """
    if not isinstance(text, str) or not text.strip():
        raise PolicyError("give the system message's text: a non-empty string")
    chat = as_conversation(conversation)
    rest = [m for m in chat.messages if m.role is not Role.SYSTEM]
    return Conversation.of([system(text), *rest], chat.title)
