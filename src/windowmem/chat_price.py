"""Price your own chat from five numbers, without a transcript.

A builder knows roughly how long the agent's System Message is, how long a customer's message
and the agent's reply run, and how many turns a chat lasts. :func:`chat_bill` builds a chat of
that shape (every message distinct, so no two calls share more than they truly would) and
bills it turn by turn through n8n's Simple Memory at a Context Window Length, with the model's
list prices and prompt-cache rule (:mod:`windowmem.prices`).

>>> bill = chat_bill(system_tokens=2_000, question_tokens=50, reply_tokens=150, turns=3,
...                  window=0, model="gpt-5.4-mini")
>>> [(c.input, c.cached) for c in bill.calls]
[(2050, 0), (2250, 2048), (2450, 2176)]
"""

from __future__ import annotations

from windowmem.conversation import Conversation
from windowmem.errors import PolicyError
from windowmem.messages import assistant, system, user
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.prices import Bill, ModelPrice, conversation_bill
from windowmem.tokens import count_words


def _words(tokens: int, label: str) -> str:
    # *tokens* whitespace words, the first naming the message so that no two are alike.
    return " ".join([label] + ["w"] * (tokens - 1))


def _whole(name: str, value: object, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise PolicyError(f"{name} must be a whole number of at least {least}, got {value!r}")
    return value


def chat_bill(
    *,
    system_tokens: int,
    question_tokens: int,
    reply_tokens: int,
    turns: int,
    window: int,
    model: ModelPrice | str,
) -> Bill:
    """The bill of one *turns*-long chat of this shape at Context Window Length *window* (0: no
    limit) on *model* (a :class:`~windowmem.prices.ModelPrice` or its API id, e.g.
    ``"gpt-5.4-mini"``): one call per turn, each reply billed as output.

    >>> chat_bill(system_tokens=0, question_tokens=50, reply_tokens=150, turns=3, window=5,
    ...           model="gpt-5.4-mini")
    Traceback (most recent call last):
    ...
    windowmem.errors.PolicyError: system_tokens must be a whole number of at least 1, got 0
    """
    _whole("system_tokens", system_tokens, 1)
    _whole("question_tokens", question_tokens, 1)
    _whole("reply_tokens", reply_tokens, 1)
    _whole("turns", turns, 1)
    _whole("window", window, 0)
    messages = [system(_words(system_tokens, "system"))]
    for turn in range(1, turns + 1):
        messages.append(user(_words(question_tokens, f"q{turn}")))
        messages.append(assistant(_words(reply_tokens, f"a{turn}")))
    chat = Conversation.of(messages, "a chat of this shape")
    return conversation_bill(chat, N8nSimpleMemory(window), model, count_words)
